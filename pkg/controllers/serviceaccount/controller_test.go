package serviceaccount

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

// These tests follow sample-controller's fixture pattern: objects go into
// the fake apiserver and the informers' caches (fakeapi's Put), one sync
// runs, and the test lists the API writes the controller made
// (ExpectActions). Failures of the create are injected with FailOn.

// fixture is a controller built on a fakeapi server.
type fixture struct {
	server     *fakeapi.Server
	controller *Controller
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	server := fakeapi.New(t)
	ctrl, err := New(server.Client(), server.Informers(), &events.FakeRecorder{}, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{server: server, controller: ctrl}
}

func activeNamespace(name string) *api.Namespace {
	return &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}, Status: api.NamespaceStatus{Phase: api.NamespaceActive}}
}

func serviceAccount(namespace, name string) *api.ServiceAccount {
	return &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace}}
}

var saResource = apierrors.Resource{Resource: "serviceaccounts"}

func TestSync(t *testing.T) {
	const create = "create serviceaccounts default"
	now := api.Now()
	tests := []struct {
		name      string
		namespace *api.Namespace // nil: not in the cache
		// cached are accounts in team-a the cache (and the apiserver)
		// holds; stored are accounts only the apiserver holds yet.
		cached, stored []string
		// createFails is the error the apiserver answers the create with.
		createFails error
		wantActions []string
		wantErr     bool
	}{
		{name: "new namespace gets default", namespace: activeNamespace("team-a"),
			wantActions: []string{create}},
		{name: "default already there: no request", namespace: activeNamespace("team-a"), cached: []string{"default"}},
		{name: "another account does not stand in for default", namespace: activeNamespace("team-a"), cached: []string{"builder"},
			wantActions: []string{create}},
		{name: "terminating namespace: no request",
			namespace: &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-a", DeletionTimestamp: &now}, Status: api.NamespaceStatus{Phase: api.NamespaceTerminating}}},
		{name: "namespace gone: no request, no error"},
		{name: "AlreadyExists is success (stale cache or a second leader)", namespace: activeNamespace("team-a"),
			stored:      []string{"default"},
			wantActions: []string{create}},
		{name: "refused by NamespaceLifecycle (namespace terminating): not retried", namespace: activeNamespace("team-a"),
			createFails: apierrors.NewNamespaceTerminating(saResource, "default", "team-a"),
			wantActions: []string{create}},
		{name: "namespace gone at the apiserver: not retried", namespace: activeNamespace("team-a"),
			createFails: apierrors.NewNotFound(apierrors.Resource{Resource: "namespaces"}, "team-a"),
			wantActions: []string{create}},
		{name: "another Forbidden is returned for a retry", namespace: activeNamespace("team-a"),
			createFails: apierrors.NewForbidden(saResource, "default", errors.New("quota exceeded")),
			wantActions: []string{create}, wantErr: true},
		{name: "a server error is returned for a retry", namespace: activeNamespace("team-a"),
			createFails: apierrors.NewInternalError(errors.New("etcd is down")),
			wantActions: []string{create}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.namespace != nil {
				f.server.Put(t, tt.namespace)
			}
			for _, name := range tt.cached {
				f.server.Put(t, serviceAccount("team-a", name))
			}
			for _, name := range tt.stored {
				f.server.Add(t, serviceAccount("team-a", name))
			}
			if tt.createFails != nil {
				f.server.FailOn(fakeapi.VerbCreate, "serviceaccounts", "", tt.createFails)
			}
			err := f.controller.sync(context.Background(), "team-a")
			if (err != nil) != tt.wantErr {
				t.Fatalf("sync error = %v, want error: %v", err, tt.wantErr)
			}
			f.server.ExpectActions(t, tt.wantActions...)
		})
	}
}

// The account is created in the namespace, named "default", and nothing
// else is set on it: the apiserver fills in the rest.
func TestSyncCreatesDefaultInTheNamespace(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, activeNamespace("team-a"))
	if err := f.controller.sync(context.Background(), "team-a"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, "create serviceaccounts default")
	if sa, ok := fakeapi.Get[*api.ServiceAccount](t, f.server, "team-a", "default"); !ok || sa.Namespace != "team-a" {
		t.Errorf("stored account = %+v, %v; want team-a/default", sa, ok)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("team-a/default"),
		"namespace team-a (phase Active) has no ServiceAccount default → create it", map[string]string{"namespace": "team-a"})
}

// Running sync twice changes nothing the second time once the cache has
// caught up with the first sync's create.
func TestSyncIsIdempotent(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, activeNamespace("team-a"))
	if err := f.controller.sync(context.Background(), "team-a"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, "create serviceaccounts default")
	f.server.Cache(t, fakeapi.Result[*api.ServiceAccount](t, f.server, "create serviceaccounts default")) // the watch event of the create
	if err := f.controller.sync(context.Background(), "team-a"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t)
}

// The handlers only turn events into namespace keys.
func TestHandlersEnqueueNamespaces(t *testing.T) {
	tests := []struct {
		name  string
		event func(c *Controller)
		want  []string
	}{
		{"namespace added", func(c *Controller) { c.namespaceAdded(activeNamespace("team-a")) }, []string{"team-a"}},
		{"default deleted", func(c *Controller) { c.serviceAccountDeleted(serviceAccount("team-b", "default")) }, []string{"team-b"}},
		{"default deleted, seen as a tombstone", func(c *Controller) {
			c.serviceAccountDeleted(informer.DeletedFinalStateUnknown{Key: "team-c/default", Obj: serviceAccount("team-c", "default")})
		}, []string{"team-c"}},
		{"another account deleted: nothing to recreate", func(c *Controller) { c.serviceAccountDeleted(serviceAccount("team-b", "builder")) }, nil},
		{"not a ServiceAccount: ignored", func(c *Controller) { c.serviceAccountDeleted("garbage") }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			tt.event(f.controller)
			queue, _, _ := f.controller.queue.Debug()
			if !slices.Equal(queue, tt.want) {
				t.Fatalf("queue = %v, want %v", queue, tt.want)
			}
		})
	}
}
