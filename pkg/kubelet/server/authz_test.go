package server

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/kubelet/runtime"
	"kplane/pkg/kubelet/stats"
	"kplane/pkg/pki"
)

// bootstrapPolicyReviewer answers SubjectAccessReviews as the apiserver
// does with the bootstrap policy: kube-apiserver-kubelet-client (bound to
// system:kubelet-api-admin) and system:masters may do anything on nodes;
// metrics-server (system:metrics-server) may get nodes/metrics. It
// records the questions it was asked.
type bootstrapPolicyReviewer struct {
	mu    sync.Mutex
	asked []api.SubjectAccessReviewSpec
	err   error
}

func (f *bootstrapPolicyReviewer) ReviewAccess(_ context.Context, review *api.SubjectAccessReview) (*api.SubjectAccessReview, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, review.Spec)
	if f.err != nil {
		return nil, f.err
	}
	spec, answer := review.Spec, *review
	attrs := spec.ResourceAttributes
	switch {
	case attrs == nil || attrs.Resource != "nodes":
	case spec.User == pki.KubeletClientCommonName || slices.Contains(spec.Groups, auth.MastersGroup):
		answer.Status.Allowed = true
	case spec.User == auth.MetricsServerUserName && attrs.Subresource == "metrics" && attrs.Verb == "get":
		answer.Status.Allowed = true
	}
	return &answer, nil
}

func (f *bootstrapPolicyReviewer) questions() []api.SubjectAccessReviewSpec {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asked)
}

func TestRequestAttributes(t *testing.T) {
	tests := []struct {
		method, path              string
		wantVerb, wantSubresource string
	}{
		{"GET", "/stats/summary", "get", "stats"},
		{"GET", "/stats", "get", "stats"},
		{"GET", "/statsfoo", "get", "proxy"},
		{"GET", "/metrics", "get", "metrics"},
		{"GET", "/metrics/resource", "get", "metrics"},
		{"GET", "/metrics/cadvisor", "get", "metrics"},
		{"GET", "/logs/", "get", "log"},
		{"GET", "/spec/", "get", "spec"},
		{"GET", "/containerLogs/default/web/app", "get", "proxy"},
		{"POST", "/exec/default/web/app", "create", "proxy"},
		{"GET", "/exec/default/web/app", "get", "proxy"},
		{"POST", "/attach/default/web/app", "create", "proxy"},
		{"POST", "/portForward/default/web", "create", "proxy"},
		{"GET", "/pods", "get", "proxy"},
		{"GET", "/healthz", "get", "proxy"},
		{"GET", "/configz", "get", "proxy"},
		{"HEAD", "/healthz", "get", "proxy"},
		{"PUT", "/pods", "update", "proxy"},
		{"PATCH", "/pods", "patch", "proxy"},
		{"DELETE", "/pods", "delete", "proxy"},
		{"OPTIONS", "/pods", "", "proxy"},
	}
	for _, tt := range tests {
		if verb, sub := apiVerb(tt.method), nodeSubresource(tt.path); verb != tt.wantVerb || sub != tt.wantSubresource {
			t.Errorf("%s %s = %s nodes/%s, want %s nodes/%s", tt.method, tt.path, verb, sub, tt.wantVerb, tt.wantSubresource)
		}
	}
	if ns, pod, ok := podPath("/portForward/kube-system/coredns"); !ok || ns != "kube-system" || pod != "coredns" {
		t.Errorf("podPath = %q %q %v", ns, pod, ok)
	}
	if _, _, ok := podPath("/stats/summary"); ok {
		t.Error("podPath(/stats/summary) named a pod")
	}
}

