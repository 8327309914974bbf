package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

const configMapJSON = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","namespace":"ns","resourceVersion":"7"},"data":{"k":"v"}}`

func TestRequestCarriesHeadersOverHTTP2(t *testing.T) {
	var mu sync.Mutex
	var seen *http.Request
	var body string
	fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen, body = r, string(b)
		mu.Unlock()
		w.Header().Add("Warning", `299 - "unknown field \"spec.foo\""`)
		writeJSON(w, http.StatusCreated, configMapJSON)
	}, nil)
	var warnings []string
	c, _ := newTestClient(t, fs, func(cfg *Config) {
		cfg.WarningHandler = func(text string) { warnings = append(warnings, text) }
	})

	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm"}, Data: map[string]string{"k": "v"}}
	got, err := c.ConfigMaps("ns").Create(context.Background(), cm, CreateOptions{FieldManager: "tester", DryRun: true})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got.ResourceVersion != "7" || got.Data["k"] != "v" {
		t.Errorf("decoded %+v", got)
	}

	mu.Lock()
	defer mu.Unlock()
	checks := []struct{ what, got, want string }{
		{"method", seen.Method, http.MethodPost},
		{"path", seen.URL.Path, "/api/v1/namespaces/ns/configmaps"},
		{"fieldManager", seen.URL.Query().Get("fieldManager"), "tester"},
		{"dryRun", seen.URL.Query().Get("dryRun"), "All"},
		{"Authorization", seen.Header.Get("Authorization"), "Bearer test-token"},
		{"User-Agent", seen.Header.Get("User-Agent"), "client-test/v1"},
		{"Accept", seen.Header.Get("Accept"), "application/json"},
		{"Content-Type", seen.Header.Get("Content-Type"), "application/json"},
		{"protocol", seen.Proto, "HTTP/2.0"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if !strings.Contains(body, `"name":"cm"`) {
		t.Errorf("body %s does not carry the object", body)
	}
	if len(warnings) != 1 || warnings[0] != `unknown field "spec.foo"` {
		t.Errorf("warnings = %q", warnings)
	}
}

// verbCalls are one call per HTTP method, through the typed client.
var verbCalls = []struct {
	method string
	call   func(ctx context.Context, c *Client) error
}{
	{http.MethodGet, func(ctx context.Context, c *Client) error {
		_, err := c.ConfigMaps("ns").Get(ctx, "cm", GetOptions{})
		return err
	}},
	{http.MethodPost, func(ctx context.Context, c *Client) error {
		_, err := c.ConfigMaps("ns").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm"}}, CreateOptions{})
		return err
	}},
	{http.MethodPut, func(ctx context.Context, c *Client) error {
		_, err := c.ConfigMaps("ns").Update(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm"}}, UpdateOptions{})
		return err
	}},
	{http.MethodPatch, func(ctx context.Context, c *Client) error {
		_, err := c.ConfigMaps("ns").Patch(ctx, "cm", MergePatchType, []byte(`{"data":{"k":"v"}}`), PatchOptions{})
		return err
	}},
	{http.MethodDelete, func(ctx context.Context, c *Client) error {
		return c.ConfigMaps("ns").Delete(ctx, "cm", DeleteOptions{})
	}},
}

func TestRetryOn429ForEveryVerb(t *testing.T) {
	for _, v := range verbCalls {
		t.Run(v.method, func(t *testing.T) {
			fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
				if hit <= 2 {
					w.Header().Set("Retry-After", "2")
					writeJSON(w, http.StatusTooManyRequests, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`)
					return
				}
				writeJSON(w, http.StatusOK, configMapJSON)
			}, nil)
			c, rec := newTestClient(t, fs, nil)
			if err := v.call(context.Background(), c); err != nil {
				t.Fatalf("%s after two 429s: %v", v.method, err)
			}
			if got := fs.hits.Load(); got != 3 {
				t.Errorf("server saw %d requests, want 3", got)
			}
			waits := rec.recorded()
			if len(waits) != 2 || waits[0] != 2*time.Second || waits[1] != 2*time.Second {
				t.Errorf("waits = %v, want [2s 2s] from Retry-After", waits)
			}
		})
	}
}

func TestRetryOn503OnlyForIdempotentVerbs(t *testing.T) {
	retried := map[string]bool{http.MethodGet: true, http.MethodPut: true, http.MethodDelete: true}
	for _, v := range verbCalls {
		t.Run(v.method, func(t *testing.T) {
			fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
				if hit <= 2 {
					writeJSON(w, http.StatusServiceUnavailable, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"ServiceUnavailable","code":503}`)
					return
				}
				writeJSON(w, http.StatusOK, configMapJSON)
			}, nil)
			c, rec := newTestClient(t, fs, nil)
			err := v.call(context.Background(), c)
			if retried[v.method] {
				if err != nil {
					t.Fatalf("%s after two 503s: %v", v.method, err)
				}
				if got := fs.hits.Load(); got != 3 {
					t.Errorf("server saw %d requests, want 3", got)
				}
				waits := rec.recorded()
				if len(waits) != 2 || waits[0] < defaultInitialBackoff/2 || waits[0] > defaultInitialBackoff ||
					waits[1] < defaultInitialBackoff || waits[1] > 2*defaultInitialBackoff {
					t.Errorf("waits = %v, want exponential back-off from %v", waits, defaultInitialBackoff)
				}
				return
			}
			if apierrors.CodeOf(err) != http.StatusServiceUnavailable {
				t.Fatalf("%s: err = %v, want the 503 Status", v.method, err)
			}
			if got := fs.hits.Load(); got != 1 {
				t.Errorf("a %s was sent %d times after a 503; it may have been processed", v.method, got)
			}
		})
	}
}

