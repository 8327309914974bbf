//go:build scale

package scale

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// scaleCluster is a running scale cluster: the `ctl up` control plane with
// no worker node of its own, the hollow kubelet processes, an admin client,
// and the PID of every process by component name.
type scaleCluster struct {
	*framework.LocalCluster
	client *client.Client
	// pids maps a component (apiserver, controller-manager, scheduler,
	// kubelet-control-plane, hollow-kubelet-1 …) to its process.
	pids map[string]int
	// nodeNames are the hollow nodes, in order.
	nodeNames []string
	// binDir holds the binaries the cluster runs.
	binDir string
}

// startScaleCluster starts a `ctl up` cluster from bin/ with only its
// control-plane node and every debug journal off (as W6 measures), then
// sz.kubelets kubelet processes of sz.nodes/sz.kubelets hollow nodes each,
// every node of the kubelet's default size (4 CPUs, 8 GiB, 110 pods), and
// waits until every hollow node is Ready. Each kubelet process has its own
// node-name prefix and its own range of /24 pod CIDRs (10.64.0.0/16 for the
// first, 10.65.0.0/16 for the second …), and the admin's credentials, as
// kubemark's hollow nodes share one client. Everything stops when the test
// ends: the kubelets by their PIDs, the cluster through its supervisor,
// and the data dir is removed with t.TempDir.
func startScaleCluster(t *testing.T, sz size) *scaleCluster {
	t.Helper()
	bin := framework.BuildBinaries(t)
	lc := framework.StartCluster(t, func(o *cluster.Options) {
		o.Nodes, o.DebugRingSize = 0, 0
	})
	cfg, err := client.ConfigFromKubeconfig(lc.KubeconfigPath(), "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.Timeout = 5 * time.Minute // a LIST of 100 000 pods is hundreds of MB
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	sc := &scaleCluster{LocalCluster: lc, client: c, pids: map[string]int{}, binDir: bin}
	if state, err := cluster.ReadState(lc.Dir); err == nil {
		for name, p := range state.Components {
			sc.pids[name] = p.PID
		}
	}
	perProcess := (sz.nodes + sz.kubelets - 1) / sz.kubelets
	for k := range sz.kubelets {
		count := min(perProcess, sz.nodes-k*perProcess)
		prefix := fmt.Sprintf("hollow-%d-", k+1)
		name := fmt.Sprintf("hollow-kubelet-%d", k+1)
		sc.pids[name] = startHollowKubelet(t, bin, lc, name, prefix, count, fmt.Sprintf("10.%d.0.0/24", 64+k))
		for i := 1; i <= count; i++ {
			sc.nodeNames = append(sc.nodeNames, fmt.Sprintf("%s%d", prefix, i))
		}
	}
	waitNodesReady(t, c, len(sc.nodeNames), 10*time.Minute)
	return sc
}

// startHollowKubelet starts one kubelet process of count hollow nodes
// (bin/kubelet, or the binary $KPLANE_SCALE_KUBELET names) and returns its
// PID; its output goes to a log file in the data dir, whose
// end is logged if the test fails. It is killed by that PID when the test
// ends.
func startHollowKubelet(t *testing.T, bin string, lc *framework.LocalCluster, name, prefix string, count int, podCIDR string) int {
	t.Helper()
	logPath := filepath.Join(lc.Dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	kubelet := filepath.Join(bin, "kubelet")
	if other := os.Getenv("KPLANE_SCALE_KUBELET"); other != "" {
		kubelet = other // another build of the kubelet, to compare
	}
	cmd := exec.Command(kubelet, "--kubeconfig", lc.KubeconfigPath(),
		"--node-count", fmt.Sprint(count), "--node-name-prefix", prefix, "--pod-cidr", podCIDR)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	framework.StartProcess(t, name, cmd, func() {
		_ = logFile.Close()
		if t.Failed() {
			t.Logf("%s: the end of its log:\n%s", name, tail(logPath, 4000))
		}
	})
	return cmd.Process.Pid
}

// waitNodesReady polls until want nodes other than the control plane's are
// Ready, and fails after timeout saying how many were.
func waitNodesReady(t *testing.T, c *client.Client, want int, timeout time.Duration) {
	t.Helper()
	start := time.Now()
	framework.WaitHollowNodesReady(t, c, want, timeout)
	t.Logf("%d hollow nodes Ready %.1fs after the kubelets started", want, time.Since(start).Seconds())
}

// tail returns the last n bytes of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(b[max(0, len(b)-n):])
}
