package serviceaccount

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/events"
	"kplane/pkg/informer"
)

// These tests follow sample-controller's fixture pattern: put objects in
// the informers' caches by hand, run one sync, and compare the API requests
// the controller made with the expected ones. The "apiserver" is an
// httptest server that records each request and answers creates as told.

// fakeAPI records requests and answers each with answerFn's code and body;
// without answerFn it answers 201 with the object it was sent.
type fakeAPI struct {
	mu       sync.Mutex
	actions  []string // e.g. "POST /api/v1/namespaces/team-a/serviceaccounts default"
	answerFn func(sa *api.ServiceAccount) (int, any)
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	action := r.Method + " " + r.URL.Path
	var sa api.ServiceAccount
	if r.Method == http.MethodPost && json.Unmarshal(body, &sa) == nil {
		action += " " + sa.Name
	}
	f.mu.Lock()
	f.actions = append(f.actions, action)
	answer := f.answerFn
	f.mu.Unlock()

	code, out := http.StatusCreated, any(&sa)
	if answer != nil {
		code, out = answer(&sa)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(out)
}

func (f *fakeAPI) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.actions)
}

// fixture is a controller whose caches the test fills and whose client
// talks to a fakeAPI.
type fixture struct {
	api        *fakeAPI
	controller *Controller
	informers  *informer.SharedInformerFactory
}

func newFixture(t *testing.T, answer func(sa *api.ServiceAccount) (int, any)) *fixture {
	t.Helper()
	fake := &fakeAPI{answerFn: answer}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	// MaxRetries -1: a 500 must reach the controller, not be retried by
	// the client, so the test sees what the workqueue would requeue.
	c, err := client.New(&client.Config{Host: srv.URL, MaxRetries: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	factory := informer.NewSharedInformerFactory(c, 0)
	ctrl, err := New(c, factory, &events.FakeRecorder{}, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{api: fake, controller: ctrl, informers: factory}
}

// addNamespace and addServiceAccount put objects in the caches, as the
// informers would after a list.
func (f *fixture) addNamespace(t *testing.T, ns *api.Namespace) {
	t.Helper()
	if err := f.informers.Namespaces().Informer().GetIndexer().Add(ns); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) addServiceAccount(t *testing.T, namespace, name string) {
	t.Helper()
	sa := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace}}
	if err := f.informers.ServiceAccounts().Informer().GetIndexer().Add(sa); err != nil {
		t.Fatal(err)
	}
}

func activeNamespace(name string) *api.Namespace {
	return &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}, Status: api.NamespaceStatus{Phase: api.NamespaceActive}}
}

func statusAnswer(err *apierrors.StatusError) func(*api.ServiceAccount) (int, any) {
	return func(*api.ServiceAccount) (int, any) {
		s := err.Status()
		return int(s.Code), s
	}
}

var saResource = apierrors.Resource{Resource: "serviceaccounts"}

func TestSync(t *testing.T) {
	const create = "POST /api/v1/namespaces/team-a/serviceaccounts default"
	now := api.Now()
	tests := []struct {
		name        string
		namespace   *api.Namespace // nil: not in the cache
		existingSAs []string
		answer      func(*api.ServiceAccount) (int, any)
		wantActions []string
		wantErr     bool
	}{
		{name: "new namespace gets default", namespace: activeNamespace("team-a"),
			wantActions: []string{create}},
		{name: "default already there: no request", namespace: activeNamespace("team-a"), existingSAs: []string{"default"}},
		{name: "another account does not stand in for default", namespace: activeNamespace("team-a"), existingSAs: []string{"builder"},
			wantActions: []string{create}},
		{name: "terminating namespace: no request",
			namespace: &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-a", DeletionTimestamp: &now}, Status: api.NamespaceStatus{Phase: api.NamespaceTerminating}}},
		{name: "namespace gone: no request, no error"},
		{name: "AlreadyExists is success (stale cache or a second leader)", namespace: activeNamespace("team-a"),
			answer:      statusAnswer(apierrors.NewAlreadyExists(saResource, "default")),
			wantActions: []string{create}},
		{name: "refused by NamespaceLifecycle (namespace terminating): not retried", namespace: activeNamespace("team-a"),
			answer:      statusAnswer(apierrors.NewNamespaceTerminating(saResource, "default", "team-a")),
			wantActions: []string{create}},
		{name: "namespace gone at the apiserver: not retried", namespace: activeNamespace("team-a"),
			answer:      statusAnswer(apierrors.NewNotFound(apierrors.Resource{Resource: "namespaces"}, "team-a")),
			wantActions: []string{create}},
		{name: "another Forbidden is returned for a retry", namespace: activeNamespace("team-a"),
			answer:      statusAnswer(apierrors.NewForbidden(saResource, "default", errors.New("quota exceeded"))),
			wantActions: []string{create}, wantErr: true},
		{name: "a server error is returned for a retry", namespace: activeNamespace("team-a"),
			answer:      statusAnswer(apierrors.NewInternalError(errors.New("etcd is down"))),
			wantActions: []string{create}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.answer)
			if tt.namespace != nil {
				f.addNamespace(t, tt.namespace)
			}
			for _, name := range tt.existingSAs {
				f.addServiceAccount(t, "team-a", name)
			}
			err := f.controller.sync(context.Background(), "team-a")
			if (err != nil) != tt.wantErr {
				t.Fatalf("sync error = %v, want error: %v", err, tt.wantErr)
			}
			if got := f.api.recorded(); !slices.Equal(got, tt.wantActions) {
				t.Fatalf("API requests = %q, want %q", got, tt.wantActions)
			}
		})
	}
}

// Running sync twice changes nothing the second time once the cache has
// caught up with the first sync's create.
func TestSyncIsIdempotent(t *testing.T) {
	f := newFixture(t, nil)
	f.addNamespace(t, activeNamespace("team-a"))
	if err := f.controller.sync(context.Background(), "team-a"); err != nil {
		t.Fatal(err)
	}
	f.addServiceAccount(t, "team-a", "default") // the watch event of the create
	if err := f.controller.sync(context.Background(), "team-a"); err != nil {
		t.Fatal(err)
	}
	if got := f.api.recorded(); len(got) != 1 {
		t.Fatalf("API requests = %q, want exactly one create", got)
	}
}

// The handlers only turn events into namespace keys.
func TestHandlersEnqueueNamespaces(t *testing.T) {
	sa := func(namespace, name string) *api.ServiceAccount {
		return &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace}}
	}
	tests := []struct {
		name  string
		event func(c *Controller)
		want  []string
	}{
		{"namespace added", func(c *Controller) { c.namespaceAdded(activeNamespace("team-a")) }, []string{"team-a"}},
		{"default deleted", func(c *Controller) { c.serviceAccountDeleted(sa("team-b", "default")) }, []string{"team-b"}},
		{"default deleted, seen as a tombstone", func(c *Controller) {
			c.serviceAccountDeleted(informer.DeletedFinalStateUnknown{Key: "team-c/default", Obj: sa("team-c", "default")})
		}, []string{"team-c"}},
		{"another account deleted: nothing to recreate", func(c *Controller) { c.serviceAccountDeleted(sa("team-b", "builder")) }, nil},
		{"not a ServiceAccount: ignored", func(c *Controller) { c.serviceAccountDeleted("garbage") }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			tt.event(f.controller)
			queue, _, _ := f.controller.queue.Debug()
			if !slices.Equal(queue, tt.want) {
				t.Fatalf("queue = %v, want %v", queue, tt.want)
			}
		})
	}
}
