//go:build scale

package scale

import (
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// report is everything a scale run measured, printed as one table.
type report struct {
	size size
	// nodesReady is the run's start → every hollow node Ready.
	nodesReady time.Duration
	// startup and createLatency are the startup phase's pods' create →
	// Running latencies and their creates' answer times, sorted;
	// startupElapsed is how long the phase took (pauses at curve points
	// included).
	startup, createLatency []time.Duration
	startupElapsed         time.Duration
	// mutating is the apiserver's mutating calls of the startup phase.
	mutating []callLatency
	// growElapsed is the growth to the total, creates to all Running.
	growElapsed time.Duration
	curve       []curvePoint
	relist      relist
	w7          w7Result
	peakRSS     uint64
	// peakClusterRSS is the peak of the cluster's processes alone, without
	// this benchmark's own.
	peakClusterRSS uint64
	watchRelists   int
	total          time.Duration
}

// sloStartupP99 and sloMutatingP99 are upstream's scalability SLOs.
const (
	sloStartupP99  = 5 * time.Second
	sloMutatingP99 = time.Second
)

// printStartup logs the startup phase's figures as soon as it ends, so a
// run that fails later still shows them.
func (r *report) printStartup(t *testing.T) {
	t.Logf("startup phase:\n%s", strings.Join(r.startupLines(), "\n"))
}

func (r *report) startupLines() []string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000) }
	verdict := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "MISS"
	}
	var lines []string
	n := len(r.startup)
	if n > 0 {
		p99 := percentile(r.startup, 0.99)
		lines = append(lines, fmt.Sprintf("pod startup (create sent → Running seen), %d pods: p50 %s, p90 %s, p99 %s, max %s — SLO p99 ≤ 5 s: %s",
			n, ms(percentile(r.startup, 0.5)), ms(percentile(r.startup, 0.9)), ms(p99), ms(r.startup[n-1]), verdict(p99 <= sloStartupP99)))
	}
	if len(r.createLatency) > 0 {
		lines = append(lines, fmt.Sprintf("pod create as the creators timed it, %d creates: p50 %s, p99 %s, max %s; phase %.0f s (%.0f pods/s asked)",
			len(r.createLatency), ms(percentile(r.createLatency, 0.5)), ms(percentile(r.createLatency, 0.99)),
			ms(r.createLatency[len(r.createLatency)-1]), r.startupElapsed.Seconds(), r.size.createQPS))
	}
	worst := 0.0
	var calls []string
	for _, c := range r.mutating {
		worst = max(worst, c.p99)
		calls = append(calls, fmt.Sprintf("  %-40s %7.0f calls  p99 ≤ %s", c.key, c.count, leString(c.p99)))
	}
	lines = append(lines, fmt.Sprintf("mutating API calls in that phase (apiserver_request_duration_seconds), worst p99 ≤ %s — SLO p99 ≤ 1 s: %s",
		leString(worst), verdict(worst <= sloMutatingP99.Seconds())))
	return append(lines, calls...)
}

// leString prints a bucket bound.
func leString(le float64) string {
	if math.IsInf(le, 1) {
		return "+Inf"
	}
	if le < 1 {
		return fmt.Sprintf("%g ms", le*1000)
	}
	return fmt.Sprintf("%g s", le)
}

// write prints the whole report and writes it to path.
func (r *report) write(t *testing.T, path string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "kplane scale run %s: %d hollow nodes in %d kubelet processes; %d pods at %.0f/s, then %d pods\n",
		time.Now().UTC().Format(time.RFC3339), r.size.nodes, r.size.kubelets, r.size.startupPods, r.size.createQPS, r.size.totalPods)
	fmt.Fprintf(&b, "start → %d nodes Ready %.1f s; whole run %.0f s; peak RSS of all processes together %.0f MiB (of the cluster's alone, without this benchmark's, %.0f MiB); tracker relists %d\n\n",
		r.size.nodes, r.nodesReady.Seconds(), r.total.Seconds(), mib(r.peakRSS), mib(r.peakClusterRSS), r.watchRelists)
	for _, l := range r.startupLines() {
		fmt.Fprintln(&b, l)
	}
	if r.growElapsed > 0 {
		fmt.Fprintf(&b, "\ngrowth to %d pods (spec.nodeName set): creates to all Running %.0f s\n", r.size.totalPods, r.growElapsed.Seconds())
	}
	fmt.Fprintf(&b, "\ncurve: RSS in MiB, LIST latency (all pods full JSON median of %d, in pages of 500, one node's pods by field selector)\n", listRounds)
	var names []string
	seen := map[string]bool{}
	for _, p := range r.curve {
		for _, name := range slices.Sorted(maps.Keys(p.rss)) {
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	fmt.Fprintf(&b, "%-28s", "pods")
	for _, p := range r.curve {
		fmt.Fprintf(&b, "%12d", p.pods)
	}
	fmt.Fprintln(&b)
	row := func(label string, value func(p curvePoint) string) {
		fmt.Fprintf(&b, "%-28s", label)
		for _, p := range r.curve {
			fmt.Fprintf(&b, "%12s", value(p))
		}
		fmt.Fprintln(&b)
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	row("LIST all (full JSON)", func(p curvePoint) string { return ms(p.listAll) })
	row("  body MB", func(p curvePoint) string { return fmt.Sprintf("%.1f", float64(p.listBytes)/1e6) })
	row("LIST all (limit=500 pages)", func(p curvePoint) string { return ms(p.listPaged) })
	row("LIST one node's pods", func(p curvePoint) string { return ms(p.listNode) })
	row("etcd db file MiB", func(p curvePoint) string { return fmt.Sprintf("%.0f", float64(p.etcdDB)/(1<<20)) })
	row("RSS all processes (+bench)", func(p curvePoint) string { return fmt.Sprintf("%.0f", mib(sumRSS(p.rss))) })
	for _, name := range names {
		row("RSS "+name, func(p curvePoint) string {
			if v, ok := p.rss[name]; ok {
				return fmt.Sprintf("%.0f", mib(v))
			}
			return "-"
		})
	}
	if r.relist.pods > 0 {
		fmt.Fprintf(&b, "\nrelist: a fresh informer listed %d pods and synced in %.2f s; its cache grew this process's heap by %.0f MiB\n",
			r.relist.pods, r.relist.elapsed.Seconds(), mib(r.relist.heapGrowth))
	}
	if r.w7.pods > 0 {
		fmt.Fprintf(&b, "W7 at full size: a scheduler process started with %d pods pending bound them all in %.2f s = %.0f pods/s; first bound → last bound %.2f s = %.0f pods/s (its RSS then %.0f MiB)\n",
			r.w7.pods, r.w7.elapsed.Seconds(), float64(r.w7.pods)/r.w7.elapsed.Seconds(),
			r.w7.binding.Seconds(), float64(r.w7.pods)/max(r.w7.binding.Seconds(), 0.001), mib(r.w7.rss))
	}
	t.Log("\n" + b.String())
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Errorf("write the report: %v", err)
	}
}
