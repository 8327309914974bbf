//go:build scale

package scale

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/procstat"
	"kplane/test/framework"
)

// relistPods is the mid size of the relist benchmark: large enough that a
// paged list takes 40 pages of 500, small enough for an in-process
// apiserver on a shared machine.
const relistPods = 20000

// BenchmarkRelist20000PodsUnderWrites times a fresh kplane pod informer's
// relist (its paged LIST of 500 per page, until its cache has synced) of
// 20 000 pods from an in-process apiserver while pods are created and
// deleted beside it (about 200 writes a second): what a restarting
// component waits for in a busy cluster. With writes going on, a continue
// page names a revision the watch cache has already moved past, which is
// what the cache's pages at an earlier revision (pkg/store/cache/page.go)
// serve; before them such pages were read from etcd and decoded again.
// It reports the median relist (s-per-relist) and this process's CPU
// seconds per relist (apiserver, etcd, informer and the writer together).
func BenchmarkRelist20000PodsUnderWrites(b *testing.B) {
	a := framework.StartAPIServer(b)
	c := a.Client(b, nil) // QPS 0: no client-side throttling
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := createPods(ctx, c, "default", 0, relistPods, 16, 0, func(i int) *api.Pod {
		return scalePod(fmt.Sprintf("pod-%05d", i), fmt.Sprintf("node-%03d", i%200), "")
	}); err != nil {
		b.Fatal(err)
	}

	var writer sync.WaitGroup
	writer.Go(func() { churnPods(ctx, b, c) })
	defer writer.Wait()
	defer cancel()

	b.ResetTimer()
	var durations []time.Duration
	cpuBefore, _ := procstat.CPUTime(os.Getpid())
	for range b.N {
		r, err := measureRelist(ctx, c)
		if err != nil {
			b.Fatal(err)
		}
		if r.pods < relistPods {
			b.Fatalf("relist cached %d pods, want at least %d", r.pods, relistPods)
		}
		durations = append(durations, r.elapsed)
	}
	cpuAfter, _ := procstat.CPUTime(os.Getpid())
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(durations[len(durations)/2].Seconds(), "s-per-relist")
	b.ReportMetric((cpuAfter-cpuBefore).Seconds()/float64(b.N), "cpu-s-per-relist")
}

// churnPods creates and deletes pods outside the listed set at about 200
// writes a second until ctx ends, so the pods' revision keeps moving.
func churnPods(ctx context.Context, b *testing.B, c *client.Client) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		name := fmt.Sprintf("churn-%06d", i)
		if _, err := c.Pods("default").Create(ctx, scalePod(name, "node-000", ""), client.CreateOptions{}); err != nil {
			if ctx.Err() == nil {
				b.Errorf("churn: %v", err)
			}
			return
		}
		if err := c.Pods("default").Delete(ctx, name, client.DeleteOptions{}); err != nil {
			if ctx.Err() == nil {
				b.Errorf("churn: %v", err)
			}
			return
		}
	}
}
