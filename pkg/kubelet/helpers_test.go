package kubelet_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/kubelet"
	"kplane/test/framework"
)

// cluster is an in-process apiserver and an admin client for it.
type cluster struct {
	api    *framework.APIServer
	client *client.Client
}

func startCluster(t *testing.T) *cluster { return startClusterB(t) }

func startClusterB(t testing.TB) *cluster {
	t.Helper()
	a := framework.StartAPIServer(t)
	c := a.Client(t, func(cfg *client.Config) { cfg.Logger = testLogger() })
	return &cluster{api: a, client: c}
}

func testLogger() *slog.Logger {
	if os.Getenv("KPLANE_TEST_LOGS") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// fastOptions are options for tests: short intervals and back-off, so that
// behaviour which takes minutes on a real node takes a moment here.
func (cl *cluster) fastOptions(node string) kubelet.Options {
	opts := kubelet.DefaultOptions()
	opts.Client = cl.client
	opts.NodeName = node
	opts.Logger = testLogger()
	opts.FileCheckFrequency = 50 * time.Millisecond
	opts.NodeStatusUpdateFrequency = 100 * time.Millisecond
	opts.NodeLeaseRenewInterval = 100 * time.Millisecond
	opts.BackOffInitial = 200 * time.Millisecond
	opts.BackOffMax = 2 * time.Second
	opts.StatusBatchDelay = 10 * time.Millisecond
	opts.Server = nil
	return opts
}

// runningKubelet is a kubelet.Run in a goroutine.
type runningKubelet struct {
	cancel context.CancelFunc
	done   chan error
}

// startKubelet runs a kubelet until stop (or the end of the test).
func startKubelet(t *testing.T, opts kubelet.Options) *runningKubelet { return startKubeletB(t, opts) }

func startKubeletB(t testing.TB, opts kubelet.Options) *runningKubelet {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	k := &runningKubelet{cancel: cancel, done: make(chan error, 1)}
	go func() { k.done <- kubelet.Run(ctx, opts) }()
	t.Cleanup(func() { k.stop(t) })
	return k
}

// stop cancels the kubelet and waits for Run to return.
func (k *runningKubelet) stop(t testing.TB) {
	t.Helper()
	if k.cancel == nil {
		return
	}
	k.cancel()
	k.cancel = nil
	select {
	case err := <-k.done:
		if err != nil {
			t.Errorf("kubelet.Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("kubelet.Run did not return after its context was cancelled")
	}
}

// waitNodesReady waits until n nodes exist and are Ready.
func waitNodesReady(t testing.TB, cl *cluster, n int) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		list, err := cl.client.Nodes().List(context.Background(), client.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		ready := 0
		for _, node := range list.Items {
			for _, c := range node.Status.Conditions {
				if c.Type == api.NodeReady && c.Status == api.ConditionTrue {
					ready++
				}
			}
		}
		return ready == n, fmt.Sprintf("%d of %d nodes Ready", ready, n)
	})
}

// createBoundPod creates pod in default and binds it to node, as the
// scheduler would.
func (cl *cluster) createBoundPod(t *testing.T, pod *api.Pod, node string) *api.Pod {
	t.Helper()
	ctx := context.Background()
	if pod.Namespace == "" {
		pod.Namespace = "default"
	}
	created, err := cl.client.Pods(pod.Namespace).Create(ctx, pod, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod %s: %v", pod.Name, err)
	}
	err = cl.client.Bind(ctx, &api.Binding{ObjectMeta: api.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace},
		Target: api.ObjectReference{Kind: "Node", Name: node}})
	if err != nil {
		t.Fatalf("bind pod %s: %v", pod.Name, err)
	}
	return created
}

// getPod reads a pod (nil when it does not exist).
func (cl *cluster) getPod(t *testing.T, namespace, name string) *api.Pod {
	t.Helper()
	pod, err := cl.client.Pods(namespace).Get(context.Background(), name, client.GetOptions{})
	if err != nil {
		return nil
	}
	return pod
}

// waitPod waits until cond holds for the pod and returns it.
func (cl *cluster) waitPod(t *testing.T, name string, cond func(*api.Pod) bool) *api.Pod {
	t.Helper()
	var pod *api.Pod
	framework.Eventually(t, 20*time.Second, func() (bool, string) {
		pod = cl.getPod(t, "default", name)
		if pod == nil {
			return false, "pod not found"
		}
		return cond(pod), describePod(pod)
	})
	return pod
}

// describePod summarizes a pod's status for failure messages.
func describePod(pod *api.Pod) string {
	s := fmt.Sprintf("phase=%s ip=%s", pod.Status.Phase, pod.Status.PodIP)
	for _, c := range pod.Status.Conditions {
		s += fmt.Sprintf(" %s=%s", c.Type, c.Status)
	}
	for _, cs := range append(append([]api.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...) {
		state := "?"
		switch {
		case cs.State.Running != nil:
			state = "running"
		case cs.State.Waiting != nil:
			state = "waiting:" + cs.State.Waiting.Reason
		case cs.State.Terminated != nil:
			state = fmt.Sprintf("terminated:%s(%d)", cs.State.Terminated.Reason, cs.State.Terminated.ExitCode)
		}
		s += fmt.Sprintf(" [%s %s restarts=%d ready=%v]", cs.Name, state, cs.RestartCount, cs.Ready)
	}
	return s
}

func podCondition(pod *api.Pod, t api.PodConditionType) api.ConditionStatus {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

// simplePod is a one-container pod with optional annotations.
func simplePod(name string, policy api.RestartPolicy, annotations map[string]string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Annotations: annotations},
		Spec: api.PodSpec{
			RestartPolicy: policy,
			Containers:    []api.Container{{Name: "app", Image: "nginx:1.25"}},
		},
	}
}
