package namespace

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/events"
	"kplane/pkg/informer"
)

// fakeAPI is a tiny stand-in for the apiserver that holds one namespace
// and, per resource path ("pods", "deployments"…), the objects in it. It
// deletes the way kplane's apiserver does: a DELETE of a collection
// removes every object except those held by a finalizer and pods already
// marked for graceful deletion. It records every request as "METHOD path".
type fakeAPI struct {
	mu        sync.Mutex
	namespace *api.Namespace
	objects   map[string][]map[string]any
	actions   []string
	rv        int
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.actions = append(f.actions, r.Method+" "+r.URL.Path)
	body, _ := io.ReadAll(r.Body)
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	// parts: api v1 namespaces <ns> [<resource> | status | finalize]
	//    or: apis <group> <version> namespaces <ns> <resource>
	i := slices.Index(parts, "namespaces")
	rest := parts[i+1:]
	switch {
	case len(rest) == 1 && r.Method == http.MethodGet:
		writeJSONResponse(w, f.namespace)
	case len(rest) == 2 && (rest[1] == "status" || rest[1] == "finalize") && r.Method == http.MethodPut:
		var in api.Namespace
		_ = json.Unmarshal(body, &in)
		if in.ResourceVersion != f.namespace.ResourceVersion {
			http.Error(w, `{"kind":"Status","status":"Failure","reason":"Conflict","code":409}`, http.StatusConflict)
			return
		}
		if rest[1] == "status" {
			f.namespace.Status = in.Status
		} else {
			f.namespace.Spec.Finalizers = in.Spec.Finalizers
		}
		f.rv++
		f.namespace.ResourceVersion = strconv.Itoa(f.rv)
		writeJSONResponse(w, f.namespace)
	case len(rest) == 2 && r.Method == http.MethodDelete:
		var kept []map[string]any
		for _, item := range f.objects[rest[1]] {
			meta := item["metadata"].(map[string]any)
			if meta["finalizers"] != nil || meta["deletionTimestamp"] != nil {
				kept = append(kept, item)
			}
		}
		f.objects[rest[1]] = kept
		writeJSONResponse(w, map[string]any{"kind": "Status", "status": "Success"})
	case len(rest) == 2 && r.Method == http.MethodGet:
		items := f.objects[rest[1]]
		if items == nil {
			items = []map[string]any{}
		}
		writeJSONResponse(w, map[string]any{"metadata": map[string]any{}, "items": items})
	default:
		http.Error(w, `{"kind":"Status","status":"Failure","reason":"NotFound","code":404}`, http.StatusNotFound)
	}
}

func writeJSONResponse(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// did reports whether an action was recorded.
func (f *fakeAPI) did(action string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.actions, action)
}

// fixture is a controller wired to a fakeAPI, with the namespace in its
// lister's cache and a fake clock, so one sync runs with no goroutines of
// its own and no waiting.
type fixture struct {
	api   *fakeAPI
	ctrl  *Controller
	clock *clock.Fake
}

var fixtureNow = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

