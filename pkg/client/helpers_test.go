package client

import (
	"context"
	"encoding/pem"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeServer is an HTTPS (HTTP/2) test server that counts the requests its
// handler saw.
type fakeServer struct {
	*httptest.Server
	hits atomic.Int32
}

// startFakeServer serves handler over TLS with HTTP/2 on 127.0.0.1. wrap,
// when set, wraps the raw TCP listener (to drop connections).
func startFakeServer(t *testing.T, handler func(w http.ResponseWriter, r *http.Request, hit int), wrap func(net.Listener) net.Listener) *fakeServer {
	t.Helper()
	fs := &fakeServer{}
	fs.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler(w, r, int(fs.hits.Add(1)))
	}))
	if wrap != nil {
		fs.Listener = wrap(fs.Listener)
	}
	fs.EnableHTTP2 = true
	fs.StartTLS()
	t.Cleanup(fs.Close)
	return fs
}

// caPEM is the PEM of the test server's self-signed certificate.
func (fs *fakeServer) caPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: fs.Certificate().Raw})
}

// sleepRecorder replaces the client's waits between retries: it records
// each wait and returns at once, so retry tests take no time.
type sleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleepRecorder) recorded() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// newTestClient returns a client for fs whose retry waits are recorded,
// after letting configure adjust the Config.
func newTestClient(t *testing.T, fs *fakeServer, configure func(*Config)) (*Client, *sleepRecorder) {
	t.Helper()
	cfg := &Config{Host: fs.URL, CAData: fs.caPEM(), Token: "test-token", UserAgent: "client-test/v1",
		Logger: slog.New(slog.DiscardHandler)}
	if configure != nil {
		configure(cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(c.Close)
	rec := &sleepRecorder{}
	c.sleep = rec.sleep
	return c, rec
}

// writeJSON answers with a JSON body.
func writeJSON(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}

// dropFirstConns is a listener that closes its first n accepted
// connections at once, before the TLS handshake: the client's request is
// never sent.
type dropFirstConns struct {
	net.Listener
	remaining atomic.Int32
}

func (l *dropFirstConns) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.remaining.Add(-1) >= 0 {
			conn.Close()
			continue
		}
		return conn, nil
	}
}

// expectNoWatchGoroutines fails unless every watch goroutine of this
// package has exited (polling briefly: a goroutine that has closed its
// channels may still be returning).
func expectNoWatchGoroutines(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "client.(*streamWatcher") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("watch goroutines still running:\n%s", stacks)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
