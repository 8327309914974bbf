// Package framework starts kplane components for tests and drives them the
// way a user does: with the real kubectl, or with raw HTTPS requests.
package framework

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/apiserver"
	"kplane/pkg/auth"
	"kplane/pkg/serviceaccount"
)

// APIServer is an in-process apiserver on its own temp data dir and port.
type APIServer struct {
	*apiserver.Server
	// Dir is the data dir; Home is a private $HOME for kubectl's caches.
	Dir, Home string
	token     string
	http      *http.Client
}

// StartAPIServer starts an apiserver in t.TempDir() on a free port and stops
// it when the test ends.
func StartAPIServer(t testing.TB) *APIServer {
	t.Helper()
	return StartAPIServerIn(t, t.TempDir())
}

// StartAPIServerIn starts an apiserver on an existing data dir (to test
// restarts). The caller may Stop it early; cleanup stops it otherwise.
func StartAPIServerIn(t testing.TB, dir string) *APIServer {
	t.Helper()
	return StartAPIServerWith(t, dir, func(*apiserver.Options) {})
}

// StartAPIServerWith starts an apiserver on dir after letting configure
// change its options (e.g. to use an external etcd).
func StartAPIServerWith(t testing.TB, dir string, configure func(*apiserver.Options)) *APIServer {
	t.Helper()
	opts := apiserver.DefaultOptions()
	opts.DataDir, opts.SecurePort, opts.CompactionInterval = dir, 0, 0
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("KPLANE_TEST_LOGS") != "" {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	configure(&opts)
	if opts.ServiceAccountSigningKeyFile == "" {
		seedServiceAccountKey(t, opts.DataDir)
	}
	s, err := apiserver.Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("start apiserver: %v", err)
	}
	t.Cleanup(s.Stop)
	token, _ := s.Tokens().TokenFor(auth.AdminUserName)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.CACertPEM())
	home := filepath.Join(dir, "home")
	_ = os.MkdirAll(home, 0o700)
	return &APIServer{Server: s, Dir: dir, Home: home, token: token,
		http: &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}}
}

// Response is a raw HTTP answer.
type Response struct {
	Code   int
	Header http.Header
	Body   []byte
}

// Do sends an authenticated request; body may be nil. Headers alternate
// name, value.
func (a *APIServer) Do(t testing.TB, method, path string, body []byte, headers ...string) Response {
	t.Helper()
	return a.DoWithToken(t, a.token, method, path, body, headers...)
}

// DoWithToken sends a request with a given bearer token ("" for none).
func (a *APIServer) DoWithToken(t testing.TB, token, method, path string, body []byte, headers ...string) Response {
	t.Helper()
	req, err := http.NewRequest(method, a.URL()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := a.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s %s: %v", method, path, err)
	}
	return Response{Code: resp.StatusCode, Header: resp.Header, Body: b}
}

// Stream opens a long-lived GET (a watch) and returns the response; the
// caller closes its body.
func (a *APIServer) Stream(t testing.TB, ctx context.Context, path string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL()+path, nil)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := a.http.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp
}

// KubectlResult is what a kubectl run printed.
type KubectlResult struct {
	Stdout, Stderr string
	Err            error
}

// RequireKubectl returns kubectl's path or skips the test with a clear
// message; with KPLANE_REQUIRE_KUBECTL=1 (as CI sets) a missing kubectl fails.
func RequireKubectl(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("KPLANE_REQUIRE_KUBECTL") != "" {
			t.Fatalf("kubectl is not on PATH, and KPLANE_REQUIRE_KUBECTL is set")
		}
		t.Skip("SKIP: kubectl is not on PATH; install kubectl to run this test")
	}
	return path
}

// Kubectl runs the real kubectl against this server with a private HOME.
// stdin may be empty.
func (a *APIServer) Kubectl(t testing.TB, stdin string, args ...string) KubectlResult {
	t.Helper()
	return a.KubectlEnv(t, nil, stdin, args...)
}

// KubectlEnv is Kubectl with extra environment variables ("K=V").
func (a *APIServer) KubectlEnv(t testing.TB, env []string, stdin string, args ...string) KubectlResult {
	t.Helper()
	kubectl := RequireKubectl(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	full := append([]string{"--kubeconfig", a.KubeconfigPath(), "--cache-dir", filepath.Join(a.Home, "cache")}, args...)
	cmd := exec.CommandContext(ctx, kubectl, full...)
	cmd.Env = append(append(os.Environ(), "HOME="+a.Home, "KUBECONFIG="), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return KubectlResult{Stdout: stdout.String(), Stderr: stderr.String(), Err: err}
}

// MustKubectl runs kubectl and fails the test if it exits non-zero.
func (a *APIServer) MustKubectl(t testing.TB, args ...string) string {
	t.Helper()
	r := a.Kubectl(t, "", args...)
	if r.Err != nil {
		t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// Eventually polls cond until it returns true or timeout passes; on failure
// it reports what cond last said.
func Eventually(t testing.TB, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ok, msg := cond()
		if ok {
			return
		}
		last = msg
		if time.Now().After(deadline) {
			t.Fatalf("condition not met after %v; last saw: %s", timeout, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// RepoRoot finds the repository root (the directory holding go.mod).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// testServiceAccountKey is one ServiceAccount signing key per test binary:
// making a 2048-bit RSA key takes a fifth of a second, which every one of
// the suite's in-process apiservers would otherwise spend at its start.
var testServiceAccountKey = sync.OnceValues(serviceaccount.GenerateSigningKey)

// seedServiceAccountKey puts the shared key where the apiserver looks for
// its own (DATA_DIR/pki/sa.key), unless a key is there already (a restart
// on the same data dir keeps its key, as a real one does).
func seedServiceAccountKey(t testing.TB, dataDir string) {
	t.Helper()
	privatePath := filepath.Join(dataDir, "pki", serviceaccount.PrivateKeyFile)
	if _, err := os.Stat(privatePath); err == nil {
		return
	}
	key, err := testServiceAccountKey()
	if err != nil {
		t.Fatalf("service account key: %v", err)
	}
	if err := serviceaccount.WriteSigningKey(privatePath, filepath.Join(dataDir, "pki", serviceaccount.PublicKeyFile), key); err != nil {
		t.Fatalf("seed service account key: %v", err)
	}
}

// StartPeerAPIServer starts another apiserver on first's embedded etcd, in
// its own temp data dir (its own PKI and tokens), as a second apiserver of
// one cluster: it shares first's objects, ranges and leases. configure may
// set its addresses. Cleanup stops it before first (cleanups run last in,
// first out), so its etcd outlives it.
func StartPeerAPIServer(t testing.TB, first *APIServer, configure func(*apiserver.Options)) *APIServer {
	t.Helper()
	url := first.EtcdClientURL()
	if url == "" {
		t.Fatal("StartPeerAPIServer: the first apiserver runs no embedded etcd")
	}
	return StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.EtcdServers = []string{url}
		configure(o)
	})
}
