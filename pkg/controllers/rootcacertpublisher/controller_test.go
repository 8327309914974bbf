package rootcacertpublisher

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
// runs, and the test lists the API writes the controller made.

type fixture struct {
	server     *fakeapi.Server
	controller *Controller
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	server := fakeapi.New(t)
	ctrl, err := New(server.Client(), server.Informers(), &events.FakeRecorder{},
		Options{Logger: slog.New(slog.DiscardHandler), RootCA: []byte(testCA)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{server: server, controller: ctrl}
}

func activeNamespace(name string) *api.Namespace {
	return &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}, Status: api.NamespaceStatus{Phase: api.NamespaceActive}}
}

func TestSync(t *testing.T) {
	const (
		create = "create configmaps kube-root-ca.crt"
		update = "update configmaps kube-root-ca.crt"
	)
	forged := desired("team-a", "forged")
	tests := []struct {
		name        string
		namespace   *api.Namespace // nil: not in the cache
		cached      *api.ConfigMap // in the cache and the apiserver
		stored      *api.ConfigMap // only in the apiserver
		failOn      string         // verb whose request fails
		fail        error
		wantActions []string
		wantErr     bool
	}{
		{name: "new namespace gets the ConfigMap", namespace: activeNamespace("team-a"), wantActions: []string{create}},
		{name: "right ConfigMap: no request", namespace: activeNamespace("team-a"), cached: desired("team-a", testCA)},
		{name: "changed certificate is put back", namespace: activeNamespace("team-a"), cached: forged, wantActions: []string{update}},
		{name: "namespace gone: no request, no error"},
		{name: "AlreadyExists is success (stale cache or a second leader)", namespace: activeNamespace("team-a"),
			stored: desired("team-a", testCA), wantActions: []string{create}},
		{name: "refused by NamespaceLifecycle (namespace terminating): not retried", namespace: activeNamespace("team-a"),
			failOn: fakeapi.VerbCreate, fail: apierrors.NewNamespaceTerminating(apierrors.Resource{Resource: "configmaps"}, api.RootCAConfigMapName, "team-a"),
			wantActions: []string{create}},
		{name: "a server error on create is returned for a retry", namespace: activeNamespace("team-a"),
			failOn: fakeapi.VerbCreate, fail: apierrors.NewInternalError(errors.New("etcd is down")),
			wantActions: []string{create}, wantErr: true},
		{name: "a conflict on update is returned for a retry", namespace: activeNamespace("team-a"), cached: forged,
			failOn: fakeapi.VerbUpdate, fail: apierrors.NewConflict(apierrors.Resource{Resource: "configmaps"}, api.RootCAConfigMapName, "modified"),
			wantActions: []string{update}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.namespace != nil {
				f.server.Put(t, tt.namespace)
			}
			if tt.cached != nil {
				f.server.Put(t, tt.cached)
			}
			if tt.stored != nil {
				f.server.Add(t, tt.stored)
			}
			if tt.fail != nil {
				f.server.FailOn(tt.failOn, "configmaps", "", tt.fail)
			}
			err := f.controller.sync(context.Background(), "team-a")
			if (err != nil) != tt.wantErr {
				t.Fatalf("sync error = %v, want error: %v", err, tt.wantErr)
			}
			f.server.ExpectActions(t, tt.wantActions...)
		})
	}
}

// The created ConfigMap is upstream's: the CA under ca.crt and the
// description annotation.
func TestSyncPublishesTheCA(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, activeNamespace("team-a"))
	if err := f.controller.sync(context.Background(), "team-a"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, "create configmaps kube-root-ca.crt")
	cm, ok := fakeapi.Get[*api.ConfigMap](t, f.server, "team-a", api.RootCAConfigMapName)
	if !ok || cm.Data[api.RootCAConfigMapKey] != testCA || cm.Annotations[DescriptionAnnotation] != Description {
		t.Errorf("stored configmap = %+v, %v", cm, ok)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("team-a/kube-root-ca.crt"),
		"namespace team-a has no kube-root-ca.crt → create it with the cluster CA under ca.crt", nil)
}

// A repaired ConfigMap keeps what the user added besides the certificate.
func TestSyncRepairKeepsLabels(t *testing.T) {
	f := newFixture(t)
	forged := desired("team-a", "forged")
	forged.Labels = map[string]string{"team": "a"}
	f.server.Put(t, activeNamespace("team-a"), forged)
	if err := f.controller.sync(context.Background(), "team-a"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, "update configmaps kube-root-ca.crt")
	sent := fakeapi.Sent[*api.ConfigMap](t, f.server, "update configmaps kube-root-ca.crt")
	if sent.Data[api.RootCAConfigMapKey] != testCA || sent.Labels["team"] != "a" {
		t.Errorf("update sent %+v", sent)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("team-a/kube-root-ca.crt"),
		"team-a/kube-root-ca.crt: ca.crt is not the cluster CA → put the CA and the annotation back (labels and other annotations kept)", nil)
}

// Running sync twice changes nothing the second time once the cache has
// caught up with the first sync's create.
func TestSyncIsIdempotent(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, activeNamespace("team-a"))
	if err := f.controller.sync(context.Background(), "team-a"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, "create configmaps kube-root-ca.crt")
	f.server.Cache(t, fakeapi.Result[*api.ConfigMap](t, f.server, "create configmaps kube-root-ca.crt"))
	if err := f.controller.sync(context.Background(), "team-a"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t)
}

// New refuses to run without a CA to publish.
func TestNewNeedsRootCA(t *testing.T) {
	server := fakeapi.New(t)
	if _, err := New(server.Client(), server.Informers(), &events.FakeRecorder{}, Options{}); err == nil {
		t.Fatal("New without a root CA succeeded")
	}
}

// The handlers only turn events into namespace keys.
func TestHandlersEnqueueNamespaces(t *testing.T) {
	terminating := activeNamespace("team-t")
	terminating.Status.Phase = api.NamespaceTerminating
	other := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: "team-b"}}
	tests := []struct {
		name  string
		event func(c *Controller)
		want  []string
	}{
		{"namespace added", func(c *Controller) { c.namespaceAdded(activeNamespace("team-a")) }, []string{"team-a"}},
		{"active namespace updated", func(c *Controller) { c.namespaceUpdated(nil, activeNamespace("team-a")) }, []string{"team-a"}},
		{"terminating namespace updated: left alone", func(c *Controller) { c.namespaceUpdated(nil, terminating) }, nil},
		{"root CA configmap changed", func(c *Controller) { c.configMapChanged(desired("team-b", "x")) }, []string{"team-b"}},
		{"another configmap changed: ignored", func(c *Controller) { c.configMapChanged(other) }, nil},
		{"root CA configmap deleted", func(c *Controller) { c.configMapDeleted(desired("team-c", testCA)) }, []string{"team-c"}},
		{"deleted, seen as a tombstone", func(c *Controller) {
			c.configMapDeleted(informer.DeletedFinalStateUnknown{Key: "team-d/kube-root-ca.crt", Obj: desired("team-d", testCA)})
		}, []string{"team-d"}},
		{"another configmap deleted: ignored", func(c *Controller) { c.configMapDeleted(other) }, nil},
		{"not a ConfigMap: ignored", func(c *Controller) { c.configMapDeleted("garbage") }, nil},
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
