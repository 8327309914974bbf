package e2e

import (
	"os"
	"strings"
	"testing"

	"kplane/test/framework"
)

// TestBuiltinServerSideApplyWithKubectl: kubectl apply --server-side of
// the example Deployment creates it and applies it again; get
// --show-managed-fields names kubectl's Apply; after kubectl scale, a
// re-apply with other replicas fails with upstream's conflict text and
// --force-conflicts takes replicas back. A ConfigMap and a Service apply
// server-side too.
func TestBuiltinServerSideApplyWithKubectl(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	kubectl := func(stdin string, args ...string) string {
		t.Helper()
		r := a.Kubectl(t, stdin, args...)
		if r.Err != nil {
			t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
		}
		return r.Stdout
	}
	raw, err := os.ReadFile("../../examples/nginx-dep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	deployment := string(raw)
	for range 2 {
		if out := kubectl(deployment, "apply", "--server-side", "-f", "-"); out != "deployment.apps/ng-dep serverside-applied\n" {
			t.Errorf("apply: %q", out)
		}
	}
	shown := kubectl("", "get", "deployment/ng-dep", "-o", "yaml", "--show-managed-fields")
	for _, want := range []string{"manager: kubectl", "operation: Apply", "f:replicas: {}", `k:{"name":"ng-c-dep"}:`} {
		if !strings.Contains(shown, want) {
			t.Errorf("get --show-managed-fields lacks %q:\n%s", want, shown)
		}
	}

	kubectl("", "scale", "deployment/ng-dep", "--replicas=2")
	five := strings.Replace(deployment, "replicas: 4", "replicas: 5", 1)
	r := a.Kubectl(t, five, "apply", "--server-side", "-f", "-")
	if r.Err == nil || !strings.Contains(r.Stderr, `error: Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1 at `) ||
		!strings.Contains(r.Stderr, ": .spec.replicas") || !strings.Contains(r.Stderr, "--force-conflicts") {
		t.Errorf("re-apply after kubectl scale: err %v\n%s%s", r.Err, r.Stdout, r.Stderr)
	}
	kubectl(five, "apply", "--server-side", "--force-conflicts", "-f", "-")
	if out := kubectl("", "get", "deployment/ng-dep", "-o", "jsonpath={.spec.replicas}"); out != "5" {
		t.Errorf("replicas after --force-conflicts = %q, want 5", out)
	}

	configMap := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n"
	if out := kubectl(configMap, "apply", "--server-side", "-f", "-"); out != "configmap/settings serverside-applied\n" {
		t.Errorf("configmap apply: %q", out)
	}
	service := "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {dep: ng-dep-pod}\n  ports:\n  - port: 80\n    targetPort: 80\n"
	if out := kubectl(service, "apply", "--server-side", "-f", "-"); out != "service/web serverside-applied\n" {
		t.Errorf("service apply: %q", out)
	}
	if out := kubectl("", "get", "configmap/settings", "service/web", "-o", "jsonpath={.items[*].metadata.managedFields[0].manager}"); out != "kubectl kubectl" {
		t.Errorf("managers of the configmap and service: %q", out)
	}
}
