package client

import (
	"context"
	"net/http"
	"reflect"
	"sync"
	"testing"

	"kplane/pkg/api"
)

func TestParseWritePathInvertsResourcePath(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         WriteInfo
	}{
		{"POST", "/api/v1/namespaces/default/pods", WriteInfo{Verb: "create", Resource: "pods", Namespace: "default"}},
		{"POST", "/api/v1/namespaces/default/pods/web-0/binding", WriteInfo{Verb: "create", Resource: "pods", Namespace: "default", Name: "web-0", Subresource: "binding"}},
		{"PUT", "/apis/apps/v1/namespaces/default/deployments/web/status", WriteInfo{Verb: "update", Resource: "deployments.apps", Namespace: "default", Name: "web", Subresource: "status"}},
		{"PATCH", "/api/v1/nodes/node1", WriteInfo{Verb: "patch", Resource: "nodes", Name: "node1"}},
		{"PUT", "/api/v1/namespaces/team-a/finalize", WriteInfo{Verb: "update", Resource: "namespaces", Name: "team-a", Subresource: "finalize"}},
		{"PUT", "/api/v1/namespaces/team-a/status", WriteInfo{Verb: "update", Resource: "namespaces", Name: "team-a", Subresource: "status"}},
		{"DELETE", "/api/v1/namespaces/default/configmaps", WriteInfo{Verb: "deletecollection", Resource: "configmaps", Namespace: "default"}},
		{"DELETE", "/api/v1/namespaces/default/configmaps/a%20b", WriteInfo{Verb: "delete", Resource: "configmaps", Namespace: "default", Name: "a b"}},
	} {
		got, ok := parseWritePath(tc.method, tc.path)
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseWritePath(%s %s) = %+v, %v; want %+v", tc.method, tc.path, got, ok, tc.want)
		}
	}
	if _, ok := parseWritePath("POST", "/version"); ok {
		t.Errorf("parseWritePath(/version) accepted a path that names no resource")
	}
}

// writeRecorder collects what OnWrite receives.
type writeRecorder struct {
	mu     sync.Mutex
	writes []WriteInfo
}

func (w *writeRecorder) record(info WriteInfo) {
	w.mu.Lock()
	defer w.mu.Unlock()
	info.Response, info.Took = nil, 0
	w.writes = append(w.writes, info)
}

func TestOnWriteReportsAcceptedWritesOnly(t *testing.T) {
	fs := startFakeServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		switch {
		case r.Method == http.MethodGet:
			writeJSON(w, 200, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-0","namespace":"default","uid":"u-pod","resourceVersion":"7"}}`)
		case r.URL.Query().Get("dryRun") != "":
			writeJSON(w, 201, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"dry","namespace":"default"}}`)
		case r.URL.Path == "/api/v1/namespaces/default/pods" && r.Method == http.MethodPost:
			writeJSON(w, 201, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-x7k2p","namespace":"default","uid":"u-new","resourceVersion":"12",`+
				`"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"u-rs"}]}}`)
		case r.URL.Path == "/api/v1/namespaces/default/pods/web-0/binding":
			writeJSON(w, 201, `{"kind":"Status","apiVersion":"v1","status":"Success","code":201}`)
		case r.URL.Path == "/api/v1/namespaces/default/pods/taken":
			writeJSON(w, 409, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409}`)
		default:
			writeJSON(w, 404, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
		}
	}, nil)
	rec := &writeRecorder{}
	c, _ := newTestClient(t, fs, func(cfg *Config) { cfg.OnWrite = rec.record; cfg.MaxRetries = -1 })
	ctx := WithActor(context.Background(), "replicaset")
	pods := c.Pods("default")

	if _, err := pods.Get(ctx, "web-0", GetOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{GenerateName: "web-"}}
	if _, err := pods.Create(ctx, pod, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "dry"}}, CreateOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if err := c.Bind(context.Background(), &api.Binding{ObjectMeta: api.ObjectMeta{Name: "web-0", Namespace: "default"}, Target: api.ObjectReference{Kind: "Node", Name: "node1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Update(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "taken", Namespace: "default"}}, UpdateOptions{}); err == nil {
		t.Fatal("update of taken: want the Conflict")
	}

	want := []WriteInfo{
		// The create: the generated name, uid, resourceVersion and owner
		// come from the answer; the actor from the context.
		{Verb: "create", Resource: "pods", Namespace: "default", Name: "web-x7k2p", UID: "u-new", ResourceVersion: "12", Owners: []string{"u-rs"}, Actor: "replicaset"},
		// The binding answers a Status: only what the path says.
		{Verb: "create", Resource: "pods", Subresource: "binding", Namespace: "default", Name: "web-0"},
	}
	if !reflect.DeepEqual(rec.writes, want) {
		t.Errorf("OnWrite got\n%+v\nwant (no GET, no dry run, no refused write)\n%+v", rec.writes, want)
	}
}
