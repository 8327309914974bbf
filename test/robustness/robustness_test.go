package robustness

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// TestRobustness runs traffic, watchers and every fault kind against
// bin/etcd and bin/apiserver (`make build` makes them; without them the
// test fails) and requires zero anomalies. By default it is the short
// version `make test` runs (about a minute of traffic);
// KPLANE_ROBUSTNESS_OPERATIONS and KPLANE_ROBUSTNESS_DURATION make it the
// long one (`make robustness`: 100 000 operations), and
// KPLANE_ROBUSTNESS_FAULT_INTERVAL (default 3s) packs the faults closer.
func TestRobustness(t *testing.T) {
	t.Parallel()
	binDir := filepath.Join(framework.RepoRoot(t), "bin")
	cfg := Config{BinDir: binDir, Dir: keptOnFailure(t), Operations: envInt(t, "KPLANE_ROBUSTNESS_OPERATIONS", 1_000_000),
		Duration: envDuration(t, "KPLANE_ROBUSTNESS_DURATION", 45*time.Second),
		Clients:  8, Namespaces: 3, Keys: 10, FaultInterval: envDuration(t, "KPLANE_ROBUSTNESS_FAULT_INTERVAL", 3*time.Second), FaultRounds: 1, LateWatcherInterval: 6 * time.Second, Logf: t.Logf}
	res := runOrFail(t, cfg)
	for _, kind := range AllFaults {
		if res.Faults[kind] == 0 {
			t.Errorf("no %s fault was injected: the run is too short to test them all", kind)
		}
	}
	if len(res.FaultFailures) > 0 {
		t.Errorf("faults went wrong: %v", res.FaultFailures)
	}
	if len(res.Anomalies) > 0 {
		t.Errorf("%d anomalies found (see the report above)", len(res.Anomalies))
	}
}

// TestCheckerCatchesBrokenWatchCache builds the apiserver with the
// kplane_broken_watchcache tag — its watch cache silently skips one live
// event in a hundred — runs a short robustness pass on it, and requires
// the checker to report the gaps: a checker that passes a broken build
// proves nothing.
func TestCheckerCatchesBrokenWatchCache(t *testing.T) {
	t.Parallel()
	root := framework.RepoRoot(t)
	binDir := t.TempDir()
	if _, err := os.Stat(filepath.Join(root, "bin", "etcd")); err != nil {
		t.Fatalf("no bin/etcd (run `make build` first): %v", err)
	}
	build := exec.Command("go", "build", "-tags", "kplane_broken_watchcache", "-o", filepath.Join(binDir, "apiserver"), "./cmd/apiserver")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the broken apiserver: %v\n%s", err, out)
	}
	if err := os.Symlink(filepath.Join(root, "bin", "etcd"), filepath.Join(binDir, "etcd")); err != nil {
		t.Fatal(err)
	}
	cfg := Config{BinDir: binDir, Dir: keptOnFailure(t), Operations: 1_000_000, Duration: 10 * time.Second,
		Clients: 4, Namespaces: 2, Keys: 10, FaultInterval: time.Hour, LateWatcherInterval: time.Hour, Logf: t.Logf}
	res := runOrFail(t, cfg)
	gaps := 0
	for _, a := range res.Anomalies {
		switch a.Kind {
		case WatchGap, WatchShort:
			gaps++
		default:
			t.Errorf("unexpected anomaly from a watch cache that skips events: %v", a)
		}
	}
	if gaps == 0 {
		t.Fatalf("the checker found no gap in the streams of a watch cache that skips events")
	}
}

func runOrFail(t *testing.T, cfg Config) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Duration+3*time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("the robustness run failed: %v (logs in %s)", err, cfg.Dir)
	}
	var report strings.Builder
	res.Report(&report)
	t.Log("\n" + report.String())
	return res
}

// keptOnFailure returns a new directory for a run's data and logs, removed
// when the test passes and kept, for its logs, when it fails.
func keptOnFailure(t *testing.T) string {
	dir, err := os.MkdirTemp("", "kplane-robustness-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the run's data and logs are kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return dir
}

func envInt(t *testing.T, name string, def int64) int64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a positive duration", name, v)
	}
	return d
}
