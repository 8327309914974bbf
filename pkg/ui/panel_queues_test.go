package ui

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kplane/pkg/debug"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// fakeClusterDir is a cluster data dir as debug.Connect reads it: the
// admin kubeconfig, and an endpoint file for each journal, served over
// httptest.
func fakeClusterDir(t *testing.T, journals ...*debug.Journal) string {
	t.Helper()
	dir := t.TempDir()
	kubeconfig := `apiVersion: v1
kind: Config
clusters: [{name: kplane, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: admin, user: {token: admin-token}}]
contexts: [{name: kplane, context: {cluster: kplane, user: admin}}]
current-context: kplane
`
	if err := os.WriteFile(filepath.Join(dir, "kubeconfig"), []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, j := range journals {
		srv := httptest.NewServer(j.Handler(nil, false))
		t.Cleanup(srv.Close)
		ep := debug.Endpoint{Component: j.Component(), URL: srv.URL, PID: os.Getpid()}
		if err := debug.WriteEndpoint(debug.EndpointFile(dir, j.Component()), ep); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// newPanelServer serves a Server that reaches the debug APIs announced in
// dataDir.
func newPanelServer(t *testing.T, dataDir string) *httptest.Server {
	t.Helper()
	s := &Server{opts: Options{DataDir: dataDir}, hub: NewHub(), auth: NewAuthenticator(testAdminToken), queueHistory: debug.NewQueueHistoryReader(queuesPerQueue)}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts
}

func getQueues(t *testing.T, url string) queuesAnswer {
	t.Helper()
	resp := get(t, url, bearer(testAdminToken))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	var answer queuesAnswer
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		t.Fatal(err)
	}
	return answer
}

// passageStates is each passage as "queue key: state state …".
func passageStates(passages []debug.KeyPassage) []string {
	var out []string
	for _, p := range passages {
		var states []string
		for _, s := range p.Steps {
			states = append(states, s.State)
		}
		out = append(out, p.Queue+" "+p.Key+": "+strings.Join(states, " "))
	}
	return out
}

// The panel shows what `ctl queues` shows, and each key's passage read
// from the journal — a key a worker took and released between two polls
// included; the next poll reads only the records added since.
func TestQueuesPanelShowsTheLiveSetsAndEachKeysPassage(t *testing.T) {
	cm := debug.NewJournal("controller-manager", 100, nil)
	newQueue := func(name string) *workqueue.Queue[string] {
		q := workqueue.New(workqueue.Options[string]{Name: name, Journal: cm, Trace: informer.Tracer(cm.Trace).QueueTrace(name)})
		t.Cleanup(q.ShutDown)
		return q
	}
	deployments, replicaSets := newQueue("deployment"), newQueue("replicaset")
	ts := newPanelServer(t, fakeClusterDir(t, cm, debug.NewJournal("kubelet-node1", 10, nil)))

	deployments.Add("default/ng-dep")
	replicaSets.Add("default/ng-dep-1")
	first := getQueues(t, ts.URL+"/api/debug/queues")
	if len(first.Components) != 2 || first.Components[0].Component != "controller-manager" ||
		len(first.Components[0].Queues) != 2 || first.Components[0].Queues[0].Depth != 1 {
		t.Fatalf("components = %+v, want the controller-manager's two queues, one key deep, and the kubelet", first.Components)
	}
	if got := passageStates(first.Passages); strings.Join(got, "; ") != "deployment default/ng-dep: queue; replicaset default/ng-dep-1: queue" {
		t.Errorf("first passages = %q", got)
	}

	key, _ := deployments.Get()
	deployments.Done(key)
	second := getQueues(t, ts.URL+"/api/debug/queues?queue=deployment")
	if got := passageStates(second.Passages); strings.Join(got, "; ") != "deployment default/ng-dep: queue processing done" {
		t.Errorf("deployment's passages after a worker's Get and Done = %q, want queue processing done", got)
	}
	if second.Components[0].Queues[0].Depth != 0 {
		t.Errorf("deployment's depth = %d after the key was done, want 0", second.Components[0].Queues[0].Depth)
	}
}

func TestPanelsAnswerServiceUnavailableWithoutDebugAPIs(t *testing.T) {
	ts := newPanelServer(t, t.TempDir())
	for _, path := range []string{"/api/debug/queues", "/api/debug/leases"} {
		resp := get(t, ts.URL+path, bearer(testAdminToken))
		var status struct{ Kind, Reason, Message string }
		if err := json.NewDecoder(resp.Body).Decode(&status); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusServiceUnavailable || status.Kind != "Status" || !strings.Contains(status.Message, "is a cluster running there") {
			t.Errorf("%s: %d %+v, want 503 and a Status saying no cluster announced a debug API", path, resp.StatusCode, status)
		}
		if resp := get(t, ts.URL+path, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without credentials: %d, want 401", path, resp.StatusCode)
		}
	}
}
