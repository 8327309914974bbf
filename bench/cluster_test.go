package bench

import (
	"context"
	"os"
	"testing"
	"time"

	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// TestMain removes the binaries framework.BuildBinaries built for this run.
// Started with w3DriverEnv set, the test binary is W3's client driver
// instead (w3_separate_driver_test.go) and runs no test.
func TestMain(m *testing.M) {
	if code, ok := runW3DriverFromEnv(); ok {
		os.Exit(code)
	}
	framework.Main(m)
}

// W1: `ctl up` on a fresh data dir → control-plane, node1 and node2 all
// Ready: the apiserver starts on a new etcd, then the scheduler and three
// kubelets start and register. The binaries are built before the timer
// starts; each iteration is a separate cluster, stopped outside the timer.
// Upstream's comparable figure (kube-apiserver ready, controllers holding
// their leases) is 3.7 s; the target is 1.5 s (docs/performance.md).
func BenchmarkW1ClusterUp(b *testing.B) {
	bin := framework.BuildBinaries(b)
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		opts := cluster.DefaultOptions()
		opts.DataDir, opts.Port, opts.Nodes, opts.BinDir = b.TempDir(), 0, 2, bin
		start := time.Now()
		c, err := cluster.Up(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		b.StopTimer()
		if err := c.Stop(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ready-ms")
}
