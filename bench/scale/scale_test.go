//go:build scale

package scale

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// namespace holds every pod of the run.
const namespace = "scale"

// TestScale is `make bench-scale` (docs/performance.md, "Issue 18: scale"):
//
//	go test -tags scale -run TestScale -v -timeout 40m ./bench/scale/
//
// (a) 1 000 hollow nodes; 30 pods per node created at 100 pods/s by 16
// creators, pods created directly (no Deployment: the startup latency is
// then the scheduler's and the kubelets' alone, without the ReplicaSet
// controller's slow start), timed from the create's sending to Running;
// mutating API p99 from the apiserver's histogram over that phase.
// (b) then grown to 100 000 pods created as fast as the creators go with
// spec.nodeName set (the scheduler skipped, filling every node to 100
// pods: a default node holds 110); at 100 000, a fresh informer's relist
// and W7 with 2 000 pods pending. (c) RSS and LIST latency at 1 k, 10 k,
// 30 k and 100 k pods. The report goes to bench/scale-report.txt.
func TestScale(t *testing.T) {
	sz, err := sizeFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), sz.timeout)
	defer cancel()
	runStart := time.Now()
	rep := &report{size: sz}

	sc := startScaleCluster(t, sz)
	rep.nodesReady = time.Since(runStart)
	peak := watchPeakRSS(ctx, sc.pids)
	if _, err := sc.client.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: namespace}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr := startTracker(ctx, t, sc.client, namespace)
	stopProgress := logProgress(t, tr, runStart)
	defer stopProgress()

	// (a) 30 pods per node at 100 pods/s, the SLO part, sampled at each
	// curve point on the way.
	before, err := readHistograms(ctx, sc.client)
	if err != nil {
		t.Fatal(err)
	}
	var created []createdPod
	phaseStart, made := time.Now(), 0
	for _, point := range sz.curve {
		if point > sz.startupPods {
			break
		}
		batch, err := createPods(ctx, sc.client, namespace, made, point, 16, sz.createQPS, func(i int) *api.Pod {
			return scalePod(fmt.Sprintf("pod-%06d", i), "", "")
		})
		created = append(created, batch...)
		if err != nil {
			t.Fatal(err)
		}
		made = point
		tr.waitFor(ctx, t, fmt.Sprintf("%d pods Running", point), 5*time.Minute, func(_, running int) bool { return running >= point })
		rep.curve = append(rep.curve, sampleOrFail(ctx, t, sc, point))
	}
	rep.startupElapsed = time.Since(phaseStart)
	after, err := readHistograms(ctx, sc.client)
	if err != nil {
		t.Fatal(err)
	}
	rep.mutating = mutatingLatencies(before, after)
	rep.startup, rep.createLatency = startupLatencies(tr, created)
	rep.printStartup(t)

	// (b) grow to the total with spec.nodeName set, every node filled to
	// the same count.
	if sz.totalPods > made {
		growStart := time.Now()
		nodeFor := fillNodes(tr.podsPerNode(), sc.nodeNames, sz.totalPods-made)
		if _, err := createPods(ctx, sc.client, namespace, made, sz.totalPods, 16, 0, func(i int) *api.Pod {
			return scalePod(fmt.Sprintf("pod-%06d", i), nodeFor[i-made], "")
		}); err != nil {
			t.Fatal(err)
		}
		tr.waitFor(ctx, t, fmt.Sprintf("%d pods Running", sz.totalPods), 20*time.Minute, func(_, running int) bool { return running >= sz.totalPods })
		rep.growElapsed = time.Since(growStart)
		rep.curve = append(rep.curve, sampleOrFail(ctx, t, sc, sz.totalPods))
	}
	if rep.relist, err = measureRelist(ctx, sc.client); err != nil {
		t.Fatal(err)
	}
	debug.FreeOSMemory() // the relist's cache is garbage now: give it back before W7

	if sz.w7Pods > 0 {
		rep.w7 = measureW7(ctx, t, sc, tr, namespace, sz.w7Pods)
	}
	rep.peakRSS, rep.peakClusterRSS = peak()
	rep.watchRelists = tr.relistCount()
	rep.total = time.Since(runStart)
	rep.write(t, "../scale-report.txt")
}

