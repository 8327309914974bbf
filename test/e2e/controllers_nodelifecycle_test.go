package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// nodeGracePeriod is the test controller-manager's
// --node-monitor-grace-period: short so the test takes a minute, but
// twice the kubelets' 10 s Lease renew interval (which `ctl up` does not
// let a test change), so the nodes that keep running never miss it.
const nodeGracePeriod = 20 * time.Second

// nodeLifecycleTimeout bounds the waits for a node to be noticed: the
// grace period, plus up to one renew interval since the last renewal, plus
// the controller's 5 s monitor period, plus slack for a loaded machine.
const nodeLifecycleTimeout = nodeGracePeriod + 10*time.Second + 5*time.Second + 30*time.Second

// startGraceManager runs bin/controller-manager with every controller and
// a short node grace period against the cluster (started without a
// controller-manager of its own), and stops it by PID when the test ends.
func startGraceManager(t *testing.T, bin, kubeconfig string) *framework.SyncBuffer {
	t.Helper()
	out := &framework.SyncBuffer{}
	cmd := exec.Command(filepath.Join(bin, "controller-manager"),
		"--kubeconfig", kubeconfig,
		"--bind-address", "127.0.0.1:0",
		"--node-monitor-grace-period", nodeGracePeriod.String())
	cmd.Stdout, cmd.Stderr = out, out
	framework.StartProcess(t, "controller-manager", cmd, func() {
		if t.Failed() {
			t.Logf("controller-manager (pid %d) output:\n%s", cmd.Process.Pid, out.String())
		}
	})
	return out
}

