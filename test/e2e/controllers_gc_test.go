package e2e

import (
	"fmt"
	"strings"
	"testing"

	"kplane/test/framework"
)

// holdFinalizer is a finalizer only this test removes: an object carrying
// it stays (terminating) after its deletion until the test lets it go,
// which makes the in-between states of a cascade observable.
const holdFinalizer = "e2e.kplane.io/hold"

// simpleDeploymentYAML is a 3-replica Deployment of pods labelled app=name.
func simpleDeploymentYAML(name string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
spec:
  replicas: 3
  selector:
    matchLabels:
      app: %[1]s
  template:
    metadata:
      labels:
        app: %[1]s
    spec:
      containers:
      - name: web
        image: nginx:1.27.0
`, name)
}

// rsOf returns the names of the ReplicaSets labelled app=name.
func rsOf(t *testing.T, c *framework.LocalCluster, name string) []string {
	t.Helper()
	return strings.Fields(c.MustKubectl(t, "get", "rs", "-l", "app="+name, "-o", "jsonpath={.items[*].metadata.name}"))
}

// TestControllersGarbageCollectorCascades deletes Deployments the three
// ways kubectl offers and checks what remains:
//   - `kubectl delete deployment` (background): its ReplicaSet and pods go;
//   - `--cascade=orphan`: the ReplicaSet and its pods stay, and the
//     ReplicaSet no longer names the Deployment as its owner;
//   - `--cascade=foreground`: right after, the Deployment still exists with
//     a deletionTimestamp and the foregroundDeletion finalizer, and it
//     stays while a dependent remains (one pod held by a finalizer of the
//     test's own); once that is removed, everything is gone.
func TestControllersGarbageCollectorCascades(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	for _, name := range []string{"bg", "orphan", "fg"} {
		applyYAML(t, c, simpleDeploymentYAML(name))
	}
	for _, name := range []string{"bg", "orphan", "fg"} {
		waitRunningPods(t, c, "default", "app="+name, 3)
	}

	// Background (kubectl's default): the deployment goes at once, its
	// dependents right after.
	c.MustKubectl(t, "delete", "deployment", "bg")
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return strings.TrimSpace(out) == "" },
		"get", "rs,pods", "-l", "app=bg", "-o", "name")

	// Orphan: the ReplicaSet and its pods survive, the RS released.
	rs := rsOf(t, c, "orphan")
	if len(rs) != 1 {
		t.Fatalf("deployment orphan has ReplicaSets %v, want one", rs)
	}
	c.MustKubectl(t, "delete", "deployment", "orphan", "--cascade=orphan")
	if r := c.Kubectl(t, "", "get", "deployment", "orphan"); r.Err == nil || !strings.Contains(r.Stderr, "NotFound") {
		t.Errorf("deployment orphan still there after delete --cascade=orphan: %v %s%s", r.Err, r.Stdout, r.Stderr)
	}
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == "" },
		"get", "rs", rs[0], "-o", "jsonpath={.metadata.ownerReferences}")
	pods := waitRunningPods(t, c, "default", "app=orphan", 3)
	for _, p := range pods {
		owner := c.MustKubectl(t, "get", "pod", p, "-o", "jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}")
		if owner != "ReplicaSet/"+rs[0] {
			t.Errorf("orphaned pod %s is owned by %q, want ReplicaSet/%s", p, owner, rs[0])
		}
	}
	if got := rsOf(t, c, "orphan"); len(got) != 1 || got[0] != rs[0] {
		t.Errorf("after orphaning, the ReplicaSets are %v, want [%s]", got, rs[0])
	}

	// Foreground: hold one pod with a finalizer so the cascade cannot
	// finish, then let it go.
	fgRS := rsOf(t, c, "fg")
	fgPods := waitRunningPods(t, c, "default", "app=fg", 3)
	held := fgPods[0]
	c.MustKubectl(t, "patch", "pod", held, "--type=merge", "-p", `{"metadata":{"finalizers":["`+holdFinalizer+`"]}}`)
	c.MustKubectl(t, "delete", "deployment", "fg", "--cascade=foreground", "--wait=false")
	meta := c.MustKubectl(t, "get", "deployment", "fg", "-o", "jsonpath={.metadata.deletionTimestamp} {.metadata.finalizers}")
	if !strings.Contains(meta, "foregroundDeletion") || strings.HasPrefix(meta, " ") {
		t.Errorf("right after delete --cascade=foreground the deployment's deletionTimestamp and finalizers are %q, want a timestamp and foregroundDeletion", meta)
	}
	// The other pods go; the held one stays terminating, and so does the
	// chain above it.
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return strings.TrimSpace(out) == "pod/"+held },
		"get", "pods", "-l", "app=fg", "-o", "name")
	if ts := c.MustKubectl(t, "get", "pod", held, "-o", "jsonpath={.metadata.deletionTimestamp}"); ts == "" {
		t.Errorf("the held pod %s was not deleted by the cascade (no deletionTimestamp)", held)
	}
	meta = c.MustKubectl(t, "get", "deployment", "fg", "-o", "jsonpath={.metadata.deletionTimestamp} {.metadata.finalizers}")
	if !strings.Contains(meta, "foregroundDeletion") {
		t.Errorf("while pod %s remains, deployment fg shows deletionTimestamp/finalizers %q, want it waiting with foregroundDeletion", held, meta)
	}
	if len(fgRS) == 1 {
		if r := c.Kubectl(t, "", "get", "rs", fgRS[0], "-o", "jsonpath={.metadata.deletionTimestamp} {.metadata.finalizers}"); r.Err != nil || !strings.Contains(r.Stdout, "foregroundDeletion") {
			t.Errorf("while pod %s remains, ReplicaSet %s should wait in foreground deletion; kubectl get rs said: %v %s%s", held, fgRS[0], r.Err, r.Stdout, r.Stderr)
		}
	}
	c.MustKubectl(t, "patch", "pod", held, "--type=json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		r := c.Kubectl(t, "", "get", "deployment", "fg")
		return r.Err != nil && strings.Contains(r.Stderr, "NotFound"), fmt.Sprintf("kubectl get deployment fg: %v %s%s", r.Err, r.Stdout, r.Stderr)
	})
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return strings.TrimSpace(out) == "" },
		"get", "rs,pods", "-l", "app=fg", "-o", "name")
}