// sampleOrFail measures a curve point and logs it.
func sampleOrFail(ctx context.Context, t *testing.T, sc *scaleCluster, pods int) curvePoint {
	t.Helper()
	p, err := sampleCurve(ctx, sc.client, sc.pids, pods, sc.nodeNames[0], sc.Dir)
	if err != nil {
		t.Fatalf("at %d pods: %v", pods, err)
	}
	saveAPIServerHeap(ctx, t, sc, pods)
	t.Logf("at %d pods: apiserver RSS %.0f MiB, all processes %.0f MiB; LIST all %v (%.1f MB), paged %v, one node %v; etcd db %.0f MiB",
		pods, mib(p.rss["apiserver"]), mib(sumRSS(p.rss)), p.listAll.Round(time.Millisecond), float64(p.listBytes)/1e6,
		p.listPaged.Round(time.Millisecond), p.listNode.Round(time.Millisecond), float64(p.etcdDB)/(1<<20))
	return p
}

// startupLatencies pairs each create with when the tracker saw its pod
// Running: the startup latencies, sorted, and the creates' own latencies,
// sorted.
func startupLatencies(tr *podTracker, created []createdPod) (startup, create []time.Duration) {
	for _, c := range created {
		if at, ok := tr.runningAt(c.name); ok {
			startup = append(startup, at.Sub(c.sentAt))
		}
		create = append(create, c.latency)
	}
	slices.Sort(startup)
	slices.Sort(create)
	return startup, create
}

// fillNodes names a node for each of n new pods so that every node ends
// with the same count (give or take one), given perNode pods already
// bound by node.
func fillNodes(perNode map[string]int, nodes []string, n int) []string {
	total := n
	for _, name := range nodes {
		total += perNode[name]
	}
	target := (total + len(nodes) - 1) / len(nodes)
	out := make([]string, 0, n)
	for len(out) < n {
		added := false
		for _, name := range nodes {
			if perNode[name] < target && len(out) < n {
				perNode[name]++
				out = append(out, name)
				added = true
			}
		}
		if !added {
			target++
		}
	}
	return out
}

// watchPeakRSS samples the RSS of every process in pids (and this one)
// every 5 s until ctx ends; the returned function reports the highest sum
// seen so far, of every process and of the cluster's alone (this
// benchmark's own process, with its tracker's copy of every pod and the
// relist's cache, left out).
func watchPeakRSS(ctx context.Context, pids map[string]int) func() (all, cluster uint64) {
	var mu sync.Mutex
	var peakAll, peakCluster uint64
	sample := func() {
		rss := readRSS(pids)
		total := sumRSS(rss)
		mu.Lock()
		peakAll = max(peakAll, total)
		peakCluster = max(peakCluster, total-rss[benchProcess])
		mu.Unlock()
	}
	go func() {
		ticker := time.NewTicker(5 * time.Second)
		defer ticker.Stop()
		for {
			sample()
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
		}
	}()
	return func() (uint64, uint64) {
		sample()
		mu.Lock()
		defer mu.Unlock()
		return peakAll, peakCluster
	}
}

// logProgress logs every 30 s how many pods the tracker has seen bound and
// Running, so that a run that stalls shows where.
func logProgress(t *testing.T, tr *podTracker, start time.Time) func() {
	done := make(chan struct{})
	go func() {
		ticker := time.NewTicker(30 * time.Second)
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				bound, running := tr.counts()
				fmt.Fprintf(os.Stderr, "scale: %4.0fs: %d pods bound, %d Running\n", time.Since(start).Seconds(), bound, running)
			}
		}
	}()
	return func() { close(done) }
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
