package ui

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kplane/pkg/client"
	"kplane/pkg/debug"
)

// newTimelinePanelServer serves the ui over a fake cluster: the
// components' journals (fakeCluster) and a fake apiserver that lists one
// Event and answers the etcd history of the Deployment web.
func newTimelinePanelServer(t *testing.T) (*Server, *httptest.Server, map[string]*debug.Journal) {
	t.Helper()
	fake := http.NewServeMux()
	fake.HandleFunc("/api/v1/events", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"apiVersion": "v1", "kind": "EventList", "metadata": map[string]any{}, "items": []any{
			map[string]any{"metadata": map[string]any{"name": "web.1", "namespace": "default", "uid": "u-ev", "resourceVersion": "14"},
				"involvedObject": map[string]any{"kind": "Deployment", "namespace": "default", "name": "web", "uid": "u-dep"},
				"reason":         "ScalingReplicaSet", "message": "Scaled up replica set web-5d8 to 1", "type": "Normal",
				"source": map[string]any{"component": "deployment-controller"}, "count": 1,
				"lastTimestamp": "2999-01-01T00:00:00Z"},
		}})
	})
	fake.HandleFunc(debug.PathEtcdHistory, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("key") != "/registry/deployments/default/web" {
			debug.WriteStatus(w, http.StatusNotFound, "NotFound", "no such key")
			return
		}
		writeJSON(w, debug.EtcdHistory{Key: "/registry/deployments/default/web", Revision: 42, CompactRevision: 5, Revisions: []debug.EtcdRevision{
			{Revision: 10, ResourceVersion: "10", Event: debug.EtcdCreate, Value: json.RawMessage(`{"spec":{"replicas":1}}`)},
			{Revision: 20, ResourceVersion: "20", Event: debug.EtcdUpdate, Value: json.RawMessage(`{"spec":{"replicas":3}}`)},
		}})
	})
	apiserver := httptest.NewServer(fake)
	t.Cleanup(apiserver.Close)
	c, err := client.New(&client.Config{Host: apiserver.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	dataDir, journals := fakeCluster(t, "apiserver", "controller-manager")
	s := &Server{hub: NewHub(), auth: NewAuthenticator(testAdminToken), opts: Options{Client: c, DataDir: dataDir}}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts, journals
}

func TestTimelineMergesWritesAndEventsAndFollowsAnObject(t *testing.T) {
	s, ts, journals := newTimelinePanelServer(t)
	s.hub.Upsert("Deployment", map[string]any{"metadata": map[string]any{"uid": "u-dep", "namespace": "default", "name": "web"}})
	api, cm := journals["apiserver"], journals["controller-manager"]
	api.Add(debug.Record{Type: debug.TypeWrite, Stage: "create", Actor: "admin", Resource: "deployments.apps", Key: "default/web", UID: "u-dep", ResourceVersion: "10"})
	cm.Add(debug.Record{Type: debug.TypeWrite, Stage: "create", Actor: "deployment", Resource: "replicasets.apps", Key: "default/web-5d8", UID: "u-rs", Owners: []string{"u-dep"}, ResourceVersion: "11"})
	api.Add(debug.Record{Type: debug.TypeWrite, Stage: "create", Actor: "system:kube-controller-manager", Resource: "replicasets.apps", Key: "default/web-5d8", UID: "u-rs", Owners: []string{"u-dep"}, ResourceVersion: "11"})
	api.Add(debug.Record{Type: debug.TypeWrite, Stage: "create", Actor: "admin", Resource: "configmaps", Key: "default/unrelated", UID: "u-cm", ResourceVersion: "13"})

	summary := func(answer timelineAnswer) string {
		var got []string
		for _, e := range answer.Entries {
			got = append(got, e.Kind+" "+e.Who()+" "+e.What()+" "+e.Object()+" "+e.ResourceVersion)
		}
		return strings.Join(got, "\n")
	}
	var all timelineAnswer
	if code := getJSON(t, ts, "/api/debug/timeline", &all); code != http.StatusOK {
		t.Fatalf("status %d, answer %+v", code, all)
	}
	want := strings.Join([]string{
		"write admin create deployments.apps/web 10",
		"write controller-manager/deployment create replicasets.apps/web-5d8 11",
		"write admin create configmaps/unrelated 13",
		"event deployment-controller Normal ScalingReplicaSet Deployment/web ",
	}, "\n")
	if got := summary(all); got != want {
		t.Errorf("timeline:\n%s\nwant:\n%s", got, want)
	}
	if all.Limit != 500 || len(all.Warnings) != 0 {
		t.Errorf("limit %d warnings %q, want 500 and none", all.Limit, all.Warnings)
	}

	var followed timelineAnswer
	getJSON(t, ts, "/api/debug/timeline?uid=u-dep&kinds=write", &followed)
	want = "write admin create deployments.apps/web 10\nwrite controller-manager/deployment create replicasets.apps/web-5d8 11"
	if got := summary(followed); got != want || followed.Object != "deployments.apps/default/web" {
		t.Errorf("the Deployment's writes (object %q):\n%s\nwant:\n%s", followed.Object, got, want)
	}
}

func TestTimelineStateShowsTheObjectAsOfAWrite(t *testing.T) {
	_, ts, _ := newTimelinePanelServer(t)
	var state objectStateAnswer
	if code := getJSON(t, ts, "/api/debug/timeline/state?key=/registry/deployments/default/web&rv=10", &state); code != http.StatusOK {
		t.Fatalf("status %d, answer %+v", code, state)
	}
	if !strings.Contains(state.YAML, "replicas: 1") || state.Event != "create" || state.PreviousResourceVersion != "" {
		t.Errorf("as of its create: %+v, want replicas 1 and nothing before", state)
	}
	getJSON(t, ts, "/api/debug/timeline/state?key=/registry/deployments/default/web&rv=20", &state)
	var diff []string
	for _, line := range state.Diff {
		if line.Op != " " {
			diff = append(diff, line.Op+line.Text)
		}
	}
	if !strings.Contains(state.YAML, "replicas: 3") || state.PreviousResourceVersion != "10" ||
		strings.Join(diff, "|") != "-  replicas: 1|+  replicas: 3" {
		t.Errorf("as of the scale: %+v, diff %q; want replicas 3, from 10, one line changed", state, diff)
	}

	for _, tt := range []struct {
		path   string
		code   int
		reason string
	}{
		{"/api/debug/timeline/state?key=/registry/deployments/default/web&rv=3", http.StatusGone, "Expired"},
		{"/api/debug/timeline/state?key=/registry/deployments/default/web&rv=15", http.StatusNotFound, "NotFound"},
		{"/api/debug/timeline/state?key=/registry/deployments/default/gone&rv=15", http.StatusNotFound, "NotFound"},
		{"/api/debug/timeline/state?key=/elsewhere&rv=15", http.StatusBadRequest, "BadRequest"},
		{"/api/debug/timeline/state?key=/registry/deployments/default/web&rv=x", http.StatusBadRequest, "BadRequest"},
		{"/api/debug/timeline?kinds=decision", http.StatusBadRequest, "BadRequest"},
		{"/api/debug/timeline?uid=nope", http.StatusNotFound, "NotFound"},
	} {
		var status struct{ Kind, Reason, Message string }
		if code := getJSON(t, ts, tt.path, &status); code != tt.code || status.Kind != "Status" || status.Reason != tt.reason {
			t.Errorf("GET %s: %d %+v, want %d a Status with reason %s", tt.path, code, status, tt.code, tt.reason)
		}
	}
}

func TestTimelineWithoutDebugAPIsIsUnavailable(t *testing.T) {
	s, ts := newTestServer(t)
	s.opts.DataDir = t.TempDir()
	var status struct{ Kind, Reason string }
	if code := getJSON(t, ts, "/api/debug/timeline", &status); code != http.StatusServiceUnavailable || status.Reason != "ServiceUnavailable" {
		t.Errorf("no cluster: %d %+v, want 503 ServiceUnavailable", code, status)
	}
}
