package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// disruptionManifest is a Deployment of 3 pods and a budget that keeps 2
// of them available.
const disruptionManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - {name: web, image: nginx}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: 2
  selector:
    matchLabels: {app: web}
`

// drainTimeout bounds each drain: three evictions, two of them waiting
// for a replacement to be Ready elsewhere (a 5 s retry each time).
const drainTimeout = "120s"

// TestDrainRespectsPodDisruptionBudget is issue 15's "Done when" 4 with
// the real kubectl, then the same with ctl: a budget minAvailable 2 over
// the 3 pods of a Deployment, all on the node being drained. `kubectl get
// pdb` shows ALLOWED DISRUPTIONS 1; the drain evicts one pod, is refused
// (429) for the others and says it will retry after 5s, and completes once
// the replacements are Ready on the other node, every pod "evicted".
func TestDrainRespectsPodDisruptionBudget(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	bins := requireControllerManager(t)

	// All three pods on node1: node2 is cordoned while they are placed.
	c.MustKubectl(t, "cordon", "node2")
	applyYAML(t, c, disruptionManifest)
	waitRunningPods(t, c, "default", "app=web", 3)
	c.MustKubectl(t, "uncordon", "node2")

	pdbRow := regexp.MustCompile(`(?m)^web\s+2\s+N/A\s+1\s+\S+$`)
	table := waitKubectl(t, c, controllersTimeout, pdbRow.MatchString, "get", "pdb", "web")
	if header := strings.Join(strings.Fields(strings.SplitN(table, "\n", 2)[0]), " "); header != "NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE" {
		t.Errorf("kubectl get pdb header = %q", header)
	}

	run := func(tool string, args ...string) (stdout, stderr string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		var cmd *exec.Cmd
		if tool == "ctl" {
			cmd = exec.CommandContext(ctx, filepath.Join(bins, "ctl"), append([]string{"--kubeconfig", c.KubeconfigPath()}, args...)...)
		} else {
			cmd = exec.CommandContext(ctx, framework.RequireKubectl(t), append([]string{"--kubeconfig", c.KubeconfigPath(), "--cache-dir", filepath.Join(c.Home, "cache")}, args...)...)
		}
		cmd.Env = append(os.Environ(), "KUBECONFIG=", "HOME="+c.Home)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", tool, strings.Join(args, " "), err, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}
	// check asserts what a drain of node printed: every pod of the node
	// asked for and evicted, at least one 429 refusal with kubectl's
	// words, and the node drained.
	check := func(tool, node, stdout, stderr string) {
		t.Helper()
		evicting := regexp.MustCompile(`(?m)^evicting pod default/(web-\S+)$`).FindAllStringSubmatch(stdout, -1)
		evicted := regexp.MustCompile(`(?m)^pod/(web-\S+) evicted$`).FindAllStringSubmatch(stdout, -1)
		pods := map[string]bool{}
		for _, m := range evicting {
			pods[m[1]] = true
		}
		if len(pods) != 3 || len(evicted) != 3 || len(evicting) <= 3 {
			t.Errorf("%s drain %s: want 3 pods evicted, some asked for more than once:\n%s", tool, node, stdout)
		}
		refusal := regexp.MustCompile(`(?m)^error when evicting pods/"web-\S+" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\.$`)
		if !refusal.MatchString(stderr) {
			t.Errorf("%s drain %s: no 429 refusal in stderr:\n%s", tool, node, stderr)
		}
		if !strings.HasSuffix(stdout, "node/"+node+" drained\n") {
			t.Errorf("%s drain %s: does not end with node/%s drained:\n%s", tool, node, node, stdout)
		}
		// The replacements run on the other node.
		if out := c.MustKubectl(t, "get", "pods", "-l", "app=web", "--field-selector", "spec.nodeName="+node, "-o", "name"); strings.TrimSpace(out) != "" {
			t.Errorf("%s drain %s: pods left on the node: %s", tool, node, out)
		}
		waitRunningPods(t, c, "default", "app=web", 3)
		waitKubectl(t, c, controllersTimeout, pdbRow.MatchString, "get", "pdb", "web")
	}

	stdout, stderr := run("kubectl", "drain", "node1", "--ignore-daemonsets", "--grace-period=1", "--timeout="+drainTimeout)
	check("kubectl", "node1", stdout, stderr)

	// The same flow with ctl, back the other way.
	c.MustKubectl(t, "uncordon", "node1")
	stdout, stderr = run("ctl", "drain", "node2", "--ignore-daemonsets", "--grace-period=1", "--timeout="+drainTimeout)
	check("ctl", "node2", stdout, stderr)

	// `ctl why` shows the controller's arithmetic.
	want := "budget web (minAvailable 2) selects 3 pods: 3 healthy, 2 desired, 3 expected → disruptionsAllowed 1"
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		out := whyCtl(t, c, "pdb/web")
		return strings.Contains(out, want), "ctl why pdb/web printed:\n" + out
	})
}
