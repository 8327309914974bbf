package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kplane/test/framework"
)

// TestCtlRolloutRevisions checks `ctl rollout history` and `ctl rollout
// undo` on a DaemonSet and a StatefulSet against the real kubectl, on one
// cluster whose controllers keep the workloads' ControllerRevisions.
//
// Each workload exists twice, under the same name in the namespaces
// "by-kubectl" and "by-ctl", and goes through the same three templates
// (nginx 1.27.0, 1.28.0, then 1.29.0 with a kubernetes.io/change-cause
// annotation set just before). Reads and dry runs (history, history
// --revision, undo --dry-run, an undo to the current revision, errors) run
// both tools on the by-ctl twin and must print the same bytes. The real
// rollback is a write, so running both tools on one object would send the
// second one down another path ("skipped rollback"): instead kubectl rolls
// back the by-kubectl twin and ctl the by-ctl twin, from the same state, and
// both must print the same, then end with the same history (the restored
// revision renumbered 4 by the controller) and the same image, which the
// pods then run.
func TestCtlRolloutRevisions(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 1)
	bin := filepath.Join(framework.BuildBinaries(t), "ctl")
	ctl := func(args ...string) ctlvResult {
		t.Helper()
		return ctlvRun(t, bin, c, "", args...)
	}
	kubectl := func(args ...string) ctlvResult {
		t.Helper()
		r := c.Kubectl(t, "", args...)
		return ctlvResult{stdout: r.Stdout, stderr: r.Stderr, code: ctlvExitCode(r.Err)}
	}
	const byKubectl, byCtl = "by-kubectl", "by-ctl"
	c.MustKubectl(t, "create", "namespace", byKubectl)
	c.MustKubectl(t, "create", "namespace", byCtl)

	for _, w := range []struct {
		ref      string // TYPE/NAME
		object   string // how the tools name it
		app      string // its pods' app label
		manifest string
	}{
		{"ds/agent", "daemonset.apps/agent", "agent", `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27.0
`},
		{"sts/db", "statefulset.apps/db", "db", `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  replicas: 1
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27.0
`},
	} {
		t.Run(w.ref, func(t *testing.T) {
			// Three templates in both twins; each change waits for the
			// controller to record the previous one as a revision.
			for _, ns := range []string{byKubectl, byCtl} {
				if r := c.Kubectl(t, w.manifest, "apply", "-n", ns, "-f", "-"); r.Err != nil {
					t.Fatalf("kubectl apply -n %s: %v\n%s%s", ns, r.Err, r.Stdout, r.Stderr)
				}
				waitRevisions(t, c, ns, w.app, "1")
				c.MustKubectl(t, "set", "image", "-n", ns, w.ref, "nginx=nginx:1.28.0")
				waitRevisions(t, c, ns, w.app, "1 2")
				c.MustKubectl(t, "annotate", "-n", ns, w.ref, "kubernetes.io/change-cause=image nginx:1.29.0")
				c.MustKubectl(t, "set", "image", "-n", ns, w.ref, "nginx=nginx:1.29.0")
				waitRevisions(t, c, ns, w.app, "1 2 3")
			}

			// What kubectl prints is also what it should print: the
			// change-cause comes from the revision the controller made
			// after the annotation.
			wantHistory := w.object + " \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n3         image nginx:1.29.0\n\n"
			if got := ctl("rollout", "history", "-n", byCtl, w.ref); got.code != 0 || got.stdout != wantHistory {
				t.Errorf("ctl rollout history:\n%s\nwant stdout:\n%s", got, wantHistory)
			}
			for _, args := range [][]string{
				{"rollout", "history", w.ref},
				{"rollout", "history", w.ref, "--revision=1"},
				{"rollout", "history", w.ref, "--revision=3"},
				{"rollout", "history", w.ref, "--revision=7"},
				{"rollout", "undo", w.ref, "--dry-run=client"},
				{"rollout", "undo", w.ref, "--to-revision=1", "--dry-run=client"},
				{"rollout", "undo", w.ref, "--to-revision=2", "--dry-run=server"},
				{"rollout", "undo", w.ref, "--to-revision=3"},
				{"rollout", "undo", w.ref, "--to-revision=9"},
				{"rollout", "undo", w.ref, "--to-revision=-1"},
			} {
				args = append(args, "-n", byCtl)
				ctlvSame(t, strings.Join(args, " "), ctl(args...), kubectl(args...))
			}
			// The template of revision 1 is the first image's, and a
			// client dry run of undo shows the previous revision's.
			if got := ctl("rollout", "history", "-n", byCtl, w.ref, "--revision=1").stdout; !strings.Contains(got, "    Image:\tnginx:1.27.0\n") {
				t.Errorf("ctl rollout history --revision=1 does not show nginx:1.27.0:\n%s", got)
			}
			if got := ctl("rollout", "undo", "-n", byCtl, w.ref, "--dry-run=client").stdout; !strings.HasPrefix(got, w.object+" will roll back to Pod Template:\n") || !strings.Contains(got, "    Image:\tnginx:1.28.0\n") {
				t.Errorf("ctl rollout undo --dry-run=client does not show revision 2's nginx:1.28.0:\n%s", got)
			}
			if got := templateImage(t, c, byCtl, w.ref); got != "nginx:1.29.0" {
				t.Fatalf("dry runs changed the template: image %s, want nginx:1.29.0", got)
			}

			// The rollback itself, each tool on its twin.
			want := kubectl("rollout", "undo", "-n", byKubectl, w.ref, "--to-revision=1")
			ctlvSame(t, "rollout undo --to-revision=1", ctl("rollout", "undo", "-n", byCtl, w.ref, "--to-revision=1"), want)
			if want.stdout != w.object+" rolled back\n" {
				t.Errorf("kubectl rollout undo --to-revision=1: %s", want)
			}
			for _, ns := range []string{byKubectl, byCtl} {
				waitRevisions(t, c, ns, w.app, "2 3 4")
				if got := templateImage(t, c, ns, w.ref); got != "nginx:1.27.0" {
					t.Errorf("%s: after the rollback the template runs %s, want nginx:1.27.0", ns, got)
				}
				waitKubectl(t, c, controllersTimeout, func(out string) bool { return out == "nginx:1.27.0" },
					"get", "pods", "-n", ns, "-l", "app="+w.app, "-o", "jsonpath={.items[*].spec.containers[0].image}")
			}
			after := ctl("rollout", "history", "-n", byCtl, w.ref)
			ctlvSame(t, "rollout history after the rollback", after, kubectl("rollout", "history", "-n", byKubectl, w.ref))
			ctlvSame(t, "rollout history after the rollback", after, kubectl("rollout", "history", "-n", byCtl, w.ref))
			if wantAfter := w.object + " \nREVISION  CHANGE-CAUSE\n2         <none>\n3         image nginx:1.29.0\n4         <none>\n\n"; after.stdout != wantAfter {
				t.Errorf("history after the rollback:\n%s\nwant stdout:\n%s", after, wantAfter)
			}
		})
	}
}

// waitRevisions waits until the ControllerRevisions labelled app=app in ns
// have exactly the revision numbers want ("1 2 3", in order).
func waitRevisions(t *testing.T, c *framework.LocalCluster, ns, app, want string) {
	t.Helper()
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return sortedFields(out) == want },
		"get", "controllerrevisions", "-n", ns, "-l", "app="+app, "-o", "jsonpath={.items[*].revision}")
}

// templateImage is the image of the first container of ref's pod template.
func templateImage(t *testing.T, c *framework.LocalCluster, ns, ref string) string {
	t.Helper()
	return c.MustKubectl(t, "get", "-n", ns, ref, "-o", "jsonpath={.spec.template.spec.containers[0].image}")
}

// sortedFields sorts the numbers in a space-separated list.
func sortedFields(s string) string {
	fields := strings.Fields(s)
	numbers := make([]int, len(fields))
	for i, f := range fields {
		if _, err := fmt.Sscan(f, &numbers[i]); err != nil {
			return s
		}
	}
	slices.Sort(numbers)
	out := make([]string, len(numbers))
	for i, n := range numbers {
		out[i] = fmt.Sprint(n)
	}
	return strings.Join(out, " ")
}
