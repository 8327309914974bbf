package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// TestCtlExplain checks the two uses of the OpenAPI v3 schemas the
// apiserver publishes: `ctl explain` must print what the real `kubectl
// explain` prints from them, and `kubectl apply` must merge lists by the
// patch strategies and merge keys they carry.
func TestCtlExplain(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	c := framework.StartCluster(t, func(o *cluster.Options) { o.Nodes = 0 })
	bin := filepath.Join(framework.BuildBinaries(t), "ctl")

	t.Run("ctl explain prints what kubectl explain prints", func(t *testing.T) {
		explainLikeKubectl(t, c, bin)
	})
	t.Run("kubectl apply merges lists as the schemas say", func(t *testing.T) {
		applyMergesBySchema(t, c)
	})
}

// explainLikeKubectl runs `ctl explain` and `kubectl explain` on the same
// arguments and requires byte-identical stdout, stderr and exit codes.
// Both read the same documents; ctl renders kubectl's plaintext template
// in Go, so any difference in the schemas' shape (a missing $ref, a type
// where kubectl expects none) or in the rendering (wrapping, cycles,
// required markers) shows here.
func explainLikeKubectl(t *testing.T, c *framework.LocalCluster, bin string) {
	for _, args := range [][]string{
		{"pods"},
		{"pod.spec"},
		{"pods.spec.containers"},
		{"pods.spec.containers.resources"},
		{"pods.spec.containers.resources.limits"},
		{"pods.metadata.creationTimestamp"},
		{"pods.metadata.managedFields"},
		{"deploy"},
		{"deployments.apps"},
		{"deployments.apps.spec.replicas"},
		{"deployment.spec.strategy.rollingUpdate"},
		{"deploy.spec.strategy.rollingUpdate.maxSurge"},
		{"deploy.spec.replicas"},
		{"svc.spec.ports"},
		{"sts.spec"},
		{"ds"},
		{"jobs.spec"},
		{"cj.spec.jobTemplate"},
		{"nodes.status"},
		{"ns"},
		{"cm"},
		{"hpa.spec"},
		{"lease.spec"},
		{"clusterrole.rules"},
		{"controllerrevisions.data"},
		{"endpointslices"},
		{"endpointslices.ports"},
		{"deploy", "--recursive"},
		{"pods.spec", "--recursive"},
		{"deploy", "--api-version=apps/v1"},
		// Errors: an unknown field (after the header), a field of a
		// string, a group-version the server does not serve, a
		// group-version that lacks the resource, an unknown resource.
		{"deploy.spec.nope"},
		{"deploy.spec.replicas.nope"},
		{"deploy", "--api-version=apps/v2"},
		{"deploy", "--api-version=v1"},
		{"nope"},
	} {
		what := "explain " + strings.Join(args, " ")
		got := ctlvRun(t, bin, c, "", append([]string{"explain"}, args...)...)
		r := c.Kubectl(t, "", append([]string{"explain"}, args...)...)
		want := ctlvResult{stdout: r.Stdout, stderr: r.Stderr, code: ctlvExitCode(r.Err)}
		ctlvSame(t, what, got, want)
	}

	// The error cases really are errors, and the field that does not exist
	// is named, after the kind's header.
	got := ctlvRun(t, bin, c, "", "explain", "deploy.spec.nope")
	if got.code != 1 || got.stdout != "GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\n" ||
		got.stderr != "error: field \"nope\" does not exist\n" {
		t.Errorf("ctl explain deploy.spec.nope:\n%s", got)
	}
	// And a successful one says what kubectl's documentation would lead a
	// reader to expect.
	got = ctlvRun(t, bin, c, "", "explain", "pods.spec.containers")
	if got.code != 0 || !strings.HasPrefix(got.stdout, "KIND:       Pod\nVERSION:    v1\n\nFIELD: containers <[]Container>\n") ||
		!strings.Contains(got.stdout, "\n  name\t<string> -required-\n") ||
		!strings.Contains(got.stdout, "\n  resources\t<ResourceRequirements>\n") {
		t.Errorf("ctl explain pods.spec.containers:\n%s", got)
	}
}

// applyMergesBySchema applies a Deployment, then the same manifest with a
// container, a volume and an environment variable removed. kubectl 1.32
// computes its patch from the Deployment's published schema (the PATCH
// operation accepts strategic merge patches), so the removals arrive as
// `$patch: delete` directives only if the lists carry their patch strategy
// and merge key; without them kubectl would send the shorter lists, the
// server would merge them by name, and everything removed would stay.
func applyMergesBySchema(t *testing.T, c *framework.LocalCluster) {
	manifest := func(containers, volumes string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: merge-by-schema
spec:
  selector: {matchLabels: {app: merge-by-schema}}
  template:
    metadata: {labels: {app: merge-by-schema}}
    spec:
      containers:` + containers + `
      volumes:` + volumes + "\n"
	}
	before := manifest(`
      - name: web
        image: nginx:1
        env: [{name: KEEP, value: "1"}, {name: DROP, value: "1"}]
        volumeMounts: [{name: data, mountPath: /data}]
      - name: sidecar
        image: busybox:1`, `
      - {name: data, emptyDir: {}}
      - {name: scratch, emptyDir: {}}`)
	after := manifest(`
      - name: web
        image: nginx:2
        env: [{name: KEEP, value: "2"}]
        volumeMounts: [{name: data, mountPath: /data}]`, `
      - {name: data, emptyDir: {}}`)

	if r := c.Kubectl(t, before, "apply", "-f", "-"); r.Err != nil {
		t.Fatalf("first apply: %v\n%s", r.Err, r.Stderr)
	}
	r := c.Kubectl(t, after, "apply", "-f", "-", "-v=5")
	if r.Err != nil || r.Stdout != "deployment.apps/merge-by-schema configured\n" {
		t.Fatalf("second apply: %v\nstdout:\n%s\nstderr:\n%s", r.Err, r.Stdout, r.Stderr)
	}
	// kubectl says so at -v=5 when it cannot use the schema and falls
	// back to its compiled-in types.
	for _, fallback := range []string{"does not support strategic merge patch", "does not exist for OpenAPI V3", "error calculating patch"} {
		if strings.Contains(r.Stderr, fallback) {
			t.Errorf("kubectl apply did not use the published schema (%q):\n%s", fallback, r.Stderr)
		}
	}
	got := c.MustKubectl(t, "get", "deployment", "merge-by-schema", "-o",
		`jsonpath={range .spec.template.spec.containers[*]}{.name}={.image} {.env}{"\n"}{end}{.spec.template.spec.volumes[*].name}`)
	want := `web=nginx:2 [{"name":"KEEP","value":"2"}]` + "\n" + "data"
	if got != want {
		t.Errorf("after applying the shorter lists:\n%s\nwant:\n%s", got, want)
	}
}
