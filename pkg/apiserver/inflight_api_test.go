package apiserver_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"kplane/pkg/apiserver"
	"kplane/pkg/auth"
	"kplane/test/framework"
)

// rawClient sends requests with a bearer token from any goroutine
// (framework's Do fails the test, which only the test's goroutine may do).
type rawClient struct {
	a     *framework.APIServer
	http  *http.Client
	token string
}

func newRawClient(t *testing.T, a *framework.APIServer, token string) *rawClient {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(a.CACertPEM())
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	t.Cleanup(transport.CloseIdleConnections)
	return &rawClient{a: a, http: &http.Client{Transport: transport}, token: token}
}

// rawResponse is what came back: code, headers, body.
type rawResponse struct {
	code   int
	header http.Header
	body   string
}

func (c *rawClient) do(ctx context.Context, method, path string, body string) (rawResponse, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.a.URL()+path, strings.NewReader(body))
	if err != nil {
		return rawResponse{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return rawResponse{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return rawResponse{code: resp.StatusCode, header: resp.Header, body: string(b)}, err
}

// configMapBody is a ConfigMap named name in namespace default.
func configMapBody(name string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"default"}}`, name)
}

// inFlightGate holds every configmap create in flight until opened, and
// reports each one that arrives.
type inFlightGate struct {
	arrived chan string
	open    chan struct{}
	once    sync.Once
}

func newInFlightGate(t *testing.T, a *framework.APIServer) *inFlightGate {
	g := &inFlightGate{arrived: make(chan string, 100), open: make(chan struct{})}
	a.SetInFlightHook(func(r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/configmaps") {
			g.arrived <- r.URL.Path
			<-g.open
		}
	})
	t.Cleanup(g.release)
	return g
}

func (g *inFlightGate) release() { g.once.Do(func() { close(g.open) }) }

// TestMaxMutatingInFlightRefusesBeyondTheCap floods creates past
// --max-mutating-requests-inflight=2 while two are held in flight: the
// others are refused at once with upstream's 429, nothing refused is
// stored, everything acknowledged is; reads still pass and the gauge shows
// the two writes.
func TestMaxMutatingInFlightRefusesBeyondTheCap(t *testing.T) {
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.MaxMutatingRequestsInFlight = 2
		o.AuthorizationModes = []string{apiserver.AuthorizationModeAlwaysAllow}
	})
	gate := newInFlightGate(t, a)
	alice := newRawClient(t, a, a.TokenFor(t, auth.User{Name: "alice"}))
	ctx := context.Background()

	const flood = 8
	type outcome struct {
		name string
		resp rawResponse
		err  error
	}
	results := make(chan outcome, flood)
	for i := range flood {
		name := fmt.Sprintf("cm-%d", i)
		go func() {
			resp, err := alice.do(ctx, http.MethodPost, "/api/v1/namespaces/default/configmaps", configMapBody(name))
			results <- outcome{name, resp, err}
		}()
	}
	// Two creates hold the two slots; the other six must be answered
	// without waiting for them.
	<-gate.arrived
	<-gate.arrived
	refused := map[string]bool{}
	for range flood - 2 {
		o := <-results
		if o.err != nil {
			t.Fatalf("create %s: %v", o.name, o.err)
		}
		if o.resp.code != http.StatusTooManyRequests {
			t.Fatalf("create %s while 2 writes are in flight: %d %s, want 429", o.name, o.resp.code, o.resp.body)
		}
		if got := o.resp.header.Get("Retry-After"); got != "1" {
			t.Errorf("429 Retry-After = %q, want 1", got)
		}
		if got := strings.TrimSpace(o.resp.body); got != "Too many requests, please try again later." {
			t.Errorf("429 body = %q, want upstream's message", got)
		}
		refused[o.name] = true
	}

	// Reads have their own cap: they still pass, and the metrics show
	// the two writes in flight.
	if got, err := alice.do(ctx, http.MethodGet, "/api/v1/namespaces/default/configmaps", ""); err != nil || got.code != http.StatusOK {
		t.Fatalf("list while writes are full: %v %d %s", err, got.code, got.body)
	}
	metrics := a.Do(t, http.MethodGet, "/metrics", nil)
	if want := `apiserver_current_inflight_requests{request_kind="mutating"} 2`; !strings.Contains(string(metrics.Body), want) {
		t.Errorf("/metrics lacks %q:\n%s", want, grepLines(string(metrics.Body), "inflight"))
	}
	if want := `apiserver_dropped_requests_total{request_kind="mutating"} 6`; !strings.Contains(string(metrics.Body), want) {
		t.Errorf("/metrics lacks %q:\n%s", want, grepLines(string(metrics.Body), "dropped"))
	}

	gate.release()
	acknowledged := map[string]bool{}
	for range 2 {
		o := <-results
		if o.err != nil || o.resp.code != http.StatusCreated {
			t.Fatalf("held create %s: %v %d %s, want 201", o.name, o.err, o.resp.code, o.resp.body)
		}
		acknowledged[o.name] = true
	}

	list := a.Do(t, http.MethodGet, "/api/v1/namespaces/default/configmaps", nil)
	var stored struct {
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(list.Body, &stored); err != nil {
		t.Fatalf("decode list: %v", err)
	}
	found := map[string]bool{}
	for _, item := range stored.Items {
		if strings.HasPrefix(item.Metadata.Name, "cm-") {
			found[item.Metadata.Name] = true
		}
	}
	for name := range acknowledged {
		if !found[name] {
			t.Errorf("acknowledged create %s is not stored", name)
		}
	}
	for name := range refused {
		if found[name] {
			t.Errorf("refused create %s was stored", name)
		}
	}
}

// TestMaxInFlightExemptions: a watch held open does not take the only read
// slot, and system:masters is answered even when the write cap is full,
// as upstream.
func TestMaxInFlightExemptions(t *testing.T) {
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.MaxRequestsInFlight = 1
		o.MaxMutatingRequestsInFlight = 1
		o.AuthorizationModes = []string{apiserver.AuthorizationModeAlwaysAllow}
	})
	aliceToken := a.TokenFor(t, auth.User{Name: "alice"})
	alice := newRawClient(t, a, aliceToken)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.URL()+"/api/v1/namespaces/default/configmaps?watch=true", nil)
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	watch, err := alice.http.Do(req)
	if err != nil {
		t.Fatalf("open watch: %v", err)
	}
	defer watch.Body.Close()
	if watch.StatusCode != http.StatusOK {
		t.Fatalf("open watch: %s", watch.Status)
	}
	// The watch is open (its headers came back); the one read slot is
	// still free.
	if got, err := alice.do(ctx, http.MethodGet, "/api/v1/namespaces/default/configmaps", ""); err != nil || got.code != http.StatusOK {
		t.Fatalf("list with a watch open and --max-requests-inflight=1: %v %d %s", err, got.code, got.body)
	}
	if got, err := alice.do(ctx, http.MethodPost, "/api/v1/namespaces/default/configmaps", configMapBody("with-watch")); err != nil || got.code != http.StatusCreated {
		t.Fatalf("create with a watch open and --max-mutating-requests-inflight=1: %v %d %s", err, got.code, got.body)
	}

	gate := newInFlightGate(t, a)
	held := make(chan rawResponse, 1)
	go func() {
		resp, _ := alice.do(ctx, http.MethodPost, "/api/v1/namespaces/default/configmaps", configMapBody("held"))
		held <- resp
	}()
	<-gate.arrived
	if got, err := alice.do(ctx, http.MethodDelete, "/api/v1/namespaces/default/configmaps/with-watch", ""); err != nil || got.code != http.StatusTooManyRequests {
		t.Fatalf("alice's delete with the write slot taken: %v %d %s, want 429", err, got.code, got.body)
	}
	// The admin (system:masters) is answered all the same.
	if got := a.Do(t, http.MethodDelete, "/api/v1/namespaces/default/configmaps/with-watch", nil); got.Code != http.StatusOK {
		t.Fatalf("admin's delete with the write slot taken: %d %s, want 200", got.Code, got.Body)
	}
	gate.release()
	if got := <-held; got.code != http.StatusCreated {
		t.Fatalf("held create: %d %s", got.code, got.body)
	}
}

// grepLines returns the lines of text that contain substr.
func grepLines(text, substr string) string {
	var out bytes.Buffer
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, substr) {
			out.WriteString(line + "\n")
		}
	}
	return out.String()
}
