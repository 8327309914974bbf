package e2e

import (
	"os"
	"path/filepath"
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
	dir := t.TempDir()
	manifest := func(name, yaml string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	raw, err := os.ReadFile("../../examples/nginx-dep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if out := a.MustKubectl(t, "apply", "--server-side", "-f", "../../examples/nginx-dep.yaml"); out != "deployment.apps/ng-dep serverside-applied\n" {
			t.Errorf("apply: %q", out)
		}
	}
	shown := a.MustKubectl(t, "get", "deployment/ng-dep", "-o", "yaml", "--show-managed-fields")
	for _, want := range []string{"manager: kubectl", "operation: Apply", "f:replicas: {}", `k:{"name":"ng-c-dep"}:`} {
		if !strings.Contains(shown, want) {
			t.Errorf("get --show-managed-fields lacks %q:\n%s", want, shown)
		}
	}

	a.MustKubectl(t, "scale", "deployment/ng-dep", "--replicas=2")
	five := manifest("five.yaml", strings.Replace(string(raw), "replicas: 4", "replicas: 5", 1))
	r := a.Kubectl(t, "", "apply", "--server-side", "-f", five)
	if r.Err == nil || !strings.Contains(r.Stderr, `error: Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1 at `) ||
		!strings.Contains(r.Stderr, ": .spec.replicas") || !strings.Contains(r.Stderr, "--force-conflicts") {
		t.Errorf("re-apply after kubectl scale: err %v\n%s%s", r.Err, r.Stdout, r.Stderr)
	}
	a.MustKubectl(t, "apply", "--server-side", "--force-conflicts", "-f", five)
	if out := a.MustKubectl(t, "get", "deployment/ng-dep", "-o", "jsonpath={.spec.replicas}"); out != "5" {
		t.Errorf("replicas after --force-conflicts = %q, want 5", out)
	}

	configMap := manifest("configmap.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n")
	if out := a.MustKubectl(t, "apply", "--server-side", "-f", configMap); out != "configmap/settings serverside-applied\n" {
		t.Errorf("configmap apply: %q", out)
	}
	service := manifest("service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {dep: ng-dep-pod}\n  ports:\n  - port: 80\n    targetPort: 80\n")
	if out := a.MustKubectl(t, "apply", "--server-side", "-f", service); out != "service/web serverside-applied\n" {
		t.Errorf("service apply: %q", out)
	}
	if out := a.MustKubectl(t, "get", "configmap/settings", "service/web", "-o", "jsonpath={.items[*].metadata.managedFields[0].manager}"); out != "kubectl kubectl" {
		t.Errorf("managers of the configmap and service: %q", out)
	}
}
