package kubelet_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// BenchmarkHollowNodesStartPods measures the kubelet's share of W6
// (docs/performance.md): 1 000 pods bound to 100 hollow nodes in one process,
// from the binding to all Running. Each iteration creates and binds the
// pods with 16 writers and waits until every pod reports Running.
func BenchmarkHollowNodesStartPods(b *testing.B) {
	const nodes, pods = 100, 1000
	cl := startClusterB(b)
	opts := cl.fastOptions("")
	opts.NodeCount, opts.NodeNamePrefix, opts.PodCIDR = nodes, "hollow-", "10.244.1.0/24"
	// Production timings: the heartbeats of 100 nodes must not be what is
	// measured.
	opts.StatusBatchDelay = 50 * time.Millisecond
	opts.NodeLeaseRenewInterval, opts.NodeStatusUpdateFrequency = 10*time.Second, 10*time.Second
	startKubeletB(b, opts)
	waitNodesReady(b, cl, nodes)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		var wg sync.WaitGroup
		work := make(chan int)
		for range 16 {
			wg.Go(func() {
				for j := range work {
					pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%d-%d", i, j), Namespace: "default"},
						Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}}}
					if _, err := cl.client.Pods("default").Create(ctx, pod, client.CreateOptions{}); err != nil {
						b.Error(err)
						continue
					}
					if err := cl.client.Bind(ctx, &api.Binding{ObjectMeta: pod.ObjectMeta,
						Target: api.ObjectReference{Kind: "Node", Name: fmt.Sprintf("hollow-%d", j%nodes+1)}}); err != nil {
						b.Error(err)
					}
				}
			})
		}
		for j := range pods {
			work <- j
		}
		close(work)
		wg.Wait()
		bound := time.Since(start)
		for {
			list, err := cl.client.Pods("default").List(ctx, client.ListOptions{FieldSelector: "status.phase=Running"})
			if err != nil {
				b.Fatal(err)
			}
			if len(list.Items) >= pods*(i+1) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		b.ReportMetric(bound.Seconds(), "s-to-bind")
		b.ReportMetric(time.Since(start).Seconds(), "s-to-running")
		b.ReportMetric((time.Since(start) - bound).Seconds(), "s-bound-to-running")
	}
}
