package apiserver

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"kplane/pkg/authorization/authorizer"
)

// TestServeWithDeadlineDropsLateWrites: once the 504 is out, the handler's
// writes fail with http.ErrHandlerTimeout and change nothing the client
// gets.
func TestServeWithDeadlineDropsLateWrites(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	lateWrite := make(chan error, 1)
	timedOut := make(chan struct{})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		<-timedOut
		w.Header().Set("X-Late", "yes")
		_, err := w.Write([]byte("late"))
		lateWrite <- err
	})
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces", nil).WithContext(ctx)
	serveWithDeadline(ctx, rec, r, handler)
	close(timedOut)
	if err := <-lateWrite; err != http.ErrHandlerTimeout {
		t.Errorf("late write error = %v, want http.ErrHandlerTimeout", err)
	}
	if rec.Code != http.StatusGatewayTimeout || rec.Header().Get("X-Late") != "" {
		t.Errorf("client got %d with headers %v, want a clean 504", rec.Code, rec.Header())
	}
}

// TestServeWithDeadlineLeavesHijackedConnections: a handler that takes
// the connection over (an upgrade) keeps it past the deadline: the timeout
// writes no 504 into it, and the handler goes on using it.
func TestServeWithDeadlineLeavesHijackedConnections(t *testing.T) {
	pastDeadline := make(chan struct{})
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Millisecond)
		defer cancel()
		serveWithDeadline(ctx, w, r.WithContext(ctx), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, rw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Errorf("hijack through the timeout writer: %v", err)
				return
			}
			defer conn.Close()
			<-r.Context().Done()
			<-pastDeadline
			rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\nstill mine\n")
			rw.Flush()
		}))
		close(pastDeadline)
	}))
	defer server.Close()

	conn, err := net.Dial("tcp", server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second)) // a guard against a hang, not a measurement
	conn.Write([]byte("GET /upgrade HTTP/1.1\r\nHost: test\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n"))
	reader := bufio.NewReader(conn)
	resp, err := http.ReadResponse(reader, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("answer %v %v, want the handler's 101 and no 504", resp, err)
	}
	if line, err := reader.ReadString('\n'); line != "still mine\n" {
		t.Errorf("after the deadline: %q %v, want the handler's bytes", line, err)
	}
}

// TestServeWithDeadlinePassesAnswers: a handler that answers in time is
// answered through, headers included.
func TestServeWithDeadlinePassesAnswers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces", nil).WithContext(ctx)
	serveWithDeadline(ctx, rec, r, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte("short and stout"))
	}))
	if rec.Code != http.StatusTeapot || rec.Body.String() != "short and stout" || rec.Header().Get("Content-Type") != "text/plain" {
		t.Errorf("got %d %q %v", rec.Code, rec.Body.String(), rec.Header())
	}
}

// TestRequestTimeoutFromQuery: ?timeout= only ever shortens the limit.
func TestRequestTimeoutFromQuery(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  time.Duration
		err   bool
	}{
		{"", time.Minute, false},
		{"?timeout=10s", 10 * time.Second, false},
		{"?timeout=5m", time.Minute, false},
		{"?timeout=0s", time.Minute, false},
		{"?timeout=soon", 0, true},
	} {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/pods"+tc.query, nil)
		got, err := requestTimeout(r, time.Minute)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("%q: got %v, %v; want %v, error %v", tc.query, got, err, tc.want, tc.err)
		}
	}
}

// TestIsLongRunning: upstream's long-running verbs and subresources, and
// kplane's followed debug streams.
func TestIsLongRunning(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         bool
	}{
		{"GET", "/api/v1/namespaces/default/pods?watch=true", true},
		{"GET", "/api/v1/watch/pods", true},
		{"GET", "/api/v1/namespaces/default/pods/p/log", true},
		{"POST", "/api/v1/namespaces/default/pods/p/exec", true},
		{"GET", "/api/v1/nodes/n1/proxy/metrics", true},
		{"GET", "/debug/kplane/records?follow=true", true},
		{"GET", "/debug/kplane/records", false},
		{"GET", "/api/v1/namespaces/default/pods", false},
		{"POST", "/api/v1/namespaces/default/configmaps", false},
		{"GET", "/healthz", false},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		if got := isLongRunning(r, authorizer.ParseRequestInfo(r)); got != tc.want {
			t.Errorf("%s %s: long-running %v, want %v", tc.method, tc.path, got, tc.want)
		}
	}
}
