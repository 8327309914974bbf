package main

import (
	"fmt"
	"slices"
	"strings"
)

// The benchmark names and metric units of issue 18's targets, as the
// benchmarks in bench/ report them (docs/performance.md, "Issue 18 results").
const (
	w2Footprint         = "BenchmarkW2IdleFootprint"
	w3InProcess         = "BenchmarkW3CreateConfigMaps16Clients"
	w3SeparateProcess   = "BenchmarkW3CreateConfigMapsSeparateProcess"
	w5WatchLatency      = "BenchmarkW5WatchLatency"
	w6Deployment        = "BenchmarkW6Deployment1000"
	w7InProcess         = "BenchmarkW7SchedulerPodsPerSecond"
	w7SeparateProcesses = "BenchmarkW7SchedulerSeparateProcesses"
)

// verdict is a row's outcome. A row whose benchmark is missing is "not run",
// never PASS; a row without a target is only reported.
type verdict string

const (
	pass     verdict = "PASS"
	miss     verdict = "MISS"
	notRun   verdict = "not run"
	reported verdict = "reported"
)

// row is one line of the target table.
type row struct {
	workload string // what was measured and its target, as a reader says it
	measured string // median [min–max], or "—"
	runs     string // how many runs the median is of
	beside   string // the figures the target is read against (raw etcd, the other side of a ratio)
	verdict  verdict
}

// atMost and atLeast say which side of its target a figure must be on.
func atMost(v, target float64) verdict  { return pick(v <= target) }
func atLeast(v, target float64) verdict { return pick(v >= target) }

func pick(ok bool) verdict {
	if ok {
		return pass
	}
	return miss
}

// targetRows evaluates issue 18's targets against r, one row per target, in
// the order of the "Done when".
func targetRows(r results) []row {
	return []row{
		single(r, "W2 idle RSS of apiserver+etcd, controller-manager, scheduler, kubelets, supervisor ≤ 90 MiB",
			w2Footprint, "MiB-w2", func(v float64) verdict { return atMost(v, 90) },
			besideMetric(r, w2Footprint, "MiB-all", "every process of ctl up", "MiB")),
		single(r, "W3 separate-process clients: creates/s ÷ raw etcd puts/s (same run) ≥ 0.6",
			w3SeparateProcess, "ratio", func(v float64) verdict { return atLeast(v, 0.6) },
			besideRates(r, w3SeparateProcess)),
		single(r, "W3 in-process clients: creates/s ÷ raw etcd puts/s (same run)",
			w3InProcess, "ratio", nil, besideRates(r, w3InProcess)),
		single(r, "W5 create → ADDED on an open watch, p99 ≤ 2 ms",
			w5WatchLatency, "p99-ms", func(v float64) verdict { return atMost(v, 2) },
			besideMetric(r, w5WatchLatency, "etcd-put-p99-ms", "raw etcd sequential put p99", "ms")+"; "+
				besideMetric(r, w5WatchLatency, "p50-ms", "p50", "ms")),
		single(r, "W6 1 000-replica Deployment → Running ≤ 2 s",
			w6Deployment, "s-to-running", func(v float64) verdict { return atMost(v, 2) }, ""),
		quotient(r, "W7 in-process: pods bound/s ÷ W3 in-process creates/s ≥ 0.8",
			w7InProcess, "pods/s", w3InProcess, "creates/s", 0.8),
		quotient(r, "W7 separate processes: pods bound/s ÷ W3 separate-process creates/s ≥ 0.8",
			w7SeparateProcesses, "pods/s", w3SeparateProcess, "creates/s", 0.8),
	}
}

// single is a row about one metric of one benchmark; judge is nil for a
// figure that is only reported.
func single(r results, workload, benchmark, unit string, judge func(float64) verdict, beside string) row {
	s, ok := spreadOf(r.values(benchmark, unit))
	if !ok {
		return row{workload: workload, measured: "—", runs: "0", beside: benchmark + " " + unit, verdict: notRun}
	}
	v := reported
	if judge != nil {
		v = judge(s.median)
	}
	return row{workload: workload, measured: s.String(), runs: runCountOf(s.n), beside: beside, verdict: v}
}

// quotient is a row about the ratio of two benchmarks' medians, which ran
// one after the other in the same `make bench`, so are not paired run by
// run; both sides' spreads are shown beside it.
func quotient(r results, workload, numerator, numeratorUnit, denominator, denominatorUnit string, target float64) row {
	top, okTop := spreadOf(r.values(numerator, numeratorUnit))
	bottom, okBottom := spreadOf(r.values(denominator, denominatorUnit))
	if !okTop || !okBottom || bottom.median == 0 {
		var missing []string
		if !okTop {
			missing = append(missing, numerator)
		}
		if !okBottom || bottom.median == 0 {
			missing = append(missing, denominator)
		}
		return row{workload: workload, measured: "—", runs: "0", beside: "missing: " + strings.Join(missing, ", "), verdict: notRun}
	}
	ratio := top.median / bottom.median
	return row{
		workload: workload,
		measured: number(ratio),
		runs:     runCountOf(top.n) + " ÷ " + runCountOf(bottom.n),
		beside:   fmt.Sprintf("%s %s ÷ %s %s", top, numeratorUnit, bottom, denominatorUnit),
		verdict:  atLeast(ratio, target),
	}
}

// besideMetric prints another metric of the same benchmark, or "" if absent.
func besideMetric(r results, benchmark, unit, label, suffix string) string {
	s, ok := spreadOf(r.values(benchmark, unit))
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s %s %s", label, s, suffix)
}

// besideRates prints a W3 run's two rates behind its ratio.
func besideRates(r results, benchmark string) string {
	creates, ok1 := spreadOf(r.values(benchmark, "creates/s"))
	puts, ok2 := spreadOf(r.values(benchmark, "etcd-puts/s"))
	if !ok1 || !ok2 {
		return ""
	}
	return fmt.Sprintf("%s creates/s, raw etcd %s puts/s", creates, puts)
}

// minRuns is the "medians of at least 5 runs"; a median of fewer is
// still shown, marked so nobody quotes it as the target's figure.
const minRuns = 5

func runCountOf(n int) string {
	if n < minRuns {
		return fmt.Sprintf("%d (< %d)", n, minRuns)
	}
	return fmt.Sprint(n)
}

// perProcess returns the W2 benchmark's per-process medians ("MiB-apiserver"
// and so on), sorted by unit, leaving out the two sums.
func perProcess(r results) []string {
	var out []string
	for unit, runs := range r[w2Footprint] {
		if !strings.HasPrefix(unit, "MiB-") || unit == "MiB-w2" || unit == "MiB-all" {
			continue
		}
		s, _ := spreadOf(runs)
		out = append(out, fmt.Sprintf("%s %s", strings.TrimPrefix(unit, "MiB-"), s))
	}
	slices.Sort(out)
	return out
}
