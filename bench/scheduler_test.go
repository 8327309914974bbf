package bench

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/scheduler"
)

// W7: how many pods per second the scheduler binds with 1 000 nodes and
// 5 000 pending pods. Nodes and pods are created through the API before
// the scheduler starts (nodes as plain Node objects with allocatable: the
// scheduler reads nothing else of a node); the clock runs from the
// scheduler's start — informer lists included — until a watch has seen
// every pod bound.
//
//	go test -run '^$' -bench W7 -benchtime 1x -count 3 ./bench/
func BenchmarkW7SchedulerPodsPerSecond(b *testing.B) {
	const nodes, pods, writers = 1000, 5000, 16
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := startServer(b)
		c := benchClient(b, s.KubeconfigPath())
		ctx := context.Background()
		createAll(b, writers, nodes, func(n int) error {
			_, err := c.Nodes().Create(ctx, benchNode(n), client.CreateOptions{})
			return err
		})
		createAll(b, writers, pods, func(n int) error {
			_, err := c.Pods("default").Create(ctx, benchPod(fmt.Sprintf("pod-%05d", n)), client.CreateOptions{})
			return err
		})
		// Open the watch before the clock starts: nothing is bound yet.
		list, err := c.Pods("default").List(ctx, client.ListOptions{Limit: 1})
		if err != nil {
			b.Fatal(err)
		}
		watchCtx, stopWatch := context.WithCancel(ctx)
		allBound := make(chan error, 1)
		go func() { allBound <- waitAllBound(watchCtx, c, pods, list.ResourceVersion) }()

		opts := scheduler.DefaultOptions()
		opts.Kubeconfig = s.KubeconfigPath()
		opts.Logger = slog.New(slog.DiscardHandler)
		schedCtx, stopScheduler := context.WithCancel(ctx)
		done := make(chan error, 1)
		stopProfile := profileThisProcess(b, "w7")
		b.StartTimer()
		start, cpuBefore := time.Now(), processCPU()
		go func() { done <- scheduler.Run(schedCtx, opts) }()
		select {
		case err := <-allBound:
			if err != nil {
				b.Fatal(err)
			}
		case <-time.After(5 * time.Minute):
			b.Fatal("not all pods were bound within 5 minutes")
		}
		elapsed, cpu := time.Since(start), processCPU()-cpuBefore
		b.StopTimer()
		stopProfile()
		stopScheduler()
		stopWatch()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(pods)/elapsed.Seconds(), "pods/s")
		b.ReportMetric(elapsed.Seconds(), "s-to-bind-all")
		// The whole process's CPU (apiserver, etcd, scheduler and the
		// watch that waits for the bindings) per pod bound.
		b.ReportMetric(float64(cpu.Microseconds())/pods, "cpu-us/pod")
	}
}

// waitAllBound returns once total pods in default are bound, watching
// from resourceVersion (when no pod was bound yet). The apiserver closes a
// watch that falls too far behind (its slow-watcher policy); then it lists
// and watches again, as a reflector does.
func waitAllBound(ctx context.Context, c *client.Client, total int, resourceVersion string) error {
	bound := map[string]bool{}
	for ctx.Err() == nil {
		w, err := c.Pods("default").Watch(ctx, client.ListOptions{ResourceVersion: resourceVersion})
		if err != nil {
			return err
		}
		for ev := range w.ResultChan() {
			if pod, ok := ev.Object.(*api.Pod); ok && pod.Spec.NodeName != "" {
				if bound[pod.Name] = true; len(bound) == total {
					w.Stop()
					return nil
				}
			}
		}
		list, err := c.Pods("default").List(ctx, client.ListOptions{})
		if err != nil {
			return err
		}
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				bound[p.Name] = true
			}
		}
		if len(bound) == total {
			return nil
		}
		resourceVersion = list.ResourceVersion
	}
	return ctx.Err()
}

func benchClient(b *testing.B, kubeconfig string) *client.Client {
	b.Helper()
	cfg, err := client.ConfigFromKubeconfig(kubeconfig, "")
	if err != nil {
		b.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	c, err := client.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

// createAll runs create(0..total-1) on writers goroutines.
func createAll(b *testing.B, writers, total int, create func(n int) error) {
	b.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for n := w; n < total; n += writers {
				if err := create(n); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// benchNode is the n-th node, of the size kubelets in kplane report by
// default (4 CPUs, 8 GiB, 110 pods): 1 000 of them hold the 5 000 pods
// easily. Each has a pod range of its own, outside the cluster CIDR the
// controller-manager's node IPAM hands out (10.244.0.0/16, room for 256
// nodes), as `ctl up`'s kubelets have with --pod-cidr: without one, the
// separate-process W7's controller-manager retried the 744 nodes it has no
// block for throughout the measurement.
func benchNode(n int) *api.Node {
	name := fmt.Sprintf("node-%04d", n)
	resources := api.ResourceList{
		api.ResourceCPU:    api.MustParseQuantity("4"),
		api.ResourceMemory: api.MustParseQuantity("8Gi"),
		api.ResourcePods:   api.MustParseQuantity("110"),
	}
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Spec:       api.NodeSpec{PodCIDR: fmt.Sprintf("10.%d.%d.0/24", 64+n/256, n%256)},
		Status: api.NodeStatus{Capacity: resources, Allocatable: resources,
			Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}}},
	}
}

// benchPod is the same small pod W3 creates.
func benchPod(name string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"app": "bench"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx:1.27", Resources: api.ResourceRequirements{
			Requests: api.ResourceList{api.ResourceCPU: api.MustParseQuantity("100m"), api.ResourceMemory: api.MustParseQuantity("64Mi")},
		}}}},
	}
}
