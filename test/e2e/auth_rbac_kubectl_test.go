package e2e

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/pkg/apiserver"
	"kplane/pkg/auth"
	"kplane/pkg/controllers/clusterroleaggregation"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/kubeconfig"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

// kubeconfigAs writes a copy of the admin's kubeconfig that authenticates
// with token instead, and returns its path.
func kubeconfigAs(t *testing.T, a *framework.APIServer, name, token string) string {
	t.Helper()
	cfg, err := kubeconfig.Load(a.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	for i := range cfg.Users {
		cfg.Users[i].User = kubeconfig.AuthInfo{Token: token}
	}
	path := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := cfg.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestKubectlForbiddenUntilBound is the first "Done when", with the
// real kubectl against an apiserver enforcing RBAC: alice, with no
// bindings, gets upstream's 403 for get, list and create; a RoleBinding to
// view lets her read and still not write; `kubectl auth can-i create pods
// --as alice` answers no (exit 1) until an edit binding, then yes (exit 0);
// `kubectl auth can-i --list` and `kubectl auth whoami` work — each
// checked with every installed kubectl minor.
func TestKubectlForbiddenUntilBound(t *testing.T) {
	minors := framework.InstalledKubectlMinors(t)
	if len(minors) < 2 {
		t.Fatalf("found %d kubectl minors beside kubectl (%v), want at least two", len(minors), minors)
	}
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.AuthorizationModes = []string{"Node", "RBAC"}
	})
	// view and edit are aggregated ClusterRoles: the
	// clusterrole-aggregation controller, which the controller-manager
	// runs in a cluster, fills in their rules.
	adminClient := a.Client(t, nil)
	controllertest.RunController(t, adminClient, "", 1, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*clusterroleaggregation.Controller, error) {
		return clusterroleaggregation.New(adminClient, f, rec, clusterroleaggregation.Options{Logger: logger})
	})
	aliceConfig := kubeconfigAs(t, a, "alice", a.TokenFor(t, auth.User{Name: "alice"}))
	kubectl := func(k framework.KubectlMinor, kubeconfigPath string, args ...string) framework.KubectlResult {
		t.Helper()
		home := filepath.Join(a.Home, fmt.Sprintf("kubectl-1-%d-%s", k.Minor, filepath.Base(kubeconfigPath)))
		return framework.RunKubectl(t, k.Path, kubeconfigPath, home, "", args...)
	}
	newest := minors[len(minors)-1]
	admin := func(args ...string) string {
		t.Helper()
		r := kubectl(newest, a.KubeconfigPath(), args...)
		if r.Err != nil {
			t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
		}
		return r.Stdout
	}
	admin("create", "configmap", "settings", "--from-literal=mode=lesson")

	// No bindings: 403 in upstream's words, for every minor.
	forbidden := map[string][]string{
		`Error from server (Forbidden): configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"`:                {"get", "configmaps"},
		`Error from server (Forbidden): configmaps "settings" is forbidden: User "alice" cannot get resource "configmaps" in API group "" in the namespace "default"`:      {"get", "configmap", "settings"},
		`error: failed to create configmap: configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "default"`:          {"create", "configmap", "x", "--from-literal=a=b"},
		`Error from server (Forbidden): deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" in the namespace "kube-system"`: {"get", "deployments", "-n", "kube-system"},
	}
	for _, k := range minors {
		for want, args := range forbidden {
			r := kubectl(k, aliceConfig, args...)
			if r.Err == nil || strings.TrimSpace(r.Stderr) != want {
				t.Errorf("kubectl 1.%d %s as alice: %v\nstdout %q\nstderr %q\nwant exit 1 and %q", k.Minor, strings.Join(args, " "), r.Err, r.Stdout, r.Stderr, want)
			}
		}
	}

	// view: reads succeed, writes still fail.
	admin("create", "rolebinding", "alice-view", "--clusterrole=view", "--user=alice")
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		r := kubectl(newest, aliceConfig, "get", "configmap", "settings", "-o", "name")
		return r.Err == nil && r.Stdout == "configmap/settings\n", r.Stdout + r.Stderr
	})
	for _, k := range minors {
		if r := kubectl(k, aliceConfig, "get", "configmaps", "-o", "name"); r.Err != nil || !strings.Contains(r.Stdout, "configmap/settings") {
			t.Errorf("kubectl 1.%d get configmaps as alice with view: %v %s%s", k.Minor, r.Err, r.Stdout, r.Stderr)
		}
		r := kubectl(k, aliceConfig, "create", "configmap", "x", "--from-literal=a=b")
		if want := `error: failed to create configmap: configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "default"`; r.Err == nil || strings.TrimSpace(r.Stderr) != want {
			t.Errorf("kubectl 1.%d create configmap as alice with view: %v %q, want %q", k.Minor, r.Err, r.Stderr, want)
		}
	}

	// can-i --as alice: no (exit 1), then yes (exit 0) after edit.
	for _, k := range minors {
		r := kubectl(k, a.KubeconfigPath(), "auth", "can-i", "create", "pods", "--as", "alice")
		if exitCode(r.Err) != 1 || r.Stdout != "no\n" {
			t.Errorf("kubectl 1.%d auth can-i create pods --as alice: exit %d %q %q, want no and exit 1", k.Minor, exitCode(r.Err), r.Stdout, r.Stderr)
		}
	}
	admin("create", "rolebinding", "alice-edit", "--clusterrole=edit", "--user=alice")
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		r := kubectl(newest, a.KubeconfigPath(), "auth", "can-i", "create", "pods", "--as", "alice")
		return r.Err == nil && r.Stdout == "yes\n", r.Stdout + r.Stderr
	})
	for _, k := range minors {
		r := kubectl(k, a.KubeconfigPath(), "auth", "can-i", "create", "pods", "--as", "alice")
		if r.Err != nil || r.Stdout != "yes\n" {
			t.Errorf("kubectl 1.%d auth can-i create pods --as alice after edit: %v %q %q, want yes and exit 0", k.Minor, r.Err, r.Stdout, r.Stderr)
		}
		r = kubectl(k, aliceConfig, "auth", "can-i", "--list")
		if r.Err != nil || !strings.HasPrefix(r.Stdout, "Resources ") || !containsFields(r.Stdout, "selfsubjectaccessreviews.authorization.k8s.io [] [] [create]") ||
			!containsFields(r.Stdout, "configmaps [] [] [create update patch delete deletecollection get list watch]") {
			t.Errorf("kubectl 1.%d auth can-i --list as alice: %v\n%s%s", k.Minor, r.Err, r.Stdout, r.Stderr)
		}
		r = kubectl(k, aliceConfig, "auth", "whoami")
		if r.Err != nil || !containsFields(r.Stdout, "Username alice") || !containsFields(r.Stdout, "Groups [system:authenticated]") {
			t.Errorf("kubectl 1.%d auth whoami as alice: %v\n%s%s", k.Minor, r.Err, r.Stdout, r.Stderr)
		}
	}
}

// containsFields reports whether some line of out has exactly the
// whitespace-separated fields of line.
func containsFields(out, line string) bool {
	want := strings.Join(strings.Fields(line), " ")
	for _, l := range strings.Split(out, "\n") {
		if strings.Join(strings.Fields(l), " ") == want {
			return true
		}
	}
	return false
}
