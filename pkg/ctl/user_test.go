package ctl

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kplane/pkg/apiserver"
	"kplane/pkg/kubeconfig"
	"kplane/pkg/pki"
	"kplane/test/framework"
)

// TestUserAddWithKubectl: `ctl user add alice --group dev --group ops` writes a
// kubeconfig that every kubectl minor (1.27–1.33) uses to authenticate as
// alice in dev and ops (kubectl auth whoami) and, with RBAC on and no
// binding yet, is refused pods with upstream's 403; the admin's --as and
// --as-group are honoured; a kubeconfig whose certificate another CA
// signed is refused.
func TestUserAddWithKubectl(t *testing.T) {
	framework.RequireKubectl(t)
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) { o.AuthorizationModes = []string{"Node", "RBAC"} })

	var out bytes.Buffer
	if err := runUserAdd(&out, a.Dir, "alice", []string{"dev", "ops"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(a.Dir, "users", "alice.kubeconfig")
	wantOut := fmt.Sprintf(`User "alice" added: a client certificate (CN=alice, O=dev, O=ops) signed by the cluster CA.
Kubeconfig written to %[1]s

Use it with:
  kubectl --kubeconfig %[1]s auth whoami
or:
  export KUBECONFIG=%[1]s

alice can do nothing until a binding names it, for example:
  kubectl create rolebinding alice-view --clusterrole=view --user=alice --namespace=default
`, path)
	if out.String() != wantOut {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), wantOut)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig %s: %v (mode %v), want a 0600 file", path, err, fi)
	}

	wantAlice := "ATTRIBUTE   VALUE\nUsername    alice\nGroups      [dev ops system:authenticated]\n"
	minors := framework.InstalledKubectlMinors(t)
	if len(minors) == 0 {
		t.Fatalf("no kubectl.1.NN beside kubectl")
	}
	for _, m := range minors {
		r := framework.RunKubectl(t, m.Path, path, a.Home, "", "auth", "whoami")
		if r.Err != nil || r.Stdout != wantAlice {
			t.Errorf("kubectl 1.%d auth whoami as alice: err %v\nstdout:\n%s\nstderr:\n%s\nwant:\n%s", m.Minor, r.Err, r.Stdout, r.Stderr, wantAlice)
		}
	}

	// The lesson starts here: alice is known, but may do nothing yet.
	r := framework.RunKubectl(t, "kubectl", path, a.Home, "", "get", "pods")
	if want := `Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"`; r.Err == nil || strings.TrimSpace(r.Stderr) != want {
		t.Errorf("kubectl get pods as alice: err %v, stderr %s; want %s", r.Err, r.Stderr, want)
	}

	r = a.Kubectl(t, "", "auth", "whoami", "--as", "bob", "--as-group", "ops", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}")
	if want := `bob ["ops","system:authenticated"]`; r.Err != nil || r.Stdout != want {
		t.Errorf("kubectl auth whoami --as bob --as-group ops: err %v, stdout %q, stderr %s; want %q", r.Err, r.Stdout, r.Stderr, want)
	}

	// The same kubeconfig with a certificate from a stranger's CA.
	otherPKI := t.TempDir()
	if _, err := pki.Ensure(otherPKI, nil); err != nil {
		t.Fatal(err)
	}
	forged, err := pki.IssueUserCertificate(otherPKI, "alice", []string{"system:masters"})
	if err != nil {
		t.Fatal(err)
	}
	kc, err := kubeconfig.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	kc.Users[0].User.ClientCertificateData, kc.Users[0].User.ClientKeyData = forged.CertPEM, forged.KeyPEM
	forgedPath := filepath.Join(t.TempDir(), "forged.kubeconfig")
	if err := kc.WriteFile(forgedPath); err != nil {
		t.Fatal(err)
	}
	r = framework.RunKubectl(t, "kubectl", forgedPath, a.Home, "", "get", "pods")
	if r.Err == nil || !strings.Contains(r.Stderr, "You must be logged in to the server") {
		t.Errorf("kubectl with a foreign certificate: err %v, stderr %s; want Unauthorized", r.Err, r.Stderr)
	}
}

func TestUserAddRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name   string
		groups []string
		want   string
	}{
		{"", nil, "user name cannot be empty"},
		{"../alice", nil, `user name "../alice" cannot contain a slash`},
		{"alice", []string{""}, "--group: a group name cannot be empty"},
		{"alice", nil, "read the cluster's admin kubeconfig (is there a cluster in " + dir + "? run `ctl up` first)"},
	} {
		err := runUserAdd(&bytes.Buffer{}, dir, tt.name, tt.groups)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("user add %q %v: %v, want an error containing %q", tt.name, tt.groups, err, tt.want)
		}
	}
}
