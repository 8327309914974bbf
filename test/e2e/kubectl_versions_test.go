package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"kplane/test/framework"
)

// TestKubectlMinors runs the everyday verbs with every kubectl minor
// installed beside kubectl (kubectl.1.27 … kubectl.1.33) against one
// cluster, each minor in its own namespace and with its own cache, and
// expects every verb to succeed and say what it did. Old minors take old
// paths: 1.27–1.29 know only aggregated discovery v2beta1, and 1.27–1.28
// read the protobuf /openapi/v2 for apply, explain and --validate.
//
// With fewer than two minors installed the test fails: it exists to prove
// that more than one client release works. .ci/run builds a second minor
// where they are missing.
func TestKubectlMinors(t *testing.T) {
	t.Parallel()
	minors := framework.InstalledKubectlMinors(t)
	if len(minors) < 2 {
		t.Fatalf("found %d kubectl minors beside kubectl (%v), want at least two: install kubectl.1.NN beside kubectl, or run .ci/run, which builds one", len(minors), minors)
	}
	c := framework.StartCluster(t, nil)
	for _, k := range minors {
		t.Run(fmt.Sprintf("1.%d", k.Minor), func(t *testing.T) {
			t.Parallel()
			everydayVerbs(t, c, k)
		})
	}
}

// everydayVerbs drives one kubectl release through a Deployment's life in
// namespace kubectl-1-NN.
func everydayVerbs(t *testing.T, c *framework.LocalCluster, k framework.KubectlMinor) {
	ns := fmt.Sprintf("kubectl-1-%d", k.Minor)
	home := filepath.Join(c.Home, ns)
	// run runs one verb, fails the test if it exits non-zero, and returns
	// what it printed on stdout.
	run := func(stdin string, args ...string) string {
		t.Helper()
		r := framework.RunKubectl(t, k.Path, c.KubeconfigPath(), home, stdin, args...)
		if r.Err != nil {
			t.Fatalf("kubectl 1.%d %s: %v\nstdout:\n%s\nstderr:\n%s", k.Minor, strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
		}
		return r.Stdout
	}
	expect := func(out, want string, args ...string) {
		t.Helper()
		if !strings.Contains(out, want) {
			t.Errorf("kubectl 1.%d %s printed %q, want it to contain %q", k.Minor, strings.Join(args, " "), out, want)
		}
	}
	deployment := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ` + ns + `
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
      annotations: {sim.kplane.io/logs: "hello from web"}
    spec:
      containers:
      - name: web
        image: nginx:1.25
`
	jsonpath := func(path string) string {
		t.Helper()
		return run("", "-n", ns, "get", "deployment", "web", "-o", "jsonpath="+path)
	}

	expect(run("", "create", "namespace", ns), "namespace/"+ns+" created", "create namespace")
	expect(run(deployment, "apply", "-f", "-"), "deployment.apps/web created", "apply")
	expect(run(deployment, "apply", "-f", "-"), "deployment.apps/web unchanged", "apply (again)")
	expect(run("", "-n", ns, "rollout", "status", "deployment/web", "--timeout=60s"), `deployment "web" successfully rolled out`, "rollout status")
	expect(run("", "-n", ns, "get", "deployments,pods"), "deployment.apps/web", "get")
	expect(run("", "-n", ns, "describe", "deployment", "web"), "nginx:1.25", "describe")

	expect(run("", "-n", ns, "scale", "deployment", "web", "--replicas=3"), "deployment.apps/web scaled", "scale")
	if got := jsonpath("{.spec.replicas}"); got != "3" {
		t.Errorf("kubectl 1.%d: spec.replicas after scale = %q, want 3", k.Minor, got)
	}
	expect(run("", "-n", ns, "set", "image", "deployment/web", "web=nginx:1.26"), "deployment.apps/web image updated", "set image")
	run("", "-n", ns, "rollout", "status", "deployment/web", "--timeout=60s")
	history := run("", "-n", ns, "rollout", "history", "deployment/web")
	expect(history, "REVISION", "rollout history")
	expect(history, "2 ", "rollout history")
	expect(run("", "-n", ns, "rollout", "undo", "deployment/web"), "deployment.apps/web rolled back", "rollout undo")
	run("", "-n", ns, "rollout", "status", "deployment/web", "--timeout=60s")
	if got := jsonpath("{.spec.template.spec.containers[0].image}"); got != "nginx:1.25" {
		t.Errorf("kubectl 1.%d: image after rollout undo = %q, want nginx:1.25", k.Minor, got)
	}

	expect(run("", "-n", ns, "patch", "deployment", "web", "-p", `{"metadata":{"annotations":{"lesson":"patched"}}}`), "deployment.apps/web patched", "patch")
	expect(run("", "-n", ns, "label", "deployment", "web", "tier=frontend"), "deployment.apps/web labeled", "label")
	if got := jsonpath("{.metadata.annotations.lesson} {.metadata.labels.tier}"); got != "patched frontend" {
		t.Errorf("kubectl 1.%d: annotation and label = %q, want %q", k.Minor, got, "patched frontend")
	}
	expect(run("", "explain", "deployment.spec.replicas"), "replicas", "explain")
	expect(run("", "-n", ns, "logs", "deployment/web"), "hello from web", "logs")
	expect(run("", "-n", ns, "wait", "--for=condition=Available", "deployment/web", "--timeout=60s"), "condition met", "wait")
	expect(run("", "delete", "namespace", ns, "--timeout=90s"), `namespace "`+ns+`" deleted`, "delete namespace")
}
