package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// podTimeline records when each pod of a selector reached each stage of its
// start — created, bound to a node, Running — and when the first
// ReplicaSet appeared, from watches opened before the workload starts. It
// is how the W6 benchmark tells where its seconds go: in the controllers
// (created), the scheduler (bound) or the kubelets (Running).
type podTimeline struct {
	changed chan struct{} // poked (capacity 1) on every pod event

	mu        sync.Mutex
	rsCreated time.Time
	// created, bound and running hold, by pod name, when the watch first
	// saw the pod, saw it with a node, and saw it Running.
	created, bound, running map[string]time.Time
	// runningNow is the pods currently Running and not being deleted.
	runningNow map[string]bool
	err        error
}

// startTimeline lists and watches the pods of selector and the
// ReplicaSets of the default namespace until the benchmark ends.
func startTimeline(b *testing.B, c *client.Client, selector string) *podTimeline {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	tl := &podTimeline{changed: make(chan struct{}, 1), created: map[string]time.Time{},
		bound: map[string]time.Time{}, running: map[string]time.Time{}, runningNow: map[string]bool{}}
	pods, err := c.Pods("default").List(ctx, client.ListOptions{LabelSelector: selector})
	if err != nil {
		b.Fatal(err)
	}
	rss, err := c.ReplicaSets("default").List(ctx, client.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range pods.Items {
		tl.observePod(p, false)
	}
	podWatch, err := c.Pods("default").Watch(ctx, client.ListOptions{LabelSelector: selector, ResourceVersion: pods.ResourceVersion})
	if err != nil {
		b.Fatal(err)
	}
	rsWatch, err := c.ReplicaSets("default").Watch(ctx, client.ListOptions{ResourceVersion: rss.ResourceVersion})
	if err != nil {
		b.Fatal(err)
	}
	go tl.followPods(ctx, c, selector, podWatch)
	go func() {
		defer rsWatch.Stop()
		for ev := range rsWatch.ResultChan() {
			if _, ok := ev.Object.(*api.ReplicaSet); ok && ev.Type == client.Added {
				tl.mu.Lock()
				if tl.rsCreated.IsZero() {
					tl.rsCreated = time.Now()
				}
				tl.mu.Unlock()
			}
		}
	}()
	return tl
}

// followPods records every pod event; when the server ends the watch (its
// slow-watcher policy) it lists and watches again, as a reflector does.
func (tl *podTimeline) followPods(ctx context.Context, c *client.Client, selector string, w client.Watcher) {
	for {
		for ev := range w.ResultChan() {
			if p, ok := ev.Object.(*api.Pod); ok {
				tl.observePod(p, ev.Type == client.Deleted)
			}
		}
		w.Stop()
		if ctx.Err() != nil {
			return
		}
		list, err := c.Pods("default").List(ctx, client.ListOptions{LabelSelector: selector})
		if err == nil {
			for _, p := range list.Items {
				tl.observePod(p, false)
			}
			w, err = c.Pods("default").Watch(ctx, client.ListOptions{LabelSelector: selector, ResourceVersion: list.ResourceVersion})
		}
		if err != nil {
			tl.mu.Lock()
			tl.err = err
			tl.mu.Unlock()
			tl.poke()
			return
		}
	}
}

// observePod records the stages pod has reached.
func (tl *podTimeline) observePod(p *api.Pod, deleted bool) {
	now := time.Now()
	tl.mu.Lock()
	if _, ok := tl.created[p.Name]; !ok {
		tl.created[p.Name] = now
	}
	if _, ok := tl.bound[p.Name]; !ok && p.Spec.NodeName != "" {
		tl.bound[p.Name] = now
	}
	isRunning := p.Status.Phase == api.PodRunning
	if _, ok := tl.running[p.Name]; !ok && isRunning {
		tl.running[p.Name] = now
	}
	if isRunning && !deleted && p.DeletionTimestamp == nil {
		tl.runningNow[p.Name] = true
	} else {
		delete(tl.runningNow, p.Name)
	}
	tl.mu.Unlock()
	tl.poke()
}

func (tl *podTimeline) poke() {
	select {
	case tl.changed <- struct{}{}:
	default:
	}
}

// waitRunning waits until n pods are Running (and not being deleted).
func (tl *podTimeline) waitRunning(b *testing.B, start time.Time, n int) {
	b.Helper()
	deadline := time.After(deploymentTimeout)
	for {
		tl.mu.Lock()
		running, seen, err := len(tl.runningNow), len(tl.created), tl.err
		tl.mu.Unlock()
		switch {
		case err != nil:
			b.Fatalf("watch pods: %v", err)
		case running >= n:
			return
		}
		select {
		case <-tl.changed:
		case <-deadline:
			b.Fatalf("%d of %d pods Running (%d seen) after %v", running, n, seen, time.Since(start))
		}
	}
}

// report adds, as metrics, the seconds after start at which the first
// ReplicaSet was created and every pod was created and bound, and logs
// when each stage reached each quarter of the pods.
func (tl *podTimeline) report(b *testing.B, start time.Time) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	since := func(t time.Time) float64 { return t.Sub(start).Seconds() }
	if !tl.rsCreated.IsZero() {
		b.ReportMetric(since(tl.rsCreated), "s-rs-created")
	}
	var lines []string
	for _, stage := range []struct {
		name   string
		times  map[string]time.Time
		metric string
	}{{"created", tl.created, "s-all-created"}, {"bound", tl.bound, "s-all-bound"}, {"Running", tl.running, ""}} {
		times := make([]time.Time, 0, len(stage.times))
		for _, t := range stage.times {
			times = append(times, t)
		}
		slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
		if len(times) == 0 {
			continue
		}
		if stage.metric != "" {
			b.ReportMetric(since(times[len(times)-1]), stage.metric)
		}
		line := fmt.Sprintf("%-8s", stage.name)
		for _, q := range []int{1, len(times) / 4, len(times) / 2, len(times) * 3 / 4, len(times)} {
			line += fmt.Sprintf("  %4d at %5.2fs", q, since(times[max(q, 1)-1]))
		}
		lines = append(lines, line)
	}
	lines = append(lines, "per pod: created→bound "+lagPercentiles(tl.created, tl.bound)+"; bound→Running "+lagPercentiles(tl.bound, tl.running))
	rs := "not seen"
	if !tl.rsCreated.IsZero() {
		rs = fmt.Sprintf("at %.2fs", since(tl.rsCreated))
	}
	b.Logf("timeline (seconds after the create; ReplicaSet %s):\n%s", rs, strings.Join(lines, "\n"))
}

// lagPercentiles describes how long pods took from one stage to the next:
// the median, 90th percentile and maximum over the pods that reached both.
func lagPercentiles(from, to map[string]time.Time) string {
	var lags []time.Duration
	for name, t := range to {
		if f, ok := from[name]; ok {
			lags = append(lags, t.Sub(f))
		}
	}
	if len(lags) == 0 {
		return "-"
	}
	slices.Sort(lags)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return fmt.Sprintf("p50 %.0f ms, p90 %.0f ms, max %.0f ms",
		ms(lags[len(lags)/2]), ms(lags[len(lags)*9/10]), ms(lags[len(lags)-1]))
}
