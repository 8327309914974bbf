package e2e

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/test/framework"
)

// rolloutTimeout bounds `kubectl rollout status`: a 10-replica rollout
// whose pods take startDelay to become Ready needs a few seconds.
const rolloutTimeout = 90 * time.Second

// startDelay keeps each new pod in ContainerCreating (not Ready) for a
// while (the simulated runtime's sim.kplane.io/start-delay), so that a
// rollout takes several observable steps instead of one burst.
const startDelay = "400ms"

// deploymentYAML is a Deployment of replicas pods labelled app=name, one
// container "web" running image, with the given strategy block (indented
// for spec.strategy) and revisionHistoryLimit (0: leave the default).
func deploymentYAML(name string, replicas int, image, strategy string, historyLimit int) string {
	history := ""
	if historyLimit > 0 {
		history = fmt.Sprintf("  revisionHistoryLimit: %d\n", historyLimit)
	}
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
spec:
  replicas: %[2]d
%[5]s  selector:
    matchLabels:
      app: %[1]s
  strategy:
%[4]s
  template:
    metadata:
      labels:
        app: %[1]s
      annotations:
        sim.kplane.io/start-delay: %[6]q
    spec:
      containers:
      - name: web
        image: %[3]s
        ports:
        - containerPort: 80
`, name, replicas, image, strategy, history, startDelay)
}

// rollingStrategy is a spec.strategy block for RollingUpdate.
func rollingStrategy(maxSurge, maxUnavailable string) string {
	return fmt.Sprintf("    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: %s\n      maxUnavailable: %s", maxSurge, maxUnavailable)
}

// rolloutStatus runs `kubectl rollout status` and fails unless it exits 0
// saying the rollout finished.
func rolloutStatus(t *testing.T, c *framework.LocalCluster, name string) {
	t.Helper()
	r := c.Kubectl(t, "", "rollout", "status", "deployment/"+name, "--timeout="+rolloutTimeout.String())
	if r.Err != nil || !strings.Contains(r.Stdout, fmt.Sprintf("deployment %q successfully rolled out", name)) {
		pods, _ := c.Client(t).Pods("default").List(context.Background(), client.ListOptions{LabelSelector: "app=" + name})
		var items []*api.Pod
		if pods != nil {
			items = pods.Items
		}
		t.Fatalf("kubectl rollout status deployment/%s: %v\nstdout:\n%s\nstderr:\n%s\nkubectl get rs:\n%s\npods:\n%s",
			name, r.Err, r.Stdout, r.Stderr, c.Kubectl(t, "", "get", "rs", "-l", "app="+name).Stdout, describePods(items))
	}
}

// rolloutBounds watches a rolling update of deployment name (replicas
// pods, maxSurge and maxUnavailable already resolved to numbers) and
// checks upstream's two guarantees at every state the watches see.
//
// What upstream promises, precisely: the deployment controller never lets
// the ReplicaSets' spec.replicas add up to more than replicas+maxSurge
// (NewRSNewReplicas sums *rs.Spec.Replicas over all the deployment's RSs),
// and it scales old RSs down only while the available pods — pods counted
// by the RSs' status, which leaves out terminating pods — stay at least
// replicas-maxUnavailable. A pod that is being deleted (deletionTimestamp
// set) is not counted by its ReplicaSet any more (controllerutil.IsPodActive),
// so an old pod that is still shutting down may exist beside the surge.
// The checks are therefore:
//   - RS watch: Σ spec.replicas ≤ replicas+maxSurge (the controller's own
//     arithmetic; never transiently violated);
//   - pod watch: active (non-terminating, unfinished) pods ≤
//     replicas+maxSurge, and active Ready pods ≥ replicas-maxUnavailable.
//     The pod bound rests on the ReplicaSet controller deleting an old pod
//     (one API call after seeing its RS scaled down) before the new RS's
//     controller creates the replacement (which needs the deployment
//     controller to see that scale-down and write the new RS first).
type rolloutBounds struct {
	pods *tracker[*api.Pod]
	rss  *tracker[*api.ReplicaSet]
	// maxActive and minReady are the extremes the pod watch saw (written
	// by the pod tracker's check under its lock; read after it stopped).
	maxActive, minReady int
}

func watchRollout(t *testing.T, cl *client.Client, name string, replicas, maxSurge, maxUnavailable int) *rolloutBounds {
	t.Helper()
	selector := "app=" + name
	maxPods, minReady := replicas+maxSurge, replicas-maxUnavailable
	b := &rolloutBounds{maxActive: 0, minReady: replicas}
	pods := startTracker(t, "pods of "+name, cl.Pods("default"), selector, podLine, func(objs map[string]*api.Pod) string {
		active, ready := countPods(objs)
		b.maxActive, b.minReady = max(b.maxActive, active), min(b.minReady, ready)
		switch {
		case active > maxPods:
			return fmt.Sprintf("%d active pods exist, more than replicas+maxSurge = %d", active, maxPods)
		case ready < minReady:
			return fmt.Sprintf("only %d active pods are Ready, fewer than replicas-maxUnavailable = %d", ready, minReady)
		}
		return ""
	})
	rss := startTracker(t, "replicasets of "+name, cl.ReplicaSets("default"), selector, rsLine, func(objs map[string]*api.ReplicaSet) string {
		var sum int32
		var parts []string
		for _, rs := range objs {
			sum += derefInt32(rs.Spec.Replicas)
			parts = append(parts, fmt.Sprintf("%s=%d", rs.Name, derefInt32(rs.Spec.Replicas)))
		}
		if int(sum) > maxPods {
			sort.Strings(parts)
			return fmt.Sprintf("the ReplicaSets' spec.replicas add up to %d (%s), more than replicas+maxSurge = %d", sum, strings.Join(parts, " "), maxPods)
		}
		return ""
	})
	b.pods, b.rss = pods, rss
	return b
}

// check stops the watches and reports every broken bound; a rollout of n
// pods replaces n pods, so the pod watch must have seen at least 2n events.
func (b *rolloutBounds) check(t *testing.T, replicas int) {
	t.Helper()
	b.pods.requireNoViolations(t, 2*replicas)
	b.rss.requireNoViolations(t, 2)
	t.Logf("during the rollout: at most %d active pods, at least %d of them Ready", b.maxActive, b.minReady)
}

// requireTemplateImage checks the Deployment's pod template image and that
// every pod runs it (rollout finished).
func requireTemplateImage(t *testing.T, c *framework.LocalCluster, name, image string) {
	t.Helper()
	if got := c.MustKubectl(t, "get", "deployment", name, "-o", "jsonpath={.spec.template.spec.containers[0].image}"); got != image {
		t.Errorf("deployment %s template image = %q, want %q", name, got, image)
	}
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		pods := listPods(t, c.Client(t), "default", "app="+name)
		for _, p := range pods {
			if p.Spec.Containers[0].Image != image {
				return false, "pods:\n" + describePods(pods)
			}
		}
		return len(pods) > 0, "no pods"
	})
}

// historyRevisions parses `kubectl rollout history` into its REVISION
// column.
func historyRevisions(out string) []string {
	var revs []string
	for _, l := range nonEmptyLines(out) {
		f := strings.Fields(l)
		if len(f) >= 1 && regexp.MustCompile(`^\d+$`).MatchString(f[0]) {
			revs = append(revs, f[0])
		}
	}
	return revs
}

// TestControllersDeploymentRollingUpdate rolls a 10-replica Deployment
// (pods take 400 ms to become Ready) through several image changes and
// asserts what a user relies on:
//   - maxSurge=1/maxUnavailable=1 and then 25%/25% (= 3 and 2 for 10
//     replicas: surge rounds up, unavailable down) are honoured at every
//     state a watch sees (rolloutBounds explains exactly what is bounded);
//   - `kubectl rollout status` waits and exits 0;
//   - `kubectl rollout history` lists the revisions, `rollout undo` restores
//     the previous template and `--to-revision=1` an earlier one;
//   - revisionHistoryLimit=2 leaves exactly two old ReplicaSets.
func TestControllersDeploymentRollingUpdate(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	cl := c.Client(t)
	const name, replicas = "web", 10

	applyYAML(t, c, deploymentYAML(name, replicas, "nginx:1.27.0", rollingStrategy("1", "1"), 2))
	rolloutStatus(t, c, name)
	waitRunningPods(t, c, "default", "app="+name, replicas)

	// Revision 2: maxSurge 1, maxUnavailable 1.
	b := watchRollout(t, cl, name, replicas, 1, 1)
	c.MustKubectl(t, "set", "image", "deployment/"+name, "web=nginx:1.27.1")
	rolloutStatus(t, c, name)
	waitRunningPods(t, c, "default", "app="+name, replicas)
	b.check(t, replicas)
	requireTemplateImage(t, c, name, "nginx:1.27.1")

	// Revision 3: 25% / 25% → at most 13 pods, at least 8 ready.
	c.MustKubectl(t, "patch", "deployment", name, "--type=merge", "-p",
		`{"spec":{"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}}}}`)
	b = watchRollout(t, cl, name, replicas, 3, 2)
	c.MustKubectl(t, "set", "image", "deployment/"+name, "web=nginx:1.27.2")
	rolloutStatus(t, c, name)
	waitRunningPods(t, c, "default", "app="+name, replicas)
	b.check(t, replicas)
	requireTemplateImage(t, c, name, "nginx:1.27.2")

	if revs := historyRevisions(c.MustKubectl(t, "rollout", "history", "deployment/"+name)); strings.Join(revs, " ") != "1 2 3" {
		t.Errorf("kubectl rollout history revisions = %v, want [1 2 3]", revs)
	}
	if out := c.MustKubectl(t, "rollout", "history", "deployment/"+name, "--revision=2"); !strings.Contains(out, "nginx:1.27.1") {
		t.Errorf("kubectl rollout history --revision=2 does not show the image nginx:1.27.1:\n%s", out)
	}

	// Undo: back to revision 2's template, which becomes revision 4.
	c.MustKubectl(t, "rollout", "undo", "deployment/"+name)
	rolloutStatus(t, c, name)
	requireTemplateImage(t, c, name, "nginx:1.27.1")
	if revs := historyRevisions(c.MustKubectl(t, "rollout", "history", "deployment/"+name)); strings.Join(revs, " ") != "1 3 4" {
		t.Errorf("after undo, kubectl rollout history revisions = %v, want [1 3 4] (revision 2 became 4)", revs)
	}

	// Undo to revision 1: nginx:1.27.0 again, as revision 5.
	c.MustKubectl(t, "rollout", "undo", "deployment/"+name, "--to-revision=1")
	rolloutStatus(t, c, name)
	requireTemplateImage(t, c, name, "nginx:1.27.0")

	// One more rollout (revision 6): with revisionHistoryLimit 2 exactly two
	// old ReplicaSets remain, the two newest (revisions 4 and 5).
	c.MustKubectl(t, "set", "image", "deployment/"+name, "web=nginx:1.27.3")
	rolloutStatus(t, c, name)
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return strings.Join(historyRevisions(out), " ") == "4 5 6"
	}, "rollout", "history", "deployment/"+name)
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		list, err := cl.ReplicaSets("default").List(context.Background(), client.ListOptions{LabelSelector: "app=" + name})
		if err != nil {
			return false, err.Error()
		}
		var old []string
		current := 0
		for _, rs := range list.Items {
			if derefInt32(rs.Spec.Replicas) == 0 {
				old = append(old, rs.Name+"@"+rs.Annotations[api.DeploymentRevisionAnnotation])
			} else {
				current++
			}
		}
		return len(old) == 2 && current == 1, fmt.Sprintf("%d ReplicaSets with replicas > 0, old ones (name@revision): %v", current, old)
	})
	pods := listPods(t, cl, "default", "app="+name)
	for _, p := range pods {
		if p.Spec.Containers[0].Image != "nginx:1.27.3" {
			t.Errorf("after the last rollout pod %s still runs %s", p.Name, p.Spec.Containers[0].Image)
		}
	}
}

