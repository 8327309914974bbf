package ui

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"kplane/pkg/client"
	"kplane/pkg/debug"
)

// newEtcdPanelServer serves the ui over a fake apiserver that answers the
// etcd debug routes from fixed data, the keys in two pages.
func newEtcdPanelServer(t *testing.T) *httptest.Server {
	t.Helper()
	ts, _ := newEtcdPanelServerAndHub(t)
	return ts
}

// newEtcdPanelServerAndHub is newEtcdPanelServer, with the Server whose Hub
// and feed a test fills.
func newEtcdPanelServerAndHub(t *testing.T) (*httptest.Server, *Server) {
	t.Helper()
	fake := http.NewServeMux()
	fake.HandleFunc(debug.PathEtcdKeys, func(w http.ResponseWriter, r *http.Request) {
		page := debug.EtcdKeyList{Prefix: r.URL.Query().Get("prefix"), Revision: 42}
		if r.URL.Query().Get("continue") == "" {
			page.Keys = []debug.EtcdKey{{Key: "/registry/deployments/default/ng-dep", ModRevision: 40}, {Key: "/registry/namespaces/default", ModRevision: 3}}
			page.Continue = "next"
		} else {
			page.Keys = []debug.EtcdKey{{Key: "/registry/pods/default/a", ModRevision: 41}, {Key: "/registry/pods/default/b", ModRevision: 42}}
		}
		writeJSON(w, page)
	})
	fake.HandleFunc(debug.PathEtcdHistory, func(w http.ResponseWriter, r *http.Request) {
		switch key := r.URL.Query().Get("key"); key {
		case "/registry/deployments/default/ng-dep":
		case "/registry/examples.kplane.dev/websites/default/hello":
			writeJSON(w, debug.EtcdHistory{Key: key, Revision: 42, Revisions: []debug.EtcdRevision{
				{Revision: 41, ResourceVersion: "41", Event: debug.EtcdCreate, Version: 1, Value: json.RawMessage(`{}`), ValueSize: 2}}})
			return
		default:
			debug.WriteStatus(w, http.StatusNotFound, "NotFound", "no such key")
			return
		}
		writeJSON(w, debug.EtcdHistory{Key: "/registry/deployments/default/ng-dep", Revision: 42, Revisions: []debug.EtcdRevision{
			{Revision: 30, ResourceVersion: "30", Event: debug.EtcdCreate, Version: 1, Value: json.RawMessage(`{"spec":{"replicas":1}}`), ValueSize: 23},
			{Revision: 40, ResourceVersion: "40", Event: debug.EtcdUpdate, Version: 2, Value: json.RawMessage(`{"spec":{"replicas":3}}`), ValueSize: 23},
		}})
	})
	apiserver := httptest.NewServer(fake)
	t.Cleanup(apiserver.Close)
	c, err := client.New(&client.Config{Host: apiserver.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	hub := NewHub()
	s := &Server{hub: hub, feed: &objectFeed{hub: hub}, auth: NewAuthenticator(testAdminToken), opts: Options{Client: c}}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts, s
}

// The page asks for a selected object's history by uid: the server knows
// its key, and for a custom resource that key has the group in it.
func TestEtcdHistoryOfACustomResourceByUID(t *testing.T) {
	ts, s := newEtcdPanelServerAndHub(t)
	s.feed.segments.Store("examples.kplane.dev/v1 Website", "examples.kplane.dev/websites")
	s.hub.Upsert("Website", map[string]any{"apiVersion": "examples.kplane.dev/v1",
		"metadata": map[string]any{"uid": "u-site", "namespace": "default", "name": "hello"}})
	resp := get(t, ts.URL+"/api/debug/etcd/history?uid=u-site", bearer(testAdminToken))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var view etcdHistoryView
	if err := json.NewDecoder(resp.Body).Decode(&view); err != nil {
		t.Fatal(err)
	}
	if view.Key != "/registry/examples.kplane.dev/websites/default/hello" || len(view.Revisions) != 1 {
		t.Fatalf("history of key %q with %d revisions; want the custom resource's key, with its group, and 1", view.Key, len(view.Revisions))
	}
	if resp := get(t, ts.URL+"/api/debug/etcd/history?uid=unknown", bearer(testAdminToken)); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("an unknown uid answered %d, want 404", resp.StatusCode)
	}
}

func TestEtcdKeysListsEveryPageWithCountsPerResource(t *testing.T) {
	ts := newEtcdPanelServer(t)
	resp := get(t, ts.URL+"/api/debug/etcd/keys", bearer(testAdminToken))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var view etcdKeysView
	if err := json.NewDecoder(resp.Body).Decode(&view); err != nil {
		t.Fatal(err)
	}
	if view.Revision != 42 || len(view.Keys) != 4 || view.Continue != "" {
		t.Fatalf("revision %d, %d keys, continue %q; want 42, 4, none", view.Revision, len(view.Keys), view.Continue)
	}
	want := []etcdPrefixCount{{"/registry/deployments/", 1}, {"/registry/namespaces/", 1}, {"/registry/pods/", 2}}
	if len(view.Prefixes) != len(want) {
		t.Fatalf("prefixes %v, want %v", view.Prefixes, want)
	}
	for i := range want {
		if view.Prefixes[i] != want[i] {
			t.Errorf("prefix %d = %v, want %v", i, view.Prefixes[i], want[i])
		}
	}
}

func TestEtcdHistoryExplainsEachRevision(t *testing.T) {
	ts := newEtcdPanelServer(t)
	resp := get(t, ts.URL+"/api/debug/etcd/history?key=/registry/deployments/default/ng-dep", bearer(testAdminToken))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var view etcdHistoryView
	if err := json.NewDecoder(resp.Body).Decode(&view); err != nil {
		t.Fatal(err)
	}
	want := []string{"(created, 23 bytes)", "spec.replicas: 1 → 3"}
	if len(view.Changes) != 2 || view.Changes[0] != want[0] || view.Changes[1] != want[1] {
		t.Errorf("changes %q, want %q", view.Changes, want)
	}
	if view.Revisions[1].ResourceVersion != "40" {
		t.Errorf("resourceVersion %q, want 40", view.Revisions[1].ResourceVersion)
	}
}

func TestEtcdPanelRefusesBadInputWithStatus(t *testing.T) {
	ts := newEtcdPanelServer(t)
	for _, tt := range []struct {
		path string
		code int
	}{
		{"/api/debug/etcd/history", http.StatusBadRequest},
		{"/api/debug/etcd/history?key=/etc/passwd", http.StatusBadRequest},
		{"/api/debug/etcd/keys?prefix=/other/", http.StatusBadRequest},
		{"/api/debug/etcd/history?key=/registry/pods/default/gone", http.StatusNotFound},
	} {
		resp := get(t, ts.URL+tt.path, bearer(testAdminToken))
		var st struct{ Kind, Reason string }
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			t.Fatalf("%s: not a Status: %v", tt.path, err)
		}
		if resp.StatusCode != tt.code || st.Kind != "Status" {
			t.Errorf("%s: %d %q, want %d Status", tt.path, resp.StatusCode, st.Kind, tt.code)
		}
	}
	if resp := get(t, ts.URL+"/api/debug/etcd/keys", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without credentials: %d, want 401", resp.StatusCode)
	}
}

func TestResourcePrefix(t *testing.T) {
	for key, want := range map[string]string{
		"/registry/pods/default/a":                       "/registry/pods/",
		"/registry/namespaces/default":                   "/registry/namespaces/",
		"/registry/examples.kplane.dev/websites/ns/site": "/registry/examples.kplane.dev/websites/",
		"/registry/odd":                                  "/registry/",
	} {
		if got := resourcePrefix(key); got != want {
			t.Errorf("resourcePrefix(%q) = %q, want %q", key, got, want)
		}
	}
}
