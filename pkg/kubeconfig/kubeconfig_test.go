package kubeconfig

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"kplane/pkg/pki"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestWriteAndLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kubeconfig")
	caPEM := []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
	want := New(AdminClusterName, "https://127.0.0.1:6443", caPEM, AdminUserName, "s3cret")
	if err := want.WriteFile(path); err != nil {
		t.Fatal(err)
	}

	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("mode = %o, want 600", perm)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"apiVersion: v1",
		"kind: Config",
		"current-context: kubernetes-admin@kplane",
		"certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=",
		"token: s3cret",
	} {
		if !bytes.Contains(raw, []byte(line+"\n")) {
			t.Errorf("file lacks %q:\n%s", line, raw)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the kubeconfig (temporary file left behind?)", len(entries))
	}

	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("loaded config differs:\n got %+v\nwant %+v", got, want)
	}
	r, err := got.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	wantResolved := Resolved{
		ContextName: AdminContextName, ClusterName: "kplane", UserName: "kubernetes-admin",
		Server: "https://127.0.0.1:6443", CAPEM: caPEM, Token: "s3cret", Namespace: "default",
	}
	if !reflect.DeepEqual(r, wantResolved) {
		t.Errorf("Resolve:\n got %+v\nwant %+v", r, wantResolved)
	}

	// A second WriteFile (the next apiserver start, on a new port)
	// replaces the file.
	if err := New(AdminClusterName, "https://127.0.0.1:7443", caPEM, AdminUserName, "s3cret").WriteFile(path); err != nil {
		t.Fatal(err)
	}
	again, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := again.Clusters[0].Cluster.Server; s != "https://127.0.0.1:7443" {
		t.Errorf("server after rewrite = %s", s)
	}
}

