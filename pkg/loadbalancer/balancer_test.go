package loadbalancer

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeAPIServer is an HTTPS server answering /readyz (200, or 503 while
// notReady) and /name (its name), like an apiserver behind the balancer.
type fakeAPIServer struct {
	name     string
	address  string
	notReady atomic.Bool
	srv      *httptest.Server
}

// startFake starts a fake apiserver on address ("127.0.0.1:0" for a new
// port).
func startFake(t *testing.T, name, address string) *fakeAPIServer {
	t.Helper()
	f := &fakeAPIServer{name: name}
	ln, err := net.Listen("tcp", address)
	if err != nil {
		t.Fatal(err)
	}
	f.address = ln.Addr().String()
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/readyz":
			if f.notReady.Load() {
				http.Error(w, "not ready", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "ok")
		case "/name":
			fmt.Fprint(w, f.name)
		case "/hang":
			// A watch: the response stays open until the client goes.
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}))
	f.srv.Listener = ln
	f.srv.StartTLS()
	t.Cleanup(f.stop)
	return f
}

// stop closes the listener and every connection, as a killed process's
// sockets are closed by the kernel.
func (f *fakeAPIServer) stop() {
	f.srv.CloseClientConnections()
	f.srv.Close()
}

// startBalancer serves a balancer over backends with fast health checks.
func startBalancer(t *testing.T, backends ...string) *Balancer {
	t.Helper()
	o := DefaultOptions()
	o.Listen = "127.0.0.1:0"
	o.Backends = backends
	o.Interval, o.Timeout = 10*time.Millisecond, 500*time.Millisecond
	b, err := Listen(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- b.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return b
}

// newClient returns an HTTPS client that opens a new connection per request,
// so every request is one balancing decision.
func newClient() *http.Client {
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true},
		DisableKeepAlives: true,
	}}
}

// nameVia asks the balancer which backend answered.
func nameVia(c *http.Client, b *Balancer) (string, error) {
	resp, err := c.Get("https://" + b.Addr().String() + "/name")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}

// waitFor polls cond until it holds, failing with what it last saw.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; last saw %s", what, saw)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRoundRobinReachesEveryBackend(t *testing.T) {
	a, b := startFake(t, "a", "127.0.0.1:0"), startFake(t, "b", "127.0.0.1:0")
	lb := startBalancer(t, a.address, b.address)
	c := newClient()
	counts := map[string]int{}
	for range 10 {
		name, err := nameVia(c, lb)
		if err != nil {
			t.Fatal(err)
		}
		counts[name]++
	}
	if counts["a"] != 5 || counts["b"] != 5 {
		t.Fatalf("10 connections over 2 backends, round-robin: got %v, want 5 each", counts)
	}
}

func TestDeadBackendIsSkippedWithoutClientErrors(t *testing.T) {
	a, b := startFake(t, "a", "127.0.0.1:0"), startFake(t, "b", "127.0.0.1:0")
	lb := startBalancer(t, a.address, b.address)
	a.stop()
	c := newClient()
	for i := range 10 {
		name, err := nameVia(c, lb)
		if err != nil {
			t.Fatalf("request %d after a died: %v", i, err)
		}
		if name != "b" {
			t.Fatalf("request %d after a died answered by %q", i, name)
		}
	}
	if st := lb.Backends(); st[0].Up || !st[1].Up {
		t.Fatalf("backends %+v: want a down, b up", st)
	}
}

func TestBackendComesBackAfterRiseChecks(t *testing.T) {
	a, b := startFake(t, "a", "127.0.0.1:0"), startFake(t, "b", "127.0.0.1:0")
	lb := startBalancer(t, a.address, b.address)
	a.stop()
	waitFor(t, "a marked down", func() (bool, string) {
		st := lb.Backends()
		return !st[0].Up, fmt.Sprintf("%+v", st)
	})
	startFake(t, "a-again", a.address)
	waitFor(t, "a back up", func() (bool, string) {
		st := lb.Backends()
		return st[0].Up, fmt.Sprintf("%+v", st)
	})
	c := newClient()
	seen := map[string]bool{}
	for range 4 {
		name, err := nameVia(c, lb)
		if err != nil {
			t.Fatal(err)
		}
		seen[name] = true
	}
	if !seen["a-again"] || !seen["b"] {
		t.Fatalf("after a came back, 4 connections reached %v; want both a-again and b", seen)
	}
}

