package ui

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"kplane/pkg/debug"
)

// fakeCluster is a data dir as a cluster leaves it for the debug verbs:
// the admin kubeconfig, and an endpoint file per component whose debug API
// serves a real journal the test fills.
func fakeCluster(t *testing.T, components ...string) (dataDir string, journals map[string]*debug.Journal) {
	t.Helper()
	dataDir = t.TempDir()
	kubeconfig := `apiVersion: v1
kind: Config
clusters: [{name: kplane, cluster: {server: "http://127.0.0.1:1"}}]
users: [{name: admin, user: {token: ` + testAdminToken + `}}]
contexts: [{name: kplane, context: {cluster: kplane, user: admin}}]
current-context: kplane
`
	if err := os.WriteFile(filepath.Join(dataDir, "kubeconfig"), []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	journals = map[string]*debug.Journal{}
	for _, component := range components {
		j := debug.NewJournal(component, 100, nil)
		srv := httptest.NewServer(j.Handler(nil, false))
		t.Cleanup(srv.Close)
		ep := debug.Endpoint{Component: component, URL: srv.URL, PID: os.Getpid()}
		if err := debug.WriteEndpoint(debug.EndpointFile(dataDir, component), ep); err != nil {
			t.Fatal(err)
		}
		journals[component] = j
	}
	return dataDir, journals
}

// getJSON GETs path with the admin token and decodes the answer into v,
// returning the status code.
func getJSON(t *testing.T, ts *httptest.Server, path string, v any) int {
	t.Helper()
	resp := get(t, ts.URL+path, bearer(testAdminToken))
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: decode: %v", path, err)
	}
	return resp.StatusCode
}

func TestWhyShowsEachActorsLatestDecisionAndTheSchedulersNodeTable(t *testing.T) {
	s, ts := newTestServer(t)
	dataDir, journals := fakeCluster(t, "controller-manager", "scheduler")
	s.opts.DataDir = dataDir
	s.hub.Upsert("Pod", map[string]any{"metadata": map[string]any{"uid": "u-pod", "namespace": "default", "name": "web-1"}})

	cm := journals["controller-manager"]
	cm.Decision(debug.Decision{Actor: "replicaset", Resource: "pods", Key: "default/web-1", Message: "older"})
	cm.Decision(debug.Decision{Actor: "replicaset", Resource: "pods", Key: "default/web-1", Message: "newer"})
	cm.Decision(debug.Decision{Actor: "replicaset", Resource: "pods", Key: "default/other", Message: "another pod"})
	journals["scheduler"].Decision(debug.Decision{Actor: "scheduler", Resource: "pods", Key: "default/web-1",
		Message: "node2: TaintToleration 100×3 = 300, chosen of 1 feasible",
		Lines: []string{
			"node1: filtered out by NodeResourcesFit: Insufficient cpu",
			"node2: feasible: TaintToleration 100×3 = 300, chosen",
			"plugin NodeResourcesFit mirrors upstream pkg/scheduler/framework/plugins/noderesources/fit.go",
		},
		Source: "pkg/scheduler/schedule_one.go"})

	var answer whyAnswer
	if code := getJSON(t, ts, "/api/debug/why/u-pod", &answer); code != http.StatusOK {
		t.Fatalf("status %d, answer %+v", code, answer)
	}
	if answer.Resource != "pods" || answer.Key != "default/web-1" {
		t.Errorf("object %s %s, want pods default/web-1", answer.Resource, answer.Key)
	}
	if len(answer.Decisions) != 2 {
		t.Fatalf("decisions %+v, want the replicaset's latest and the scheduler's", answer.Decisions)
	}
	byActor := map[string]decisionView{}
	for _, d := range answer.Decisions {
		byActor[d.Actor] = d
	}
	if got := byActor["replicaset"].Message; got != "newer" {
		t.Errorf("replicaset decision %q, want its latest, %q", got, "newer")
	}
	sched := byActor["scheduler"]
	if len(sched.Nodes) != 2 || sched.Nodes[0].FilteredBy != "NodeResourcesFit" || !sched.Nodes[1].Chosen || sched.Nodes[1].Total != 300 {
		t.Errorf("scheduler's node table %+v, want node1 rejected by NodeResourcesFit and node2 chosen with 300", sched.Nodes)
	}
	if len(sched.Notes) != 1 {
		t.Errorf("scheduler's notes %q, want the plugin's upstream file", sched.Notes)
	}
}

