package apiserver

import (
	"context"
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