// TestNodeForPodPaths: a call naming a pod is asked about the pod's node.
// A pod the lookup does not know (the container lookup may still find it on
// any node of the process) is never asked about the node the caller put in
// the Host header: with one node it is that node, with several node "",
// which only a grant on all nodes allows.
func TestNodeForPodPaths(t *testing.T) {
	pods := func(namespace, name string) (*api.Pod, runtime.Runtime, error) {
		if namespace == "default" && name == "web" {
			return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: name}, Spec: api.PodSpec{NodeName: "node-b"}}, nil, nil
		}
		return nil, nil, errors.New("not found")
	}
	cluster := testBundle(t)
	newServer := func(nodes ...string) *Server {
		s, err := New(Options{ClientCAPEM: cluster.CACertPEM, NodeNames: nodes, Reviewer: &bootstrapPolicyReviewer{}, Pods: pods, Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	hollow, single := newServer("node-a", "node-b"), newServer("node-a")
	tests := []struct {
		name string
		s    *Server
		host string
		path string
		want string
	}{
		{"a known pod's node, whatever the Host", hollow, "node-a:10250", "/exec/default/web/app", "node-b"},
		{"an unknown pod among several nodes: all nodes", hollow, "node-a:10250", "/exec/default/ghost/app", ""},
		{"an unknown pod's logs likewise", hollow, "node-a", "/containerLogs/default/ghost/app", ""},
		{"an unknown pod on a single node: that node", single, "node-b:10250", "/exec/default/ghost/app", "node-a"},
		{"a node path follows the Host", hollow, "node-b:10250", "/stats/summary", "node-b"},
		{"an unknown Host: the first node", hollow, "elsewhere:10250", "/stats/summary", "node-a"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodPost, "https://"+tt.host+tt.path, nil)
		if got := tt.s.nodeFor(r); got != tt.want {
			t.Errorf("%s: nodeFor(%s %s) = %q, want %q", tt.name, tt.host, tt.path, got, tt.want)
		}
	}
}

// TestServerAuthorizesWithSubjectAccessReview: every call becomes a
// SubjectAccessReview about the node; what the reviewer allows passes,
// the rest is told 403 in upstream's words, and a caller without
// credentials 401.
func TestServerAuthorizesWithSubjectAccessReview(t *testing.T) {
	run := newFakeRun("secret output\n")
	run.exit()
	cluster := testBundle(t)
	reviewer := &bootstrapPolicyReviewer{}
	s, err := New(Options{ClientCAPEM: cluster.CACertPEM, NodeName: "node1", Reviewer: reviewer,
		Lookup: func(string, string, string, bool) (runtime.Container, error) { return run, nil },
		Tokens: func(r *http.Request) (string, []string, bool) {
			if token, _ := auth.BearerToken(r); token == "metrics-token" {
				return auth.MetricsServerUserName, []string{"system:serviceaccounts"}, true
			}
			return "", nil, false
		},
		Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	s.SetSummaryLookup(func(node string) (*stats.Summary, error) { return &stats.Summary{}, nil })
	base := startTLS(t, s)

	metricsServer := signedClientCert(t, cluster, auth.MetricsServerUserName, "system:serviceaccounts")
	node2 := signedClientCert(t, cluster, "system:node:node2", "system:nodes")
	tests := []struct {
		name     string
		cert     *tls.Certificate
		token    string
		path     string
		wantCode int
		wantBody string
	}{
		{"apiserver's kubelet client reads logs", &cluster.KubeletClientCert, "", "/containerLogs/default/web/app", http.StatusOK, "secret output\n"},
		{"an admin reads logs", ptr(signedClientCert(t, cluster, "admin", auth.MastersGroup)), "", "/containerLogs/default/web/app", http.StatusOK, "secret output\n"},
		{"a node may not read logs", &node2, "", "/containerLogs/default/web/app", http.StatusForbidden,
			"Forbidden (user=system:node:node2, verb=get, resource=nodes, subresource=proxy)\n"},
		{"nor ask /healthz", &node2, "", "/healthz", http.StatusForbidden,
			"Forbidden (user=system:node:node2, verb=get, resource=nodes, subresource=proxy)\n"},
		{"metrics-server reads metrics", &metricsServer, "", "/metrics/resource", http.StatusOK, ""},
		{"metrics-server may not read stats", &metricsServer, "", "/stats/summary", http.StatusForbidden,
			"Forbidden (user=system:serviceaccount:kube-system:metrics-server, verb=get, resource=nodes, subresource=stats)\n"},
		{"metrics-server may not read logs", &metricsServer, "", "/containerLogs/default/web/app", http.StatusForbidden,
			"Forbidden (user=system:serviceaccount:kube-system:metrics-server, verb=get, resource=nodes, subresource=proxy)\n"},
		{"metrics-server's token reads metrics", nil, "metrics-token", "/metrics/resource", http.StatusOK, ""},
		{"an unknown token", nil, "bogus", "/metrics/resource", http.StatusUnauthorized, "Unauthorized\n"},
		{"no credentials", nil, "", "/healthz", http.StatusUnauthorized, "Unauthorized\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var certs []tls.Certificate
			if tt.cert != nil {
				certs = append(certs, *tt.cert)
			}
			client := clientWith(certs...)
			defer client.CloseIdleConnections()
			req, _ := http.NewRequest(http.MethodGet, base+tt.path, nil)
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantCode || (tt.wantBody != "" || tt.wantCode != http.StatusOK) && string(body) != tt.wantBody {
				t.Errorf("got %d %q, want %d %q", resp.StatusCode, body, tt.wantCode, tt.wantBody)
			}
		})
	}

	// The question asked for the admin's logs: get nodes/proxy on node1,
	// as the certificate's user with its groups and system:authenticated.
	want := api.SubjectAccessReviewSpec{User: "admin", Groups: []string{auth.MastersGroup, auth.AuthenticatedGroup},
		ResourceAttributes: &api.ResourceAttributes{Verb: "get", Version: "v1", Resource: "nodes", Subresource: "proxy", Name: "node1"}}
	found := false
	for _, q := range reviewer.questions() {
		if q.User == "admin" {
			found = true
			if got, _ := json.Marshal(q); string(got) != string(must(json.Marshal(want))) {
				t.Errorf("asked %s, want %s", got, must(json.Marshal(want)))
			}
		}
	}
	if !found {
		t.Error("no SubjectAccessReview was asked for the admin")
	}
}

// TestServerAnswers500WhenReviewFails: an apiserver that cannot answer
// refuses the call (500, upstream's "Authorization error"), never lets it
// through.
func TestServerAnswers500WhenReviewFails(t *testing.T) {
	cluster := testBundle(t)
	s, err := New(Options{ClientCAPEM: cluster.CACertPEM, NodeName: "node1",
		Reviewer: &bootstrapPolicyReviewer{err: errors.New("connection refused")}, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	base := startTLS(t, s)
	client := clientWith(cluster.KubeletClientCert)
	defer client.CloseIdleConnections()
	resp, err := client.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := "Authorization error (user=kube-apiserver-kubelet-client, verb=get, resource=nodes, subresource=proxy)\n"
	if resp.StatusCode != http.StatusInternalServerError || string(body) != want {
		t.Errorf("got %d %q, want 500 %q", resp.StatusCode, body, want)
	}
}

// TestReviewCache: allowed answers are reused for 5 minutes, denied ones
// for 30 seconds, failures never; a different question is asked anew.
func TestReviewCache(t *testing.T) {
	reviewer := &bootstrapPolicyReviewer{}
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cache := newReviewCache(reviewer, clk)
	question := func(user string) api.SubjectAccessReviewSpec {
		return api.SubjectAccessReviewSpec{User: user, ResourceAttributes: &api.ResourceAttributes{Verb: "get", Resource: "nodes", Subresource: "proxy", Name: "n"}}
	}
	ask := func(user string, wantAllowed bool, wantAsked int) {
		t.Helper()
		allowed, _, err := cache.allowed(context.Background(), question(user))
		if err != nil {
			t.Fatal(err)
		}
		if allowed != wantAllowed || len(reviewer.questions()) != wantAsked {
			t.Errorf("%s at %s: allowed %v after %d reviews, want %v after %d", user, clk.Now().Format(time.TimeOnly), allowed, len(reviewer.questions()), wantAllowed, wantAsked)
		}
	}
	ask(pki.KubeletClientCommonName, true, 1)
	ask("bob", false, 2)
	clk.Step(29 * time.Second)
	ask(pki.KubeletClientCommonName, true, 2)
	ask("bob", false, 2)
	clk.Step(time.Second)
	ask("bob", false, 3) // the denial expired at 30 s
	clk.Step(4*time.Minute + 29*time.Second)
	ask(pki.KubeletClientCommonName, true, 3)
	clk.Step(time.Second)
	ask(pki.KubeletClientCommonName, true, 4) // the allowance expired at 5 min

	reviewer.mu.Lock()
	reviewer.err = errors.New("apiserver down")
	reviewer.mu.Unlock()
	for range 2 {
		if _, _, err := cache.allowed(context.Background(), question("carol")); err == nil {
			t.Error("a failed review was answered")
		}
	}
	if got := len(reviewer.questions()); got != 6 {
		t.Errorf("%d reviews, want 6: a failure must not be cached", got)
	}
}

// TestClientReviewer: through a *client.Client the review goes to the
// apiserver's subjectaccessreviews endpoint as an authorization.k8s.io/v1
// object and its answer comes back; an apiserver error is an error.
func TestClientReviewer(t *testing.T) {
	var got api.SubjectAccessReview
	apiserver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/apis/authorization.k8s.io/v1/subjectaccessreviews" {
			t.Errorf("%s %s, want POST to subjectaccessreviews", r.Method, r.URL.Path)
		}
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			t.Error(err)
		}
		answer := got
		answer.Status = api.SubjectAccessReviewStatus{Allowed: got.Spec.User == "alice", Reason: "test"}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(answer)
	}))
	defer apiserver.Close()
	c, err := client.New(&client.Config{Host: apiserver.URL})
	if err != nil {
		t.Fatal(err)
	}
	spec := api.SubjectAccessReviewSpec{User: "alice", ResourceAttributes: &api.ResourceAttributes{Verb: "get", Resource: "nodes", Subresource: "stats", Name: "n1"}}
	cache := newReviewCache(c, nil)
	allowed, reason, err := cache.allowed(context.Background(), spec)
	if err != nil || !allowed || reason != "test" {
		t.Errorf("alice: allowed %v reason %q err %v", allowed, reason, err)
	}
	if got.Kind != "SubjectAccessReview" || got.APIVersion != "authorization.k8s.io/v1" || got.Spec.ResourceAttributes.Subresource != "stats" {
		t.Errorf("sent %+v", got)
	}
	spec.User = "bob"
	if allowed, _, err := cache.allowed(context.Background(), spec); err != nil || allowed {
		t.Errorf("bob: allowed %v err %v", allowed, err)
	}

	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`, http.StatusNotFound)
	}))
	defer failing.Close()
	broken := must(client.New(&client.Config{Host: failing.URL}))
	if _, err := broken.ReviewAccess(context.Background(), &api.SubjectAccessReview{}); err == nil {
		t.Error("a 404 from the apiserver was taken for an answer")
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func ptr[T any](v T) *T { return &v }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// signedClientCert is a client certificate for user in group, signed by
// the bundle's CA.
func signedClientCert(t *testing.T, b *pki.Bundle, user, group string) tls.Certificate {
	t.Helper()
	ca, err := tls.LoadX509KeyPair(b.CACertFile, b.CAKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: user, Organization: []string{group}},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, b.CACert, key.Public(), ca.PrivateKey.(crypto.Signer))
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