// TestControllersDeploymentRecreate: with strategy Recreate, no pod of the
// new template exists while an old pod still runs. Upstream's Recreate
// scales the old ReplicaSets to 0 and waits until none of their pods is
// running (oldPodsRunning: pods not Succeeded or Failed — a terminating pod
// that still runs counts) before it scales up the new one. A pod watch
// checks that at every state.
func TestControllersDeploymentRecreate(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	cl := c.Client(t)
	const name, replicas = "rec", 6
	applyYAML(t, c, deploymentYAML(name, replicas, "nginx:1.27.0", "    type: Recreate", 0))
	rolloutStatus(t, c, name)
	waitRunningPods(t, c, "default", "app="+name, replicas)

	const newImage = "nginx:1.27.1"
	sawNew := false
	tr := startTracker(t, "pods of "+name, cl.Pods("default"), "app="+name, podLine, func(objs map[string]*api.Pod) string {
		var running, fresh []string
		for _, p := range objs {
			if p.Spec.Containers[0].Image == newImage {
				fresh = append(fresh, p.Name)
			} else if p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed {
				running = append(running, p.Name)
			}
		}
		if len(fresh) > 0 {
			sawNew = true
		}
		if len(fresh) > 0 && len(running) > 0 {
			sort.Strings(fresh)
			sort.Strings(running)
			return fmt.Sprintf("new-template pods %v exist while old pods %v still run", fresh, running)
		}
		return ""
	})
	c.MustKubectl(t, "set", "image", "deployment/"+name, "web="+newImage)
	rolloutStatus(t, c, name)
	waitRunningPods(t, c, "default", "app="+name, replicas)
	tr.requireNoViolations(t, 2*replicas)
	if !sawNew {
		t.Errorf("the pod watch never saw a pod with image %s", newImage)
	}
	for _, p := range listPods(t, cl, "default", "app="+name) {
		if p.Spec.Containers[0].Image != newImage || !controllerutil.IsPodReady(p) {
			t.Errorf("after the Recreate rollout: %s", podLine(p))
		}
	}
}
