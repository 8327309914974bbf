package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// Shape of issue 20's Done-when 4: 1 000 pods on 100 simulated nodes, the
// nodes hollow ones of one kubelet process, as in the W6 benchmarks.
const (
	benchPods  = 1000
	benchNodes = 100
)

// BenchmarkUI1000Pods measures the page with 1 000 pods on 100 nodes
// (bench_scenario.mjs drives headless Chromium; docs/performance.md):
//
//   - ms-update-p50, ms-update-p99, ms-update-max: for each of the 1 000
//     pods of a Deployment created with the page open, from the moment a
//     watch the benchmark opened beforehand receives the pod with
//     status.phase Running (the kubelet's status write as a client sees
//     it, over loopback) to the moment the page's nodes view shows the pod
//     as Running (a MutationObserver in the page, wall clock);
//
//   - ms-first-render: a fresh navigation to the page with the 1 000 pods
//     Running, from navigation start to all 1 000 pods drawn;
//
//   - long tasks (main-thread tasks over 50 ms, PerformanceObserver
//     "longtask") during each phase: count and longest.
//
//     make bench-ui
//     go test -run '^$' -bench 'UI1000Pods' -benchtime 1x -count 3 ./test/browser/
//
// With KPLANE_BENCH_PROFILE=1 the scenario also records a CPU profile of
// the page in each phase (profile.mjs): the top functions by self time in
// the log, the .cpuprofile files among the test artifacts (go test
// -artifacts). Profiling slows the page: do not quote those runs' numbers.
func BenchmarkUI1000Pods(b *testing.B) {
	chromium, node := requireBrowser(b)
	for range b.N {
		lc := framework.StartCluster(b, func(o *cluster.Options) { o.Nodes = 0 })
		framework.StartHollowNodes(b, lc, benchNodes, "kubelet-hollow")
		base, login := startUI(b, lc)
		running := watchRunning(b, lc.Client(b))

		results := filepath.Join(b.TempDir(), "results.json")
		runScenario(b, node, chromium, "bench_scenario.mjs", lc, login,
			"KPLANE_UI_BASE="+base,
			fmt.Sprintf("KPLANE_BENCH_PODS=%d", benchPods),
			fmt.Sprintf("KPLANE_BENCH_NODES=%d", benchNodes),
			"KPLANE_BENCH_RESULTS="+results)
		reportUI(b, results, running.snapshot())
	}
}

// pageResults is what bench_scenario.mjs writes.
type pageResults struct {
	// RunningAt is, per pod name, the wall-clock time (Unix ms) the page
	// first drew the pod as Running.
	RunningAt map[string]float64 `json:"runningAt"`
	// FirstRenderMs is from navigation start to all pods drawn.
	FirstRenderMs float64 `json:"firstRenderMs"`
	// LongTasks are the main thread's tasks over 50 ms, in ms, while the
	// pods turned Running (update) and while the page loaded (load).
	LongTasks struct {
		Update []float64 `json:"update"`
		Load   []float64 `json:"load"`
	} `json:"longTasks"`
}

// reportUI reads the page's results and reports the metrics.
func reportUI(b *testing.B, path string, runningAt map[string]time.Time) {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatalf("read the page's results: %v", err)
	}
	var page pageResults
	if err := json.Unmarshal(data, &page); err != nil {
		b.Fatalf("decode the page's results: %v", err)
	}
	var delays []float64
	for name, drawn := range page.RunningAt {
		if watched, ok := runningAt[name]; ok {
			delays = append(delays, drawn-float64(watched.UnixMicro())/1000)
		}
	}
	if len(delays) < benchPods {
		b.Fatalf("update delays for %d pods, want %d (page saw %d Running, the watch %d)", len(delays), benchPods, len(page.RunningAt), len(runningAt))
	}
	slices.Sort(delays)
	b.ReportMetric(percentile(delays, 50), "ms-update-p50")
	b.ReportMetric(percentile(delays, 99), "ms-update-p99")
	b.ReportMetric(delays[len(delays)-1], "ms-update-max")
	b.ReportMetric(page.FirstRenderMs, "ms-first-render")
	b.ReportMetric(float64(len(page.LongTasks.Update)), "longtasks-update")
	b.ReportMetric(slices.Max(append(page.LongTasks.Update, 0)), "ms-longtask-update-max")
	b.ReportMetric(float64(len(page.LongTasks.Load)), "longtasks-load")
	b.ReportMetric(slices.Max(append(page.LongTasks.Load, 0)), "ms-longtask-load-max")
	b.ReportMetric(0, "ns/op") // the wall time of a run says nothing here
}

// percentile is the p-th percentile of sorted (nearest rank).
func percentile(sorted []float64, p int) float64 {
	i := (len(sorted)*p+99)/100 - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// runningWatch records when a watch receives each pod with phase Running.
type runningWatch struct {
	mu      sync.Mutex
	running map[string]time.Time
}

// watchRunning opens a watch on the default namespace's pods, from an
// empty list's resourceVersion, and records the first time each pod is
// seen Running. It stops with the benchmark.
func watchRunning(b *testing.B, c *client.Client) *runningWatch {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	list, err := c.Pods("default").List(ctx, client.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	w, err := c.Pods("default").Watch(ctx, client.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		b.Fatal(err)
	}
	rw := &runningWatch{running: map[string]time.Time{}}
	go rw.follow(ctx, c, w, list.ResourceVersion)
	return rw
}

// follow records the Running pods w delivers; when the server ends the
// watch (its slow-watcher policy, or a timeout) it watches again from the
// last resourceVersion seen, as a reflector does, so no transition is
// missed and each is timed when it arrives.
func (rw *runningWatch) follow(ctx context.Context, c *client.Client, w client.Watcher, lastRV string) {
	for {
		for ev := range w.ResultChan() {
			now := time.Now()
			p, ok := ev.Object.(*api.Pod)
			if !ok {
				continue
			}
			lastRV = p.ResourceVersion
			if p.Status.Phase != api.PodRunning {
				continue
			}
			rw.mu.Lock()
			if _, seen := rw.running[p.Name]; !seen {
				rw.running[p.Name] = now
			}
			rw.mu.Unlock()
		}
		w.Stop()
		if ctx.Err() != nil {
			return
		}
		var err error
		if w, err = c.Pods("default").Watch(ctx, client.ListOptions{ResourceVersion: lastRV}); err != nil {
			return
		}
	}
}

// snapshot copies what the watch recorded.
func (rw *runningWatch) snapshot() map[string]time.Time {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return maps.Clone(rw.running)
}
