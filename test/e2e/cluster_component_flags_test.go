package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// TestCtlUpPassesComponentOptions starts a detached cluster as a user
// does, with a verbosity and the informer trace for some components and
// the RealFIFO for all, then creates a pod and reads the components' logs:
// the scheduler logs its binding (verbosity 2 and up) and both traced
// components show the pod popped from a RealFIFO; the components that
// were not named log no trace.
func TestCtlUpPassesComponentOptions(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	bin := framework.BuildBinaries(t)
	dir := t.TempDir()
	ctl := func(args ...string) (int, string) {
		t.Helper()
		return runCtl(t, bin, append(args, "--data-dir", dir)...)
	}
	t.Cleanup(func() { ctl("down") })

	code, out := ctl("up", "-d", "--port", "0", "--nodes", "1",
		"--v", "scheduler=4", "--trace-informers", "scheduler", "--trace-informers", "kubelet-node1", "--informer-fifo", "real")
	if code != 0 {
		t.Fatalf("ctl up -d = %d:\n%s\nsupervisor.log:\n%s", code, out, readFile(t, filepath.Join(dir, "logs", "supervisor.log")))
	}
	state, err := cluster.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if args := strings.Join(state.Components["scheduler"].Args, " "); !strings.HasSuffix(args, " --v=4 --trace-informers --informer-fifo real") {
		t.Errorf("the scheduler was started as %s", args)
	}

	kubeconfig := filepath.Join(dir, "kubeconfig")
	if r := framework.KubectlWith(t, kubeconfig, t.TempDir(), "", "run", "web", "--image=nginx"); r.Err != nil {
		t.Fatalf("kubectl run: %v\n%s", r.Err, r.Stderr)
	}
	logOf := func(component string) string {
		data, _ := os.ReadFile(filepath.Join(dir, "logs", component+".log"))
		return string(data)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("scheduler.log:\n%s\nkubelet-node1.log:\n%s", logOf("scheduler"), logOf("kubelet-node1"))
		}
	})
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		scheduler, node1 := logOf("scheduler"), logOf("kubelet-node1")
		switch {
		case !containsTraceLine(scheduler, `msg="bound pod to node"`, "pod=default/web", "node=node1"):
			return false, "the scheduler has not logged the binding (--v=2 and up) yet"
		case !containsTraceLine(scheduler, "stage=pop", "key=default/web", "fifo=real deltas=1"):
			return false, "no RealFIFO pop of default/web in the scheduler's trace yet"
		case !containsTraceLine(node1, "stage=pop", "key=default/web", "fifo=real deltas=1"):
			return false, "no RealFIFO pop of default/web in kubelet-node1's trace yet"
		}
		return true, ""
	})
	for _, component := range []string{"controller-manager", "kubelet-control-plane"} {
		if log := logOf(component); strings.Contains(log, "stage=pop") {
			t.Errorf("%s was not asked to trace its informers, yet its log has trace lines", component)
		}
	}
}

// containsTraceLine reports whether some line of log has every one of
// parts.
func containsTraceLine(log string, parts ...string) bool {
	for _, line := range strings.Split(log, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}
