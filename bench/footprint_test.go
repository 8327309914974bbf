package bench

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/cluster"
	"kplane/pkg/procstat"
	"kplane/test/framework"
)

// w2Idle is how long W2's cluster sits idle before its memory is read:
// long enough for start-up garbage to be collected and for every informer,
// lease and status loop to have settled into its steady state.
const w2Idle = 60 * time.Second

// W2: the resident memory of a default `ctl up -d` cluster after 60 s
// idle. The cluster is what a user gets: the binaries of bin/ (as `make
// build` links them; `make bench` builds first), a background supervisor,
// the default nodes and components. Every process's RSS is read from /proc
// (procstat) by the PIDs cluster.json records, plus the supervisor's.
//
// MiB-w2 is the set issue 18's target of 90 MiB was set for (the apiserver
// with its embedded etcd, the controller-manager, the scheduler, every
// kubelet and the supervisor); MiB-all adds the components that came later
// (dns, kube-proxy per node, cloud-controller-manager, metrics-server);
// MiB-<component> is each process. RSS counts the pages of a binary once
// per process that maps it, so three kubelets count the kubelet's code three
// times, as `ps` and `ctl status` do; the log splits each process into
// anon (heap, stacks, runtime) and file (mapped binary pages).
func BenchmarkW2IdleFootprint(b *testing.B) {
	bin := filepath.Join(framework.RepoRoot(b), "bin")
	if !framework.HasBinary(bin, "ctl") {
		b.Fatalf("W2 measures the binaries of %s as `make build` links them; run `make build` first", bin)
	}
	totals := map[string]float64{}
	for i := 0; i < b.N; i++ {
		c := framework.StartCluster(b, func(o *cluster.Options) { o.BinDir, o.Detach = bin, true })
		time.Sleep(w2Idle)
		for name, mib := range idleFootprint(b, c.Dir) {
			totals[name] += mib
		}
		if err := c.Stop(); err != nil {
			b.Fatalf("ctl down: %v", err)
		}
	}
	for name, mib := range totals {
		b.ReportMetric(mib/float64(b.N), "MiB-"+name)
	}
}

// idleFootprint reads the RSS of the supervisor and every component of the
// cluster in dataDir, logs each process's anon/file split, and returns MiB
// by component name plus the sums "w2" and "all".
func idleFootprint(b *testing.B, dataDir string) map[string]float64 {
	b.Helper()
	state, err := cluster.ReadState(dataDir)
	if err != nil {
		b.Fatal(err)
	}
	processes := map[string]int{"supervisor": state.Supervisor.PID}
	for name, rec := range state.Components {
		processes[name] = rec.PID
	}
	names := slices.Sorted(maps.Keys(processes))
	mib := map[string]float64{}
	var report strings.Builder
	for _, name := range names {
		m, err := procstat.ReadMemory(processes[name])
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		rss := procstat.MiB(m.RSS)
		mib[name] = rss
		mib["all"] += rss
		if inW2Set(name) {
			mib["w2"] += rss
		}
		report.WriteString(strings.Join([]string{name,
			formatMiB(rss) + " RSS =", formatMiB(procstat.MiB(m.Anon)) + " anon +",
			formatMiB(procstat.MiB(m.File)) + " file +", formatMiB(procstat.MiB(m.Shmem)) + " shmem"}, " ") + "\n")
	}
	b.Logf("after %s idle: w2 set %s, all %d processes %s\n%s", w2Idle,
		formatMiB(mib["w2"]), len(names), formatMiB(mib["all"]), report.String())
	return mib
}

// inW2Set reports whether a process belongs to the set W2's 90 MiB target
// was set for: the apiserver (with etcd), controller-manager, scheduler,
// the kubelets and ctl's supervisor.
func inW2Set(name string) bool {
	switch name {
	case "supervisor", cluster.APIServerComponent, cluster.ControllerManagerComponent, cluster.SchedulerComponent:
		return true
	}
	return strings.HasPrefix(name, "kubelet-")
}

// formatMiB renders mebibytes with one decimal.
func formatMiB(mib float64) string {
	return fmt.Sprintf("%.1f MiB", mib)
}
