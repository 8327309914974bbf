package framework

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/cluster"
)

// StartHollowNodes adds count simulated nodes, named hollow-0…, to the
// cluster lc from one kubelet process (admin credentials: kubemark's hollow
// nodes share one client the same way), with extraArgs appended to its
// flags, and waits until every one is Ready. It returns the process's PID;
// the test's cleanup stops it.
func StartHollowNodes(t testing.TB, lc *LocalCluster, count int, name string, extraArgs ...string) int {
	t.Helper()
	args := append([]string{"--kubeconfig", lc.KubeconfigPath(),
		"--node-count", fmt.Sprint(count), "--node-name-prefix", "hollow-", "--pod-cidr", "10.244.1.0/24"}, extraArgs...)
	kubelet := exec.Command(filepath.Join(BuildBinaries(t), "kubelet"), args...)
	out := &SyncBuffer{}
	kubelet.Stdout, kubelet.Stderr = out, out
	StartProcess(t, name, kubelet, func() {
		if t.Failed() {
			t.Logf("%s output:\n%s", name, out)
		}
	})
	WaitHollowNodesReady(t, lc.Client(t), count, 2*time.Minute)
	return kubelet.Process.Pid
}

// WaitHollowNodesReady polls until want nodes other than the control
// plane's are Ready, and fails after timeout saying how many were.
func WaitHollowNodesReady(t testing.TB, c *client.Client, want int, timeout time.Duration) {
	t.Helper()
	Eventually(t, timeout, func() (bool, string) {
		nodes, err := c.Nodes().List(context.Background(), client.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		ready := 0
		for _, n := range nodes.Items {
			for _, cond := range n.Status.Conditions {
				if cond.Type == api.NodeReady && cond.Status == api.ConditionTrue && n.Name != cluster.ControlPlaneNodeName {
					ready++
				}
			}
		}
		return ready == want, fmt.Sprintf("%d of %d hollow nodes Ready", ready, want)
	})
}
