package ctl

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kplane/pkg/debug"
	"kplane/pkg/kubelet"
)

// fakeKubeletDebugAPI serves the kubelet's pause and resume routes for
// node1 and node2 the way the kubelet answers them, and remembers the
// calls.
func fakeKubeletDebugAPI(t *testing.T) (access func(string) (*debug.Client, []debug.Endpoint, error), calls *[]string) {
	t.Helper()
	calls = &[]string{}
	j := debug.NewJournal("kubelet-node1", 0, nil)
	answer := func(paused bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			*calls = append(*calls, r.URL.Path+"?"+r.URL.RawQuery)
			_ = json.NewEncoder(w).Encode([]kubelet.HeartbeatState{{Node: r.URL.Query().Get("node"), Paused: paused}})
		}
	}
	j.Handle("POST "+kubelet.PathPause, answer(true))
	j.Handle("POST "+kubelet.PathResume, answer(false))
	srv := httptest.NewServer(j.Handler(nil, false))
	t.Cleanup(srv.Close)
	endpoints := []debug.Endpoint{
		{Component: "apiserver", URL: "https://127.0.0.1:1"},
		{Component: "kubelet-node1", URL: srv.URL},
		{Component: "kubelet-node2", URL: "http://127.0.0.1:1"},
	}
	return func(string) (*debug.Client, []debug.Endpoint, error) { return &debug.Client{}, endpoints, nil }, calls
}

func TestFaultPauseAndResumeKubelet(t *testing.T) {
	access, calls := fakeKubeletDebugAPI(t)
	var out bytes.Buffer
	if err := runFaultPauseKubelet(context.Background(), &out, access, ".kplane", "node1", true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"fault injected: node1's kubelet stopped its heartbeat.",
		"node-lifecycle controller marks node1 Unknown",
		"node.kubernetes.io/unreachable:NoExecute",
		"ctl why node/node1",
		"Undo: ctl fault resume-kubelet node1",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("pause-kubelet output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := runFaultPauseKubelet(context.Background(), &out, access, ".kplane", "node1", false); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "node1's kubelet resumed its heartbeat") {
		t.Errorf("resume-kubelet output:\n%s", out.String())
	}
	if want := []string{kubelet.PathPause + "?node=node1", kubelet.PathResume + "?node=node1"}; strings.Join(*calls, " ") != strings.Join(want, " ") {
		t.Fatalf("calls %v, want %v", *calls, want)
	}

	err := runFaultPauseKubelet(context.Background(), &out, access, "/data", "node9", true)
	if want := `no kubelet of node "node9" announced a debug API in /data (nodes found: node1, node2)`; err == nil || err.Error() != want {
		t.Fatalf("pause of an unknown node: %v, want %q", err, want)
	}
}