func TestRetryAfterConnectionDroppedMidRequest(t *testing.T) {
	// The handler has the request, then the stream is torn down without an
	// answer: the server may or may not have acted on it.
	for _, v := range verbCalls {
		t.Run(v.method, func(t *testing.T) {
			fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
				if hit <= 2 {
					panic(http.ErrAbortHandler)
				}
				writeJSON(w, http.StatusOK, configMapJSON)
			}, nil)
			c, _ := newTestClient(t, fs, nil)
			err := v.call(context.Background(), c)
			if isIdempotent(v.method) {
				if err != nil {
					t.Fatalf("%s after two dropped streams: %v", v.method, err)
				}
				if got := fs.hits.Load(); got != 3 {
					t.Errorf("server saw %d requests, want 3", got)
				}
				return
			}
			if err == nil {
				t.Fatalf("%s succeeded; it must not be resent after the server may have processed it", v.method)
			}
			t.Logf("%s failed as it should: %v", v.method, err)
			if got := fs.hits.Load(); got != 1 {
				t.Errorf("a %s was sent %d times after a dropped stream", v.method, got)
			}
		})
	}
}

func TestRetryAfterConnectionDroppedBeforeSending(t *testing.T) {
	// The first two connections die before the TLS handshake ends: the
	// request never left, so even a POST is safe to send again.
	var listener *dropFirstConns
	fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		writeJSON(w, http.StatusCreated, configMapJSON)
	}, func(l net.Listener) net.Listener {
		listener = &dropFirstConns{Listener: l}
		listener.remaining.Store(2)
		return listener
	})
	c, rec := newTestClient(t, fs, nil)
	_, err := c.ConfigMaps("ns").Create(context.Background(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm"}}, CreateOptions{})
	if err != nil {
		t.Fatalf("Create after two dropped connections: %v", err)
	}
	if got := fs.hits.Load(); got != 1 {
		t.Errorf("server handled %d requests, want exactly 1", got)
	}
	if got := len(rec.recorded()); got != 2 {
		t.Errorf("client waited %d times, want 2 (one per dropped connection)", got)
	}
}

func TestMaxRetries(t *testing.T) {
	tests := []struct {
		maxRetries int
		wantHits   int32
	}{
		{maxRetries: 0, wantHits: DefaultMaxRetries + 1},
		{maxRetries: 2, wantHits: 3},
		{maxRetries: -1, wantHits: 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("maxRetries=%d", tt.maxRetries), func(t *testing.T) {
			fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
				writeJSON(w, http.StatusTooManyRequests, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`)
			}, nil)
			c, _ := newTestClient(t, fs, func(cfg *Config) { cfg.MaxRetries = tt.maxRetries })
			_, err := c.ConfigMaps("ns").Get(context.Background(), "cm", GetOptions{})
			if !apierrors.IsTooManyRequests(err) {
				t.Fatalf("err = %v, want the last 429", err)
			}
			if got := fs.hits.Load(); got != tt.wantHits {
				t.Errorf("server saw %d requests, want %d", got, tt.wantHits)
			}
		})
	}
}

func TestRetryGivesUpWhenRetryAfterOutlivesContext(t *testing.T) {
	fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		w.Header().Set("Retry-After", "3600")
		writeJSON(w, http.StatusTooManyRequests, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`)
	}, nil)
	c, rec := newTestClient(t, fs, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := c.ConfigMaps("ns").Get(ctx, "cm", GetOptions{})
	if !apierrors.IsTooManyRequests(err) {
		t.Fatalf("err = %v, want the 429 at once", err)
	}
	if waits := rec.recorded(); len(waits) != 0 {
		t.Errorf("client waited %v although the wait outlives its context", waits)
	}
}

func TestRetryStopsWhenContextEndsDuringWait(t *testing.T) {
	fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		writeJSON(w, http.StatusTooManyRequests, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`)
	}, nil)
	c, _ := newTestClient(t, fs, nil)
	ctx, cancel := context.WithCancel(context.Background())
	c.sleep = func(ctx context.Context, d time.Duration) error {
		cancel() // the caller gives up while the client waits
		return ctx.Err()
	}
	_, err := c.ConfigMaps("ns").Get(ctx, "cm", GetOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := fs.hits.Load(); got != 1 {
		t.Errorf("server saw %d requests after the caller gave up, want 1", got)
	}
}

func TestTimeoutIsPerRequestAndNotRetried(t *testing.T) {
	fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		<-r.Context().Done() // never answers
	}, nil)
	c, rec := newTestClient(t, fs, func(cfg *Config) { cfg.Timeout = time.Nanosecond })
	_, err := c.ConfigMaps("ns").Get(context.Background(), "cm", GetOptions{})
	if err == nil || !strings.Contains(err.Error(), "client timeout") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a client timeout", err)
	}
	if waits := rec.recorded(); len(waits) != 0 {
		t.Errorf("a timed-out request was retried (waits %v)", waits)
	}
}

func TestNonStatusErrorBodies(t *testing.T) {
	fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("404 page not found\n"))
	}, nil)
	c, _ := newTestClient(t, fs, nil)
	_, err := c.Pods("ns").Get(context.Background(), "p", GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("err = %v, want NotFound synthesized from the code", err)
	}
	if !strings.Contains(err.Error(), "404 page not found") {
		t.Errorf("message %q lost the body", err.Error())
	}
}

func TestDoReturnsBodyAndStatusError(t *testing.T) {
	fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if r.URL.Path == "/version" {
			if r.URL.Query().Get("x") != "1" || r.Header.Get("Accept") != "text/plain" {
				writeJSON(w, http.StatusBadRequest, `{"kind":"Status","status":"Failure","reason":"BadRequest","code":400}`)
				return
			}
			writeJSON(w, http.StatusOK, `{"gitVersion":"v1.32.0"}`)
			return
		}
		writeJSON(w, http.StatusNotFound, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","message":"nope","code":404}`)
	}, nil)
	c, _ := newTestClient(t, fs, nil)
	code, body, err := c.Do(context.Background(), http.MethodGet, "/version?x=1", nil, map[string]string{"Accept": "text/plain"})
	if err != nil || code != 200 || !strings.Contains(string(body), "v1.32.0") {
		t.Fatalf("Do /version = %d %s %v", code, body, err)
	}
	code, body, err = c.Do(context.Background(), http.MethodGet, "/missing", nil, nil)
	if code != 404 || !apierrors.IsNotFound(err) || !strings.Contains(string(body), "nope") {
		t.Fatalf("Do /missing = %d %s %v", code, body, err)
	}
}