func TestTraceFollowsTheObjectAndWhatItOwnsInTimeOrder(t *testing.T) {
	s, ts := newTestServer(t)
	dataDir, journals := fakeCluster(t, "apiserver", "controller-manager")
	s.opts.DataDir = dataDir
	s.hub.Upsert("Deployment", map[string]any{"metadata": map[string]any{"uid": "u-dep", "namespace": "default", "name": "web"}})

	api, cm := journals["apiserver"], journals["controller-manager"]
	api.Add(debug.Record{Type: debug.TypeWrite, Stage: "create", Resource: "deployments.apps", Key: "default/web", UID: "u-dep", ResourceVersion: "10"})
	cm.Add(debug.Record{Type: debug.TypeTrace, Stage: "enqueue", Actor: "deployment", Key: "default/web"})
	cm.Decision(debug.Decision{Actor: "deployment", Resource: "deployments.apps", Key: "default/web", UID: "u-dep", Message: "scale up"})
	api.Add(debug.Record{Type: debug.TypeWrite, Stage: "create", Resource: "replicasets.apps", Key: "default/web-5d8", UID: "u-rs", Owners: []string{"u-dep"}, ResourceVersion: "11"})
	api.Add(debug.Record{Type: debug.TypeWrite, Stage: "create", Resource: "pods", Key: "default/web-5d8-x", UID: "u-pod", Owners: []string{"u-rs"}, ResourceVersion: "12"})
	api.Add(debug.Record{Type: debug.TypeWrite, Stage: "create", Resource: "configmaps", Key: "default/unrelated", UID: "u-cm", ResourceVersion: "13"})

	var answer traceAnswer
	if code := getJSON(t, ts, "/api/debug/trace/u-dep", &answer); code != http.StatusOK {
		t.Fatalf("status %d, answer %+v", code, answer)
	}
	var got []string
	for _, step := range answer.Steps {
		got = append(got, step.Component+" "+step.Stage+" "+step.Object+" "+step.ResourceVersion)
	}
	want := []string{
		"apiserver create deployments.apps/web 10",
		"controller-manager enqueue web ",
		"controller-manager decision deployments.apps/web ",
		"apiserver create replicasets.apps/web-5d8 11",
		"apiserver create pods/web-5d8-x 12",
	}
	if len(got) != len(want) {
		t.Fatalf("steps:\n%q\nwant:\n%q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestDebugPanelsAnswerWithAStatus(t *testing.T) {
	s, ts := newTestServer(t)
	s.opts.DataDir = t.TempDir() // no cluster announces a debug API there
	s.hub.Upsert("Pod", map[string]any{"metadata": map[string]any{"uid": "u-pod", "namespace": "default", "name": "web-1"}})
	for _, tt := range []struct {
		path   string
		code   int
		reason string
	}{
		{"/api/debug/why/nope", http.StatusNotFound, "NotFound"},
		{"/api/debug/trace/nope", http.StatusNotFound, "NotFound"},
		{"/api/debug/why/u-pod", http.StatusServiceUnavailable, "ServiceUnavailable"},
		{"/api/debug/trace/u-pod", http.StatusServiceUnavailable, "ServiceUnavailable"},
	} {
		var status struct{ Kind, Reason string }
		if code := getJSON(t, ts, tt.path, &status); code != tt.code || status.Kind != "Status" || status.Reason != tt.reason {
			t.Errorf("GET %s: %d %+v, want %d a Status with reason %s", tt.path, code, status, tt.code, tt.reason)
		}
	}
	if resp := get(t, ts.URL+"/api/debug/why/u-pod", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without credentials: %d, want 401", resp.StatusCode)
	}
}
