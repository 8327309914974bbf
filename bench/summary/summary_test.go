package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sampleOutput is `go test -bench` output as `make bench-targets` writes it,
// with the interleaving a benchmark that starts processes produces: W6's
// name line, then its log, then its figures.
const sampleOutput = `goos: linux
goarch: amd64
pkg: kplane/bench
cpu: AMD EPYC
BenchmarkW2IdleFootprint-2   	       1	60000000000 ns/op	        88.0 MiB-w2	       130.0 MiB-all	        40.0 MiB-apiserver	        20.0 MiB-scheduler
BenchmarkW2IdleFootprint-2   	       1	60000000000 ns/op	        86.0 MiB-w2	       128.0 MiB-all	        39.0 MiB-apiserver	        19.0 MiB-scheduler
BenchmarkW2IdleFootprint-2   	       1	60000000000 ns/op	        92.0 MiB-w2	       131.0 MiB-all	        41.0 MiB-apiserver	        19.5 MiB-scheduler
BenchmarkW2IdleFootprint-2   	       1	60000000000 ns/op	        89.0 MiB-w2	       129.0 MiB-all	        40.5 MiB-apiserver	        19.8 MiB-scheduler
BenchmarkW2IdleFootprint-2   	       1	60000000000 ns/op	        87.0 MiB-w2	       127.0 MiB-all	        40.2 MiB-apiserver	        19.9 MiB-scheduler
BenchmarkW3CreateConfigMaps16Clients-2   	       1	 650000000 ns/op	      3000 creates/s	      6000 etcd-puts/s	         0.50 ratio
BenchmarkW3CreateConfigMaps16Clients-2   	       1	 650000000 ns/op	      3200 creates/s	      6400 etcd-puts/s	         0.50 ratio
BenchmarkW3CreateConfigMaps16Clients-2   	       1	 650000000 ns/op	      2800 creates/s	      7000 etcd-puts/s	         0.40 ratio
BenchmarkW3CreateConfigMaps16Clients-2   	       1	 650000000 ns/op	      3100 creates/s	      6200 etcd-puts/s	         0.50 ratio
BenchmarkW3CreateConfigMaps16Clients-2   	       1	 650000000 ns/op	      2900 creates/s	      5800 etcd-puts/s	         0.50 ratio
BenchmarkW3CreateConfigMapsSeparateProcess-2   	       1	 900000000 ns/op	      2000 creates/s	      3000 etcd-puts/s	         0.667 ratio
BenchmarkW3CreateConfigMapsSeparateProcess-2   	       1	 900000000 ns/op	      1800 creates/s	      3000 etcd-puts/s	         0.600 ratio
BenchmarkW3CreateConfigMapsSeparateProcess-2   	       1	 900000000 ns/op	      1700 creates/s	      3400 etcd-puts/s	         0.500 ratio
BenchmarkW3CreateConfigMapsSeparateProcess-2   	       1	 900000000 ns/op	      1900 creates/s	      3000 etcd-puts/s	         0.633 ratio
BenchmarkW3CreateConfigMapsSeparateProcess-2   	       1	 900000000 ns/op	      1600 creates/s	      3200 etcd-puts/s	         0.500 ratio
BenchmarkW5WatchLatency-2   	       1	 157228719 ns/op	         0.3450 etcd-put-p50-ms	         1.393 etcd-put-p99-ms	         0.7000 p50-ms	         2.671 p99-ms
BenchmarkW5WatchLatency-2   	       1	 157086603 ns/op	         0.3590 etcd-put-p50-ms	         0.8240 etcd-put-p99-ms	         0.7180 p50-ms	         1.055 p99-ms
BenchmarkW5WatchLatency-2   	       1	 152438019 ns/op	         0.3720 etcd-put-p50-ms	         1.356 etcd-put-p99-ms	         0.6850 p50-ms	         1.585 p99-ms
BenchmarkW5WatchLatency-2   	       1	 165375372 ns/op	         0.3810 etcd-put-p50-ms	         1.350 etcd-put-p99-ms	         0.7490 p50-ms	         1.966 p99-ms
BenchmarkW5WatchLatency-2   	       1	 152663388 ns/op	         0.3820 etcd-put-p50-ms	         1.479 etcd-put-p99-ms	         0.6970 p50-ms	         2.249 p99-ms
BenchmarkW6Deployment1000-2   	    deployment_test.go:80: timeline: 250 pods created at 0.47 s
       1	2700000000 ns/op	         2.70 s-to-running	       370 pods/s	         5.2 cpu-s
BenchmarkW6Deployment1000Journal-2   	       1	1000000000 ns/op	         1.00 s-to-running
BenchmarkW7SchedulerPodsPerSecond-2   	       1	3400000000 ns/op	      2600 pods/s	         1.9 s-to-bind-all
BenchmarkW7SchedulerPodsPerSecond-2   	       1	3400000000 ns/op	      2400 pods/s	         2.1 s-to-bind-all
PASS
ok  	kplane/bench	200.0s
`