func newFixture(t *testing.T, ns *api.Namespace, objects map[string][]map[string]any) *fixture {
	t.Helper()
	fake := &fakeAPI{namespace: ns, objects: objects}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	c, err := client.New(&client.Config{Host: srv.URL, MaxRetries: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(fixtureNow)
	factory := informer.NewSharedInformerFactory(c, 0)
	ctrl, err := New(c, factory, &events.FakeRecorder{}, Options{Logger: slog.New(slog.DiscardHandler), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	if err := factory.Namespaces().Informer().GetIndexer().Add(api.DeepCopy(ns)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{api: fake, ctrl: ctrl, clock: clk}
}

func terminatingNamespace(name string) *api.Namespace {
	deleted := api.NewTime(fixtureNow)
	return &api.Namespace{
		TypeMeta:   api.TypeMeta{Kind: "Namespace", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: name, UID: "uid-" + name, ResourceVersion: "1", DeletionTimestamp: &deleted},
		Spec:       api.NamespaceSpec{Finalizers: []string{api.FinalizerKubernetes}},
		Status:     api.NamespaceStatus{Phase: api.NamespaceTerminating},
	}
}

func object(name string, meta map[string]any) map[string]any {
	m := map[string]any{"name": name}
	for k, v := range meta {
		m[k] = v
	}
	return map[string]any{"metadata": m}
}

// An empty-able namespace is emptied and finalized in one sync.
func TestSyncDeletesContentAndFinalizes(t *testing.T) {
	f := newFixture(t, terminatingNamespace("shop"), map[string][]map[string]any{
		"configmaps":  {object("settings", nil)},
		"deployments": {object("web", nil)},
		"pods":        {object("unscheduled", nil)},
	})
	if err := f.ctrl.sync(context.Background(), "shop"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	for _, want := range []string{
		"DELETE /api/v1/namespaces/shop/pods",
		"DELETE /api/v1/namespaces/shop/configmaps",
		"DELETE /apis/apps/v1/namespaces/shop/deployments",
		"DELETE /api/v1/namespaces/shop/events",
		"PUT /api/v1/namespaces/shop/status",
		"PUT /api/v1/namespaces/shop/finalize",
	} {
		if !f.api.did(want) {
			t.Errorf("missing action %q; actions: %v", want, f.api.actions)
		}
	}
	if got := f.api.namespace.Spec.Finalizers; len(got) != 0 {
		t.Errorf("spec.finalizers after sync = %v, want none", got)
	}
	c := findCondition(f.api.namespace.Status.Conditions, api.NamespaceContentRemaining)
	if c == nil || c.Status != api.ConditionFalse || c.Message != "All content successfully removed" {
		t.Errorf("NamespaceContentRemaining = %+v, want False/All content successfully removed", c)
	}
	if waiting := f.ctrl.queue.Waiting(); len(waiting) != 0 {
		t.Errorf("queue waiting = %v, want nothing requeued", waiting)
	}
}

// Pods that are stopping gracefully hold the finalizer back: the sync
// reports them in the conditions and requeues the namespace, without error.
func TestSyncWaitsForTerminatingPods(t *testing.T) {
	marked := map[string]any{"deletionTimestamp": fixtureNow.Format(time.RFC3339)}
	pod := func(name string) map[string]any {
		p := object(name, marked)
		p["spec"] = map[string]any{"terminationGracePeriodSeconds": 30}
		p["status"] = map[string]any{"phase": "Running"}
		return p
	}
	f := newFixture(t, terminatingNamespace("shop"), map[string][]map[string]any{
		"pods": {pod("web-1"), pod("web-2")},
	})
	if err := f.ctrl.sync(context.Background(), "shop"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if f.api.did("PUT /api/v1/namespaces/shop/finalize") {
		t.Error("finalized while pods remain")
	}
	c := findCondition(f.api.namespace.Status.Conditions, api.NamespaceContentRemaining)
	if want := "Some resources are remaining: pods. has 2 resource instances"; c == nil || c.Status != api.ConditionTrue || c.Message != want {
		t.Errorf("NamespaceContentRemaining = %+v, want True/%q", c, want)
	}
	if waiting := f.ctrl.queue.Waiting(); !slices.Equal(waiting, []string{"shop"}) {
		t.Errorf("queue waiting = %v, want [shop] requeued after a delay", waiting)
	}

	// The "kubelet" finishes the pods; the next pass finalizes.
	f.api.mu.Lock()
	f.api.objects["pods"] = nil
	f.api.mu.Unlock()
	if err := f.ctrl.sync(context.Background(), "shop"); err != nil {
		t.Fatalf("second sync: %v", err)
	}
	if !f.api.did("PUT /api/v1/namespaces/shop/finalize") {
		t.Errorf("not finalized once empty; actions: %v", f.api.actions)
	}
}

// Objects held by a finalizer are reported per finalizer and waited for.
func TestSyncReportsFinalizersRemaining(t *testing.T) {
	f := newFixture(t, terminatingNamespace("shop"), map[string][]map[string]any{
		"configmaps": {object("held", map[string]any{"finalizers": []any{"example.com/hold"}})},
	})
	if err := f.ctrl.sync(context.Background(), "shop"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	c := findCondition(f.api.namespace.Status.Conditions, api.NamespaceFinalizersRemaining)
	if want := "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"; c == nil || c.Message != want {
		t.Errorf("NamespaceFinalizersRemaining = %+v, want %q", c, want)
	}
	if f.api.did("PUT /api/v1/namespaces/shop/finalize") {
		t.Error("finalized while a finalizer holds content")
	}
	if waiting := f.ctrl.queue.Waiting(); !slices.Equal(waiting, []string{"shop"}) {
		t.Errorf("queue waiting = %v, want [shop]", waiting)
	}
}

// Namespaces that are not being deleted, or that this controller already
// finalized, cause no writes.
func TestSyncLeavesOtherNamespacesAlone(t *testing.T) {
	active := terminatingNamespace("live")
	active.DeletionTimestamp = nil
	active.Status.Phase = api.NamespaceActive
	finalized := terminatingNamespace("done")
	finalized.Spec.Finalizers = nil

	for _, ns := range []*api.Namespace{active, finalized} {
		f := newFixture(t, ns, map[string][]map[string]any{"configmaps": {object("settings", nil)}})
		if err := f.ctrl.sync(context.Background(), ns.Name); err != nil {
			t.Fatalf("sync %s: %v", ns.Name, err)
		}
		for _, a := range f.api.actions {
			if !strings.HasPrefix(a, "GET ") {
				t.Errorf("namespace %s: unexpected write %q", ns.Name, a)
			}
		}
	}
}

// A namespace whose phase was not yet Terminating is set so first.
func TestSyncSetsTerminatingPhase(t *testing.T) {
	ns := terminatingNamespace("shop")
	ns.Status.Phase = api.NamespaceActive
	f := newFixture(t, ns, nil)
	f.api.objects = map[string][]map[string]any{}
	if err := f.ctrl.sync(context.Background(), "shop"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if f.api.actions[1] != "PUT /api/v1/namespaces/shop/status" {
		t.Errorf("second action = %q, want the phase update; actions: %v", f.api.actions[1], f.api.actions)
	}
	if f.api.namespace.Status.Phase != api.NamespaceTerminating {
		t.Errorf("phase = %s, want Terminating", f.api.namespace.Status.Phase)
	}
}

// Only namespaces marked for deletion are queued, after the grace period.
func TestHandlersEnqueueOnlyDeletedNamespaces(t *testing.T) {
	f := newFixture(t, terminatingNamespace("shop"), nil)
	live := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "live"}}
	f.ctrl.addNamespace(live)
	f.ctrl.updateNamespace(live, live)
	f.ctrl.addNamespace(terminatingNamespace("shop"))
	if waiting := f.ctrl.queue.Waiting(); !slices.Equal(waiting, []string{"shop"}) {
		t.Fatalf("waiting = %v, want [shop]", waiting)
	}
	if f.ctrl.queue.Len() != 0 {
		t.Fatalf("queue length = %d before the grace period passed, want 0", f.ctrl.queue.Len())
	}
}
