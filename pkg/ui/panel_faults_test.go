package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/fault"
)

// faultsTestServer is a Server over a data dir in which a scheduler (a
// real debug journal, served by httptest) announced its debug API.
func faultsTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	dataDir := t.TempDir()
	scheduler := httptest.NewServer(debug.NewJournal("scheduler", 10, nil).Handler(nil, false))
	t.Cleanup(scheduler.Close)
	if err := debug.WriteEndpoint(debug.EndpointFile(dataDir, "scheduler"), debug.Endpoint{Component: "scheduler", URL: scheduler.URL}); err != nil {
		t.Fatal(err)
	}
	kubeconfig := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	if err := os.WriteFile(filepath.Join(dataDir, "kubeconfig"), []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &Server{opts: Options{DataDir: dataDir}, hub: NewHub(), auth: NewAuthenticator(testAdminToken)}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts
}

// post makes an admin POST with the given Origin ("" for none).
func post(t *testing.T, url, origin string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("POST %s: decode the answer: %v", url, err)
	}
	return resp, body
}

func TestFaultPOSTNeedsThePagesOrigin(t *testing.T) {
	ts := faultsTestServer(t)
	for _, origin := range []string{"", "http://evil.example", "http://127.0.0.1:1"} {
		resp, body := post(t, ts.URL+"/api/debug/faults/drop-watch?component=scheduler", origin)
		if resp.StatusCode != http.StatusForbidden || body["reason"] != "Forbidden" || body["kind"] != "Status" {
			t.Errorf("Origin %q: got %d %v, want a 403 Forbidden Status", origin, resp.StatusCode, body)
		}
	}
	resp, _ := post(t, ts.URL+"/api/debug/clock/advance?by=10s", "http://evil.example")
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("clock advance from another origin: got %d, want 403", resp.StatusCode)
	}
}

func TestFaultDropWatchRunsCtlsFault(t *testing.T) {
	ts := faultsTestServer(t)
	resp, body := post(t, ts.URL+"/api/debug/faults/drop-watch?component=scheduler", ts.URL)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("got %d %v", resp.StatusCode, body)
	}
	// The journal has no informers: the same words ctl fault drop-watch prints.
	if text, _ := body["text"].(string); text != "scheduler has no informer watching, so there was nothing to drop.\n" {
		t.Errorf("text = %q", text)
	}
	resp, body = post(t, ts.URL+"/api/debug/faults/drop-watch?component=nope", ts.URL)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body["message"].(string), `no component "nope"`) {
		t.Errorf("unknown component: got %d %v", resp.StatusCode, body)
	}
	resp, body = post(t, ts.URL+"/api/debug/faults/pause-kubelet?node=node1", ts.URL)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body["message"].(string), `no kubelet of node "node1"`) {
		t.Errorf("unknown kubelet: got %d %v", resp.StatusCode, body)
	}
}

func TestFaultAPIErrorRejectsAnIncompleteRule(t *testing.T) {
	ts := faultsTestServer(t)
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/debug/faults/api-error", strings.NewReader(`{"resource":"pods","for":"soon"}`))
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	req.Header.Set("Origin", ts.URL)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var status map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&status)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(status["message"].(string), `for "soon"`) {
		t.Errorf("got %d %v, want 400 naming the bad duration", resp.StatusCode, status)
	}
}

func TestClockAdvanceRejectsABadDuration(t *testing.T) {
	ts := faultsTestServer(t)
	for _, by := range []string{"", "-1m", "2h", "soon"} {
		resp, body := post(t, ts.URL+"/api/debug/clock/advance?by="+by, ts.URL)
		if resp.StatusCode != http.StatusBadRequest || body["reason"] != "BadRequest" {
			t.Errorf("by=%q: got %d %v, want 400 BadRequest", by, resp.StatusCode, body)
		}
	}
}

// Kill the leader runs fault.KillComponent, `ctl fault kill`'s code: the
// process signalled is the one whose identity holds the Lease.
func TestFaultKillLeaderSignalsTheLeaseHolder(t *testing.T) {
	var signaled string
	var sent syscall.Signal
	env := fault.KillEnv{
		Endpoints: func(string) ([]debug.Endpoint, error) {
			return []debug.Endpoint{{Component: "scheduler", Identity: "host_a"}, {Component: "scheduler-2", Identity: "host_b"}}, nil
		},
		LeaseHolder: func(_ context.Context, lease string) (string, error) {
			if lease != "kube-system/kube-scheduler" {
				return "", fmt.Errorf("unexpected lease %s", lease)
			}
			return "host_b", nil
		},
		HoldDown: func(string, string, time.Time) error { return nil },
		Signal: func(_, component string, sig syscall.Signal) (cluster.ProcessRecord, bool, error) {
			signaled, sent = component, sig
			return cluster.ProcessRecord{PID: 77}, true, nil
		},
	}
	s := &Server{opts: Options{DataDir: t.TempDir()}, hub: NewHub(), auth: NewAuthenticator(testAdminToken), faultKillEnv: &env}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)

	resp, body := post(t, ts.URL+"/api/debug/faults/kill-leader?component=scheduler&signal=KILL", ts.URL)
	if resp.StatusCode != http.StatusOK || signaled != "scheduler-2" || sent != syscall.SIGKILL {
		t.Fatalf("got %d %v, signalled %q with %v; want 200 and SIGKILL to scheduler-2, the Lease's holder", resp.StatusCode, body, signaled, sent)
	}
	text, _ := body["text"].(string)
	if !strings.HasPrefix(text, "fault injected: sent SIGKILL to scheduler-2, the leader of the Lease kube-system/kube-scheduler (pid 77).") ||
		!strings.Contains(text, "takes over only once it\n  expires") {
		t.Errorf("text = %q; want ctl fault kill's words", text)
	}

	for query, want := range map[string]int{
		"component=kubelet-node1":                  http.StatusBadRequest,
		"component=scheduler&signal=HUP":           http.StatusBadRequest,
		"component=controller-manager&signal=KILL": http.StatusConflict, // its Lease cannot be read
	} {
		if resp, body := post(t, ts.URL+"/api/debug/faults/kill-leader?"+query, ts.URL); resp.StatusCode != want || body["kind"] != "Status" {
			t.Errorf("%s: got %d %v, want a %d Status", query, resp.StatusCode, body, want)
		}
	}
}
