package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/runtime"
)

// noForwardRuntime is a runtime that cannot forward ports.
type noForwardRuntime struct{}

func (noForwardRuntime) Start(context.Context, *api.Pod, *api.Container, int) (runtime.Container, error) {
	return nil, nil
}
func (noForwardRuntime) Name() string { return "bare" }

// portForwardRequest is a SPDY upgrade for port-forward, as the apiserver
// passes kubectl's on.
func portForwardRequest(path string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, path, nil)
	r.Header.Set("Connection", "Upgrade")
	r.Header.Set("Upgrade", "SPDY/3.1")
	r.Header.Set("X-Stream-Protocol-Version", "portforward.k8s.io")
	return r
}

func TestPortForwardRefusals(t *testing.T) {
	simulated := runtime.NewSimulated(nil, nil)
	web := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"}}
	for _, tt := range []struct {
		name      string
		lookup    PodLookup
		noUpgrade bool
		wantCode  int
		wantBody  string
	}{
		{name: "no lookup yet", wantCode: http.StatusServiceUnavailable, wantBody: "not ready to forward ports"},
		{name: "unknown pod", lookup: func(ns, pod string) (*api.Pod, runtime.Runtime, error) {
			return nil, nil, NotFoundf("pod %s/%s is not running on node node1", ns, pod)
		}, wantCode: http.StatusNotFound, wantBody: "pod default/web is not running on node node1"},
		{name: "runtime without port-forward", lookup: func(string, string) (*api.Pod, runtime.Runtime, error) {
			return web, noForwardRuntime{}, nil
		}, wantCode: http.StatusNotImplemented, wantBody: "the bare container runtime cannot forward ports"},
		{name: "no upgrade", lookup: func(string, string) (*api.Pod, runtime.Runtime, error) {
			return web, simulated, nil
		}, noUpgrade: true, wantCode: http.StatusBadRequest, wantBody: "needs a SPDY/3.1 or WebSocket upgrade"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, nil, nil)
			if tt.lookup != nil {
				s.SetPodLookup(tt.lookup)
			}
			req := portForwardRequest("/portForward/default/web")
			if tt.noUpgrade {
				req = httptest.NewRequest(http.MethodPost, "/portForward/default/web", nil)
			}
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			if rec.Code != tt.wantCode || !strings.Contains(rec.Body.String(), tt.wantBody) {
				t.Errorf("%d %q, want %d with %q", rec.Code, rec.Body.String(), tt.wantCode, tt.wantBody)
			}
		})
	}
}

// TestPortForwardUpgrades checks that a found pod on a runtime that can
// forward gets the 101 with the negotiated protocol (the streams
// themselves are pkg/streaming's tests).
func TestPortForwardUpgrades(t *testing.T) {
	s := newTestServer(t, nil, nil)
	web := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"}}
	s.SetPodLookup(func(string, string) (*api.Pod, runtime.Runtime, error) {
		return web, runtime.NewSimulated(nil, nil), nil
	})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	req := portForwardRequest(srv.URL + "/portForward/default/web")
	req.RequestURI = ""
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	resp, err := transport.RoundTrip(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("X-Stream-Protocol-Version") != "portforward.k8s.io" {
		t.Errorf("%s %v, want 101 with portforward.k8s.io", resp.Status, resp.Header)
	}
}
