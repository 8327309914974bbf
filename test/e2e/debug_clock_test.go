package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// Issue 13, done-when 5: on a cluster started with --virtual-clock, a
// paused kubelet's node goes Unknown and is tainted within a few wall-clock
// seconds of `ctl time advance 60s`, and its pods are evicted and replaced
// on another node after `ctl time advance 300s` — the node-monitor grace
// period (50 s) and the pods' default tolerationSeconds (300 s) pass on the
// cluster clock, not the wall clock.

// clockTimeout bounds each wait after an advance: the advance itself (a
// tenth of a second per 5 s step), then the controllers' reaction (one
// monitor period, some writes), with slack for a loaded machine. Without
// the virtual clock the same waits would take 50 s and 300 s at least.
const clockTimeout = 20 * time.Second

func TestVirtualClockPausedKubeletsNodeGoesUnknownAndItsPodsMove(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	bin := requireControllerManager(t)
	began := time.Now()
	c := framework.StartCluster(t, func(o *cluster.Options) { o.VirtualClock = true })
	stage := func(what string) { t.Logf("%s after %v", what, time.Since(began).Round(time.Millisecond)) }
	stage("cluster ready")
	ctl := func(args ...string) string {
		t.Helper()
		code, out := runCtl(t, bin, append(args, "--kubeconfig", c.KubeconfigPath())...)
		if code != 0 {
			t.Fatalf("ctl %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}

	// Two pods of a Deployment on node1: node2 is cordoned while they are
	// scheduled, and uncordoned for their replacements.
	c.MustKubectl(t, "cordon", "node2")
	c.MustKubectl(t, "create", "deployment", "web", "--image=nginx", "--replicas=2")
	originals := waitRunningPods(t, c, "default", "app=web", 2)
	cl := c.Client(t)
	for _, pod := range listPods(t, cl, "default", "app=web") {
		if pod.Spec.NodeName != "node1" {
			t.Fatalf("pod %s runs on %q, want node1 (node2 is cordoned)", pod.Name, pod.Spec.NodeName)
		}
	}
	c.MustKubectl(t, "uncordon", "node2")
	stage("two pods running on node1")

	out := ctl("fault", "pause-kubelet", "node1", "--data-dir", c.Dir)
	if !strings.Contains(out, "fault injected: node1's kubelet stopped its heartbeat.") {
		t.Fatalf("ctl fault pause-kubelet node1 printed:\n%s", out)
	}

	// 60 s of cluster time: past the 50 s grace period for node1 only.
	// The running kubelets renew their Leases along the way.
	ctl("time", "advance", "60s")
	stage("advanced 60s")
	framework.Eventually(t, clockTimeout, func() (bool, string) {
		ready, taints := nodeState(t, c, "node1")
		return ready == "Unknown/NodeStatusUnknown" && strings.Contains(taints, "node.kubernetes.io/unreachable:NoExecute"),
			fmt.Sprintf("node1 Ready %s, taints %q", ready, taints)
	})
	for _, node := range []string{cluster.ControlPlaneNodeName, "node2"} {
		if ready, taints := nodeState(t, c, node); ready != "True/KubeletReady" || strings.Contains(taints, "unreachable") {
			t.Fatalf("%s is Ready %s with taints %q after the advance: a running kubelet must not miss the grace period", node, ready, taints)
		}
	}
	stage("node1 Unknown and tainted")
	if out := ctl("time"); !strings.Contains(out, "(virtual, 1m0s ahead of the wall clock)") {
		t.Fatalf("ctl time after advancing 60s:\n%s", out)
	}

	// 300 s more: the pods' tolerationSeconds for unreachable run out,
	// they are evicted, and the Deployment's replacements run on node2.
	ctl("time", "advance", "300s")
	stage("advanced 300s")
	framework.Eventually(t, clockTimeout, func() (bool, string) {
		pods := listPods(t, cl, "default", "app=web")
		var replacements []string
		evicted := 0
		for _, pod := range pods {
			switch {
			case slices.Contains(originals, pod.Name):
				if pod.DeletionTimestamp != nil {
					evicted++
				}
			case pod.Spec.NodeName == "node2" && pod.Status.Phase == api.PodRunning && pod.DeletionTimestamp == nil:
				replacements = append(replacements, pod.Name)
			}
		}
		evicted += len(originals) - countNamed(pods, originals)
		return evicted == 2 && len(replacements) == 2,
			fmt.Sprintf("%d of the 2 pods on node1 evicted, %d replacements running on node2:\n%s", evicted, len(replacements), describePods(pods))
	})
	stage("pods evicted and replaced on node2")
}

// countNamed counts the pods whose name is in names.
func countNamed(pods []*api.Pod, names []string) int {
	n := 0
	for _, pod := range pods {
		if slices.Contains(names, pod.Name) {
			n++
		}
	}
	return n
}

func TestTimeAdvanceOnAWallClockClusterSaysSo(t *testing.T) {
	t.Parallel()
	bin := framework.BuildBinaries(t)
	c := framework.StartCluster(t, func(o *cluster.Options) { o.Nodes = 0 })
	code, out := runCtl(t, bin, "time", "advance", "60s", "--kubeconfig", c.KubeconfigPath())
	if want := "error: this cluster runs on the wall clock; start it with `ctl up --virtual-clock`\n"; code != 1 || out != want {
		t.Fatalf("ctl time advance 60s on a wall-clock cluster: exit %d, %q; want 1, %q", code, out, want)
	}
}