func TestBackendFailingChecksHasItsConnectionsClosed(t *testing.T) {
	a := startFake(t, "a", "127.0.0.1:0")
	lb := startBalancer(t, a.address)
	// A long-lived response through the balancer, like a watch.
	conn, err := tls.Dial("tcp", lb.Addr().String(), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "GET /hang HTTP/1.1\r\nHost: a\r\n\r\n")
	r := bufio.NewReader(conn)
	status, err := r.ReadString('\n')
	if err != nil || !strings.Contains(status, "200") {
		t.Fatalf("watch-like request: %q, %v", status, err)
	}
	waitFor(t, "the connection counted on a", func() (bool, string) {
		st := lb.Backends()
		return st[0].Connections == 1, fmt.Sprintf("%+v", st)
	})
	// The server still accepts connections but says it is not ready: only
	// the health checks can notice, and they must cut the open stream.
	a.notReady.Store(true)
	if _, err := io.ReadAll(r); err != nil && !isClosedErr(err) {
		t.Fatalf("reading the cut stream: %v", err)
	}
	if st := lb.Backends(); st[0].Up || st[0].Connections != 0 {
		t.Fatalf("after a failed its checks: %+v, want down with no connections", st)
	}
}

// isClosedErr accepts the ways a cut TLS stream may end besides EOF.
func isClosedErr(err error) bool {
	s := err.Error()
	return strings.Contains(s, "reset") || strings.Contains(s, "closed") || strings.Contains(s, "EOF")
}

func TestNoBackendClosesTheClientConnection(t *testing.T) {
	a := startFake(t, "a", "127.0.0.1:0")
	lb := startBalancer(t, a.address)
	a.stop()
	if _, err := nameVia(newClient(), lb); err == nil {
		t.Fatal("a request with every backend dead succeeded")
	}
}

func TestValidate(t *testing.T) {
	good := DefaultOptions()
	good.Listen, good.Backends = "127.0.0.1:6443", []string{"127.0.0.2:6443"}
	if err := good.Validate(); err != nil {
		t.Fatalf("good options: %v", err)
	}
	for name, mutate := range map[string]func(*Options){
		"no port":           func(o *Options) { o.Listen = "127.0.0.1" },
		"no backend":        func(o *Options) { o.Backends = nil },
		"backend twice":     func(o *Options) { o.Backends = []string{"127.0.0.2:1", "127.0.0.2:1"} },
		"bad backend":       func(o *Options) { o.Backends = []string{"127.0.0.2"} },
		"relative path":     func(o *Options) { o.HealthPath = "readyz" },
		"zero interval":     func(o *Options) { o.Interval = 0 },
		"fall below one":    func(o *Options) { o.Fall = 0 },
		"rise below one":    func(o *Options) { o.Rise = 0 },
		"zero dial timeout": func(o *Options) { o.DialTimeout = 0 },
	} {
		o := good
		mutate(&o)
		if err := o.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, o)
		}
	}
}

func TestHAProxyConfig(t *testing.T) {
	o := DefaultOptions()
	o.Listen, o.Backends = "127.0.0.1:6443", []string{"127.0.0.2:6443", "127.0.0.3:6443"}
	cfg := HAProxyConfig(o)
	for _, want := range []string{
		"mode tcp",
		"bind 127.0.0.1:6443",
		"balance roundrobin",
		"option httpchk GET /readyz",
		"rise 2 fall 3 on-marked-down shutdown-sessions",
		"server apiserver-1 127.0.0.2:6443 check check-ssl verify none",
		"server apiserver-2 127.0.0.3:6443 check check-ssl verify none",
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("haproxy.cfg lacks %q:\n%s", want, cfg)
		}
	}
	o.HealthPath = ""
	if cfg := HAProxyConfig(o); strings.Contains(cfg, "httpchk") || !strings.Contains(cfg, "server apiserver-1 127.0.0.2:6443 check\n") {
		t.Errorf("TCP checks: got\n%s", cfg)
	}
}

func TestServeReturnsOnceItsConnectionsAreClosed(t *testing.T) {
	a := startFake(t, "a", "127.0.0.1:0")
	var logs syncBuffer
	o := DefaultOptions()
	o.Listen, o.Backends = "127.0.0.1:0", []string{a.address}
	o.Interval, o.Timeout = 10*time.Millisecond, 500*time.Millisecond
	o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	lb, err := Listen(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- lb.Serve(ctx) }()

	// A watch-like stream stays open until the balancer closes it.
	conn, err := tls.Dial("tcp", lb.Addr().String(), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "GET /hang HTTP/1.1\r\nHost: a\r\n\r\n")
	if status, err := bufio.NewReader(conn).ReadString('\n'); err != nil || !strings.Contains(status, "200") {
		t.Fatalf("watch-like request: %q, %v", status, err)
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its context ended; a proxied connection kept it")
	}
	if strings.Contains(logs.String(), "backend down") {
		t.Errorf("stopping the balancer blamed a backend:\n%s", logs.String())
	}
}

// syncBuffer collects log lines from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
