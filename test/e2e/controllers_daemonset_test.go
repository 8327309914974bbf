package e2e

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"kplane/test/framework"
)

// TestControllersDaemonSetRunsOnEveryWorker is the seed's DaemonSet lesson
// (examples/daemonset.yaml), as a user sees it with kubectl:
//   - one Running nginx-ds-<5 chars> pod on each worker node, none on the
//     control-plane node, whose NoSchedule taint the pods do not tolerate;
//   - `kubectl get ds` shows DESIRED CURRENT READY UP-TO-DATE AVAILABLE 2;
//   - an image change rolls out, and `kubectl rollout status ds/nginx-ds`
//     reports success once every node runs the new image.
func TestControllersDaemonSetRunsOnEveryWorker(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	nameRE := regexp.MustCompile(`^nginx-ds-` + podNameSuffix + `$`)
	dsRow := regexp.MustCompile(`(?m)^nginx-ds\s+2\s+2\s+2\s+2\s+2\s+<none>\s+\S+$`)

	c.MustKubectl(t, "apply", "-f", examplePath(t, "daemonset.yaml"))
	pods := waitRunningPods(t, c, "default", "app=nginx", 2)
	if bad := notMatching(nameRE, pods); len(bad) > 0 {
		t.Errorf("pod names %v do not match nginx-ds-<5 random chars>", bad)
	}
	nodes := podNodes(t, c)
	if !slices.Equal(nodes, []string{"node1", "node2"}) {
		t.Errorf("pods run on %v, want one on each of node1 and node2 (none on the tainted control-plane)", nodes)
	}
	waitKubectl(t, c, controllersTimeout, dsRow.MatchString, "get", "ds", "nginx-ds", "--no-headers")

	// Roll out a new image; rollout status waits for it and succeeds.
	c.MustKubectl(t, "set", "image", "ds/nginx-ds", "nginx=nginx:1.28.0")
	out := c.MustKubectl(t, "rollout", "status", "ds/nginx-ds", "--timeout=50s")
	if !strings.Contains(out, "successfully rolled out") {
		t.Errorf("kubectl rollout status printed %q, want it to report success", out)
	}
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		images := strings.Fields(out)
		return len(images) == 2 && images[0] == "nginx:1.28.0" && images[1] == "nginx:1.28.0"
	}, "get", "pods", "-l", "app=nginx", "--field-selector=status.phase=Running", "-o", "jsonpath={.items[*].spec.containers[0].image}")
	if got := podNodes(t, c); !slices.Equal(got, []string{"node1", "node2"}) {
		t.Errorf("after the rollout pods run on %v, want node1 and node2", got)
	}
	waitKubectl(t, c, controllersTimeout, dsRow.MatchString, "get", "ds", "nginx-ds", "--no-headers")
}

// podNodes returns the sorted nodes the app=nginx pods are bound to.
func podNodes(t *testing.T, c *framework.LocalCluster) []string {
	t.Helper()
	nodes := strings.Fields(c.MustKubectl(t, "get", "pods", "-l", "app=nginx", "-o", "jsonpath={.items[*].spec.nodeName}"))
	slices.Sort(nodes)
	return nodes
}