func parseSample(t *testing.T) results {
	t.Helper()
	r, err := parse(strings.NewReader(sampleOutput))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestParseCollectsEveryRunPerBenchmarkAndUnit(t *testing.T) {
	r := parseSample(t)
	if got := r.values(w5WatchLatency, "p99-ms"); len(got) != 5 || got[0] != 2.671 || got[4] != 2.249 {
		t.Errorf("W5 p99-ms runs = %v, want the five values in order", got)
	}
	if got := r.values(w2Footprint, "MiB-apiserver"); len(got) != 5 {
		t.Errorf("W2 MiB-apiserver runs = %v, want 5", got)
	}
	// The name and its figures were split by a log line.
	if got := r.values(w6Deployment, "s-to-running"); len(got) != 1 || got[0] != 2.70 {
		t.Errorf("W6 s-to-running = %v, want [2.7]", got)
	}
	// A longer name that starts with W6's is its own benchmark.
	if got := r.values("BenchmarkW6Deployment1000Journal", "s-to-running"); len(got) != 1 || got[0] != 1.00 {
		t.Errorf("W6 journal s-to-running = %v, want [1]", got)
	}
	if got := r.values(w7SeparateProcesses, "pods/s"); got != nil {
		t.Errorf("a benchmark that never ran has runs %v", got)
	}
}

func TestSpreadOf(t *testing.T) {
	for _, tc := range []struct {
		runs []float64
		want spread
	}{
		{[]float64{3, 1, 2}, spread{median: 2, min: 1, max: 3, n: 3}},
		{[]float64{4, 1, 3, 2}, spread{median: 2.5, min: 1, max: 4, n: 4}},
		{[]float64{7}, spread{median: 7, min: 7, max: 7, n: 1}},
	} {
		got, ok := spreadOf(tc.runs)
		if !ok || got != tc.want {
			t.Errorf("spreadOf(%v) = %+v, %v; want %+v", tc.runs, got, ok, tc.want)
		}
	}
	if _, ok := spreadOf(nil); ok {
		t.Error("spreadOf(nil) reported a spread")
	}
}

func rowFor(t *testing.T, rows []row, prefix string) row {
	t.Helper()
	for _, r := range rows {
		if strings.HasPrefix(r.workload, prefix) {
			return r
		}
	}
	t.Fatalf("no row starting %q", prefix)
	return row{}
}

func TestTargetRowsJudgeMediansAgainstTargets(t *testing.T) {
	rows := targetRows(parseSample(t))
	for _, tc := range []struct {
		prefix, measured, runs string
		verdict                verdict
	}{
		// Medians: 88 ≤ 90; 0.6 ≥ 0.6; 1.966 ≤ 2; 2.7 > 2.
		{"W2 ", "88.0 [86.0–92.0]", "5", pass},
		{"W3 separate", "0.60 [0.50–0.67]", "5", pass},
		{"W3 in-process", "0.50 [0.40–0.50]", "5", reported},
		{"W5 ", "1.97 [1.05–2.67]", "5", pass},
		{"W6 ", "2.70 [2.70–2.70]", "1 (< 5)", miss},
		// 2 500 pods/s ÷ 3 000 creates/s = 0.83 ≥ 0.8.
		{"W7 in-process", "0.83", "2 (< 5) ÷ 5", pass},
		{"W7 separate", "—", "0", notRun},
	} {
		r := rowFor(t, rows, tc.prefix)
		if r.measured != tc.measured || r.runs != tc.runs || r.verdict != tc.verdict {
			t.Errorf("%s: got %q, runs %q, %s; want %q, runs %q, %s", r.workload, r.measured, r.runs, r.verdict, tc.measured, tc.runs, tc.verdict)
		}
	}
	w5 := rowFor(t, rows, "W5 ")
	if !strings.Contains(w5.beside, "raw etcd sequential put p99 1.36 [0.82–1.48] ms") {
		t.Errorf("W5 row does not show etcd's put p99 beside it: %q", w5.beside)
	}
	if w7 := rowFor(t, rows, "W7 separate"); w7.beside != "missing: "+w7SeparateProcesses {
		t.Errorf("W7 separate row does not name what is missing: %q", w7.beside)
	}
}

func TestNothingRunIsNeverPass(t *testing.T) {
	rows := targetRows(results{})
	if len(rows) != 7 {
		t.Fatalf("got %d rows, want 7", len(rows))
	}
	for _, r := range rows {
		if r.verdict != notRun {
			t.Errorf("%s: %s with no benchmark output, want %q", r.workload, r.verdict, notRun)
		}
	}
}

func TestRunPrintsTheTableFromFiles(t *testing.T) {
	dir := t.TempDir()
	// Two files without a final newline: the first's last line must not
	// swallow the second's first.
	first, second, _ := strings.Cut(sampleOutput, "BenchmarkW6Deployment1000-2")
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	if err := os.WriteFile(a, []byte(strings.TrimSuffix(first, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("BenchmarkW6Deployment1000-2"+second), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{a, b}, nil, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| W5 create → ADDED on an open watch, p99 ≤ 2 ms | 1.97 [1.05–2.67] | 5 |",
		"| W6 1 000-replica Deployment → Running ≤ 2 s | 2.70 [2.70–2.70] | 1 (< 5) |",
		"| not run |",
		"W2 per process, MiB: apiserver 40.2 [39.0–41.0]; scheduler 19.8 [19.0–20.0]",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := run([]string{filepath.Join(dir, "missing.txt")}, nil, &out); err == nil {
		t.Error("a missing file gave no error")
	}
}
