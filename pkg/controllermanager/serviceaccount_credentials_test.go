package controllermanager

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
)

// fakeTokenAPI is the part of the apiserver the token source talks to:
// ServiceAccount creation and the TokenRequest subresource (issuing
// "<account>-<n>" tokens valid for the requested time on clk), plus one
// endpoint that records the bearer token it is called with.
type fakeTokenAPI struct {
	clk  *clock.Fake
	skew time.Duration // the server's clock minus clk

	mu       sync.Mutex
	accounts map[string]bool
	issued   map[string]int
	calls    []string // "METHOD path" of every request, in order
	seen     []string // bearer tokens seen by GET /api/v1/namespaces/default/configmaps
	failNext bool     // the next TokenRequest answers 500
}

func (f *fakeTokenAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	const prefix = "/api/v1/namespaces/kube-system/serviceaccounts"
	switch {
	case r.Method == http.MethodPost && r.URL.Path == prefix:
		var sa api.ServiceAccount
		if err := json.NewDecoder(r.Body).Decode(&sa); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.accounts[sa.Name] = true
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(sa)
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, prefix+"/") && strings.HasSuffix(r.URL.Path, "/token"):
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, prefix+"/"), "/token")
		if !f.accounts[name] {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"serviceaccounts %q not found","details":{"name":%q,"kind":"serviceaccounts"}}`, name, name)
			return
		}
		if f.failNext {
			f.failNext = false
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"InternalError","code":500,"message":"boom"}`)
			return
		}
		var req api.TokenRequest
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || req.Spec.ExpirationSeconds == nil {
			http.Error(w, "bad TokenRequest "+string(body), http.StatusBadRequest)
			return
		}
		f.issued[name]++
		req.Status.Token = fmt.Sprintf("%s-%d", name, f.issued[name])
		req.Status.ExpirationTimestamp = api.Time{Time: f.clk.Now().Add(f.skew + time.Duration(*req.Spec.ExpirationSeconds)*time.Second)}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(req)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces/default/configmaps":
		f.seen = append(f.seen, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[]}`)
	default:
		http.NotFound(w, r)
	}
}

// startFakeTokenAPI serves f and returns the manager's root client for it.
func startFakeTokenAPI(t *testing.T, f *fakeTokenAPI) *client.Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	root, err := client.New(&client.Config{Host: srv.URL, Token: "manager-token", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// A controller's client creates its missing ServiceAccount, sends that
// account's token instead of the manager's, reuses it until 80 % of its
// hour has passed, and then sends a fresh one without a new client.
func TestServiceAccountClientRenewsItsToken(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	f := &fakeTokenAPI{clk: clk, accounts: map[string]bool{}, issued: map[string]int{}}
	root := startFakeTokenAPI(t, f)
	clients := &controllerClients{root: root, perSA: true, agent: "kplane-controller-manager", clock: clk,
		log: slog.New(slog.NewTextHandler(io.Discard, nil)), sources: map[string]*serviceAccountTokenSource{}}
	c := clients.clientFor("job-controller")
	ctx := context.Background()
	list := func() {
		t.Helper()
		if _, err := c.ConfigMaps("default").List(ctx, client.ListOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	list()
	clk.Step(47 * time.Minute) // before 80 % of the hour
	list()
	clk.Step(2 * time.Minute) // past 48 minutes
	list()

	if want := []string{"job-controller-1", "job-controller-1", "job-controller-2"}; strings.Join(f.seen, " ") != strings.Join(want, " ") {
		t.Errorf("tokens sent = %v, want %v", f.seen, want)
	}
	wantCalls := []string{
		"POST /api/v1/namespaces/kube-system/serviceaccounts/job-controller/token", // 404: no account yet
		"POST /api/v1/namespaces/kube-system/serviceaccounts",
		"POST /api/v1/namespaces/kube-system/serviceaccounts/job-controller/token",
		"GET /api/v1/namespaces/default/configmaps",
		"GET /api/v1/namespaces/default/configmaps",
		"POST /api/v1/namespaces/kube-system/serviceaccounts/job-controller/token",
		"GET /api/v1/namespaces/default/configmaps",
	}
	if strings.Join(f.calls, "\n") != strings.Join(wantCalls, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(f.calls, "\n"), strings.Join(wantCalls, "\n"))
	}
	if clients.clientFor("") != root {
		t.Error("a controller without a ServiceAccount must use the manager's client")
	}
}

// A failed renewal keeps the current token while it is still valid; once
// it has expired, the request fails instead of going out unauthenticated.
func TestServiceAccountTokenKeptThroughFailedRenewal(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	f := &fakeTokenAPI{clk: clk, accounts: map[string]bool{"node-controller": true}, issued: map[string]int{}}
	root := startFakeTokenAPI(t, f)
	source := newServiceAccountTokenSource(root, "node-controller", clk, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	if tok, err := source.Token(ctx); err != nil || tok != "node-controller-1" {
		t.Fatalf("first token = %q, %v", tok, err)
	}
	clk.Step(50 * time.Minute)
	f.mu.Lock()
	f.failNext = true
	f.mu.Unlock()
	if tok, err := source.Token(ctx); err != nil || tok != "node-controller-1" {
		t.Fatalf("token after a failed renewal = %q, %v; want the still-valid node-controller-1", tok, err)
	}
	if tok, err := source.Token(ctx); err != nil || tok != "node-controller-2" {
		t.Fatalf("token after a good renewal = %q, %v", tok, err)
	}
	clk.Step(2 * time.Hour)
	f.mu.Lock()
	f.failNext = true
	f.mu.Unlock()
	if tok, err := source.Token(ctx); err == nil {
		t.Fatalf("expired token with a failed renewal = %q, want an error", tok)
	}
}

// A token whose expiry is already past by the manager's clock (the
// apiserver's clock is behind: the cluster clock moved for one of them
// first) is used for the hour asked for, not requested anew every time.
func TestServiceAccountTokenWithSkewedClocks(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	f := &fakeTokenAPI{clk: clk, skew: -2 * time.Hour, accounts: map[string]bool{"job-controller": true}, issued: map[string]int{}}
	source := newServiceAccountTokenSource(startFakeTokenAPI(t, f), "job-controller", clk, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for range 3 {
		if tok, err := source.Token(context.Background()); err != nil || tok != "job-controller-1" {
			t.Fatalf("token = %q, %v; want job-controller-1 reused", tok, err)
		}
	}
}