// kubeletPID returns the PID of node's kubelet from the cluster's
// cluster.json, checking that the recorded process is still that kubelet.
func kubeletPID(t *testing.T, c *framework.LocalCluster, node string) int {
	t.Helper()
	state, err := cluster.ReadState(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, ok := state.Components[cluster.KubeletComponent(node)]
	if !ok || !rec.Running() {
		t.Fatalf("kubelet of %s not found running in cluster.json: %+v", node, rec)
	}
	return rec.PID
}

// nodeState is node's Ready condition ("Unknown/NodeStatusUnknown") and
// taints ("key:Effect key:Effect"), as kubectl prints them.
func nodeState(t *testing.T, c *framework.LocalCluster, node string) (ready, taints string) {
	t.Helper()
	out := c.MustKubectl(t, "get", "node", node, "-o",
		`jsonpath={.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason}|{range .spec.taints[*]}{.key}:{.effect} {end}`)
	ready, taints, _ = strings.Cut(out, "|")
	return ready, strings.TrimSpace(taints)
}

const nodeLifecyclePods = `apiVersion: v1
kind: Pod
metadata:
  name: brief
  labels: {app: nlc}
spec:
  nodeName: node1
  tolerations:
  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 5}
  containers:
  - {name: app, image: nginx}
---
apiVersion: v1
kind: Pod
metadata:
  name: patient
  labels: {app: nlc}
spec:
  nodeName: node1
  containers:
  - {name: app, image: nginx}
`

// TestControllersNodeLifecycle freezes a real kubelet and watches the
// cluster react, the way a user would with kubectl:
//   - every pod carries the default not-ready/unreachable tolerations for
//     300 s (DefaultTolerationSeconds admission);
//   - SIGSTOP node1's kubelet: after the grace period node1 is NotReady,
//     Ready=Unknown (NodeStatusUnknown), tainted
//     node.kubernetes.io/unreachable NoSchedule and NoExecute, with a
//     NodeNotReady event; its pods turn not Ready;
//   - the pod that tolerates unreachable for 5 s is deleted about 5 s after
//     the taint (it stays Terminating: its kubelet is frozen), with a
//     TaintManagerEviction event; the pod with the default 300 s is not;
//   - node2 stays Ready throughout;
//   - SIGCONT: node1 is Ready again and untainted, the evicted pod is gone
//     and the other is Ready again.
func TestControllersNodeLifecycle(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	bin := requireControllerManager(t)
	c := framework.StartCluster(t, func(o *cluster.Options) {
		o.Nodes = 2
		o.BinDir = binariesWithoutControllerManager(t, bin)
	})
	startGraceManager(t, bin, c.KubeconfigPath())

	applyYAML(t, c, nodeLifecyclePods)
	waitRunningPods(t, c, "default", "app=nlc", 2)
	tolerations := c.MustKubectl(t, "get", "pod", "patient", "-o", `jsonpath={range .spec.tolerations[*]}{.key}:{.effect}:{.tolerationSeconds} {end}`)
	if strings.TrimSpace(tolerations) != "node.kubernetes.io/not-ready:NoExecute:300 node.kubernetes.io/unreachable:NoExecute:300" {
		t.Fatalf("patient's tolerations = %q, want the two defaults for 300 s", tolerations)
	}
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		ready, taints := nodeState(t, c, "node1")
		return ready == "True/KubeletReady" && taints == "", fmt.Sprintf("node1 Ready %s, taints %q", ready, taints)
	})

	pid := kubeletPID(t, c, "node1")
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) }) // never leave it frozen
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP kubelet-node1 (pid %d): %v", pid, err)
	}
	stoppedAt := time.Now()

	waitKubectl(t, c, nodeLifecycleTimeout, func(out string) bool {
		f := strings.Fields(out)
		return len(f) >= 2 && f[1] == "NotReady"
	}, "get", "node", "node1", "--no-headers")
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		ready, taints := nodeState(t, c, "node1")
		return ready == "Unknown/NodeStatusUnknown" &&
				taints == "node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute",
			fmt.Sprintf("node1 Ready %s, taints %q", ready, taints)
	})
	if noticed := time.Since(stoppedAt); noticed < nodeGracePeriod-10*time.Second {
		t.Errorf("node1 was marked NotReady %v after its kubelet stopped, before the %v grace period could pass", noticed, nodeGracePeriod)
	}
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		out = strings.Join(strings.Fields(out), " ")
		return strings.Contains(out, "node-controller Node node1 Node node1 status is now: NodeNotReady") &&
			strings.Contains(out, "node-controller Pod patient Node is not ready")
	}, "get", "events", "--field-selector", "reason=NodeNotReady", "-o",
		`custom-columns=FROM:.source.component,KIND:.involvedObject.kind,NAME:.involvedObject.name,MESSAGE:.message`, "--no-headers")
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return strings.TrimSpace(out) == "False" },
		"get", "pod", "patient", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)

	// brief tolerates unreachable for 5 s: its deletion is requested about
	// 5 s after the taint was added (deletionTimestamp is the request time
	// plus the pod's 30 s grace period).
	deletion := waitKubectl(t, c, controllersTimeout, func(out string) bool { return strings.Contains(out, "|") && !strings.HasPrefix(out, "|") },
		"get", "pod", "brief", "-o", `jsonpath={.metadata.deletionTimestamp}|{.metadata.deletionGracePeriodSeconds}`)
	taintAdded := c.MustKubectl(t, "get", "node", "node1", "-o",
		`jsonpath={.spec.taints[?(@.effect=="NoExecute")].timeAdded}`)
	requested := parseDeletionRequest(t, deletion)
	added, err := time.Parse(time.RFC3339, strings.TrimSpace(taintAdded))
	if err != nil {
		t.Fatalf("taint timeAdded %q: %v", taintAdded, err)
	}
	if after := requested.Sub(added); after < 4*time.Second || after > 12*time.Second {
		t.Errorf("brief's deletion was requested %v after the unreachable taint was added, want about its 5 s tolerationSeconds", after)
	}
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return strings.Contains(strings.Join(strings.Fields(out), " "), "taint-eviction-controller Marking for deletion Pod default/brief")
	}, "get", "events", "--field-selector", "reason=TaintManagerEviction,involvedObject.name=brief", "-o",
		`custom-columns=FROM:.source.component,MSG:.message`, "--no-headers")

	if out := c.MustKubectl(t, "get", "pod", "patient", "-o", "jsonpath={.metadata.deletionTimestamp}"); out != "" {
		t.Errorf("patient (default 300 s toleration) was deleted: deletionTimestamp %s", out)
	}
	if ready, taints := nodeState(t, c, "node2"); ready != "True/KubeletReady" || taints != "" {
		t.Errorf("node2, whose kubelet runs, is Ready %s with taints %q", ready, taints)
	}

	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatalf("SIGCONT kubelet-node1 (pid %d): %v", pid, err)
	}
	framework.Eventually(t, nodeLifecycleTimeout, func() (bool, string) {
		ready, taints := nodeState(t, c, "node1")
		return ready == "True/KubeletReady" && taints == "", fmt.Sprintf("node1 Ready %s, taints %q", ready, taints)
	})
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		pods := podTable(out)
		_, briefLeft := pods["brief"]
		return !briefLeft && pods["patient"] == "Running"
	}, "get", "pods", "-l", "app=nlc", "--no-headers")
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return strings.TrimSpace(out) == "True" },
		"get", "pod", "patient", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
}

// parseDeletionRequest turns "deletionTimestamp|gracePeriodSeconds" into the
// time the deletion was requested.
func parseDeletionRequest(t *testing.T, s string) time.Time {
	t.Helper()
	stamp, grace, _ := strings.Cut(strings.TrimSpace(s), "|")
	at, err := time.Parse(time.RFC3339, stamp)
	if err != nil {
		t.Fatalf("deletionTimestamp %q: %v", stamp, err)
	}
	var seconds int
	if _, err := fmt.Sscan(grace, &seconds); err != nil {
		t.Fatalf("deletionGracePeriodSeconds %q: %v", grace, err)
	}
	return at.Add(-time.Duration(seconds) * time.Second)
}