// TestResolve loads hand-written kubeconfigs, like the ones users keep in
// ~/.kube/config, and checks what Resolve makes of them.
func TestResolve(t *testing.T) {
	const header = "apiVersion: v1\nkind: Config\n"
	tests := []struct {
		name    string
		files   map[string]string // extra files next to the kubeconfig
		config  string
		context string
		want    Resolved
		wantErr string
	}{
		{
			name:  "relative certificate-authority and tokenFile",
			files: map[string]string{"certs/ca.pem": "CA PEM", "token": "file-token\n"},
			config: header + `
clusters:
- name: c
  cluster: {server: "https://10.0.0.1:6443", certificate-authority: certs/ca.pem}
users:
- name: u
  user: {tokenFile: token}
contexts:
- name: ctx
  context: {cluster: c, user: u, namespace: kube-system}
current-context: ctx
`,
			want: Resolved{ContextName: "ctx", ClusterName: "c", UserName: "u", Server: "https://10.0.0.1:6443",
				CAPEM: []byte("CA PEM"), Token: "file-token", Namespace: "kube-system"},
		},
		{
			name:  "inline data wins over file, tokenFile wins over token",
			files: map[string]string{"ca.pem": "FILE CA", "token": "from-file"},
			config: header + `
clusters:
- name: c
  cluster: {server: "https://h", certificate-authority: ca.pem, certificate-authority-data: SU5MSU5FIENB}
users:
- name: u
  user: {token: inline, tokenFile: token}
contexts:
- {name: ctx, context: {cluster: c, user: u}}
current-context: ctx
`,
			want: Resolved{ContextName: "ctx", ClusterName: "c", UserName: "u", Server: "https://h",
				CAPEM: []byte("INLINE CA"), Token: "from-file", Namespace: "default"},
		},
		{
			name: "unreadable tokenFile falls back to the inline token",
			config: header + `
clusters: [{name: c, cluster: {server: "https://h", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: inline, tokenFile: missing}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`,
			want: Resolved{ContextName: "ctx", ClusterName: "c", UserName: "u", Server: "https://h",
				InsecureSkipTLSVerify: true, Token: "inline", Namespace: "default"},
		},
		{
			name: "named context instead of current-context",
			config: header + `
clusters: [{name: a, cluster: {server: "https://a"}}, {name: b, cluster: {server: "https://b"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: ca, context: {cluster: a, user: u}}, {name: cb, context: {cluster: b, user: u}}]
current-context: ca
`,
			context: "cb",
			want:    Resolved{ContextName: "cb", ClusterName: "b", UserName: "u", Server: "https://b", Token: "t", Namespace: "default"},
		},
		{
			name:    "no current-context",
			config:  header + "clusters: []\n",
			wantErr: "current-context is not set",
		},
		{
			name:    "unknown context",
			config:  header + "current-context: nope\n",
			wantErr: `context "nope" not found`,
		},
		{
			name: "context names a missing cluster",
			config: header + `
users: [{name: u, user: {token: t}}]
contexts: [{name: ctx, context: {cluster: gone, user: u}}]
current-context: ctx
`,
			wantErr: `cluster "gone", which is not defined`,
		},
		{
			name: "context names a missing user",
			config: header + `
clusters: [{name: c, cluster: {server: "https://h"}}]
contexts: [{name: ctx, context: {cluster: c, user: gone}}]
current-context: ctx
`,
			wantErr: `user "gone", which is not defined`,
		},
		{
			name: "cluster without server",
			config: header + `
clusters: [{name: c, cluster: {}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`,
			wantErr: `cluster "c" has no server defined`,
		},
		{
			name: "missing certificate-authority file",
			config: header + `
clusters: [{name: c, cluster: {server: "https://h", certificate-authority: nowhere.pem}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`,
			wantErr: "nowhere.pem",
		},
		{
			name: "exec plugin",
			config: header + `
clusters: [{name: c, cluster: {server: "https://h"}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: aws}}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`,
			wantErr: "does not run",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				writeFile(t, p, content)
			}
			path := filepath.Join(dir, "config")
			writeFile(t, path, tt.config)

			// Load from another working directory's point of view: relative
			// paths must still resolve against the kubeconfig's directory.
			t.Chdir(t.TempDir())
			c, err := Load(path)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			got, err := c.Resolve(tt.context)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Resolve error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Resolve:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestLoadRejectsBadBase64(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	writeFile(t, path, "clusters: [{name: c, cluster: {server: x, certificate-authority-data: '***'}}]\n")
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "base64") {
		t.Fatalf("Load error = %v, want a base64 error", err)
	}
}

// TestTLSConfigConnects serves HTTPS with a pki bundle and connects with the
// TLS configuration a kubeconfig resolves to.
func TestTLSConfigConnects(t *testing.T) {
	bundle, err := pki.Ensure(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	otherBundle, err := pki.Ensure(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, r.Header.Get("Authorization"))
	}))
	srv.TLS = bundle.ServerTLSConfig()
	srv.StartTLS()
	defer srv.Close()

	tests := []struct {
		name    string
		cluster Cluster
		wantErr bool
	}{
		{name: "right CA", cluster: Cluster{Server: srv.URL, CertificateAuthorityData: bundle.CACertPEM}},
		{name: "right CA, in-cluster name", cluster: Cluster{Server: srv.URL, CertificateAuthorityData: bundle.CACertPEM, TLSServerName: "kubernetes.default.svc"}},
		{name: "another cluster's CA", cluster: Cluster{Server: srv.URL, CertificateAuthorityData: otherBundle.CACertPEM}, wantErr: true},
		{name: "insecure", cluster: Cluster{Server: srv.URL, InsecureSkipTLSVerify: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New("c", srv.URL, nil, "u", "tok")
			c.Clusters[0].Cluster = tt.cluster
			r, err := c.Resolve("")
			if err != nil {
				t.Fatal(err)
			}
			tlsConfig, err := r.TLSConfig()
			if err != nil {
				t.Fatal(err)
			}
			transport := &http.Transport{TLSClientConfig: tlsConfig}
			defer transport.CloseIdleConnections()
			req, _ := http.NewRequest(http.MethodGet, r.Server, nil)
			req.Header.Set("Authorization", "Bearer "+r.Token)
			resp, err := (&http.Client{Transport: transport}).Do(req)
			if tt.wantErr {
				if err == nil {
					resp.Body.Close()
					t.Fatal("request succeeded, want a certificate error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body bytes.Buffer
			body.ReadFrom(resp.Body)
			if body.String() != "Bearer tok" {
				t.Errorf("server saw Authorization %q", body.String())
			}
		})
	}
}

func TestTLSConfigErrors(t *testing.T) {
	bundle, err := pki.Ensure(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		resolved Resolved
		wantErr  string
	}{
		{"CA with insecure", Resolved{CAPEM: bundle.CACertPEM, InsecureSkipTLSVerify: true}, "insecure-skip-tls-verify"},
		{"CA that is not PEM", Resolved{CAPEM: []byte("garbage")}, "no PEM certificate"},
		{"client certificate without key", Resolved{ClientCertPEM: bundle.CACertPEM}, "client certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.resolved.TLSConfig(); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("TLSConfig error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestRealKubectl checks that the real kubectl accepts the file New and
// WriteFile produce: it must find the server, trust the CA and send the token.
func TestRealKubectl(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH; skipping the check against the real kubectl")
	}
	bundle, err := pki.Ensure(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	const token = "kubectl-test-token"
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"major":"1","minor":"32","gitVersion":"v1.32.0-kplane-test"}`)
	}))
	srv.TLS = bundle.ServerTLSConfig()
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()

	dir := t.TempDir()
	path := filepath.Join(dir, "kubeconfig")
	if err := New(AdminClusterName, srv.URL, bundle.CACertPEM, AdminUserName, token).WriteFile(path); err != nil {
		t.Fatal(err)
	}

	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", path}, args...)...)
		// A private HOME keeps kubectl's discovery cache out of the real one.
		cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECONFIG=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	if got := run("config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}"); got != srv.URL {
		t.Errorf("kubectl sees server %q, want %q", got, srv.URL)
	}
	if got := run("config", "current-context"); strings.TrimSpace(got) != AdminContextName {
		t.Errorf("kubectl sees current-context %q, want %q", got, AdminContextName)
	}
	if got := run("get", "--raw", "/version"); !strings.Contains(got, "v1.32.0-kplane-test") {
		t.Errorf("kubectl get --raw /version printed %q", got)
	}
}
