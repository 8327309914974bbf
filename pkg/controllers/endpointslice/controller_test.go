package endpointslice

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

// These tests follow sample-controller's fixture pattern: objects go into
// the fake apiserver and the informers' caches (fakeapi's Put), one sync
// runs, and the test lists the API writes the controller made, in order
// (ExpectActions), and checks what they sent. The Service and pods come
// from controllertest's shared fixtures.

// createSlice is how fakeapi spells the create of one of web's slices: by
// the generateName it is sent with.
const createSlice = "create endpointslices web-"

// fixture is a controller built on a fakeapi server.
type fixture struct {
	server *fakeapi.Server
	ctrl   *Controller
	events *events.FakeRecorder
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	server := fakeapi.New(t)
	recorder := &events.FakeRecorder{}
	ctrl, err := New(server.Client(), server.Informers(), recorder, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{server: server, ctrl: ctrl, events: recorder}
}

// sync runs one sync of the Service "default/web".
func (f *fixture) sync(t *testing.T) error {
	t.Helper()
	return f.ctrl.sync(context.Background(), "default/web")
}

// A Service without slices gets one, created with generateName and
// holding its pods.
func TestSyncCreatesSlice(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, testNode("node-1"), controllertest.WebService(),
		controllertest.WebPod("a", "10.244.1.2"),
		controllertest.WebPod("b", "10.244.1.3", controllertest.NotReady),
		controllertest.WebPod("stranger", "10.244.1.4", controllertest.WithLabels(map[string]string{"app": "other"})))
	if err := f.sync(t); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t, createSlice)
	s := fakeapi.Sent[*api.EndpointSlice](t, f.server, createSlice)
	if s.GenerateName != "web-" || s.Name != "" {
		t.Errorf("name %q generateName %q, want generateName web-", s.Name, s.GenerateName)
	}
	if got, want := summary([]*api.EndpointSlice{s}), "web-*: 10.244.1.2(a) !10.244.1.3(b) | http/8080"; got != want {
		t.Errorf("created %s, want %s", got, want)
	}
	if s.Endpoints[0].Zone == nil || *s.Endpoints[0].Zone != "zone-a" {
		t.Errorf("endpoint zone %v, want the node's zone-a", s.Endpoints[0].Zone)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"Service web selects 2 pods → 2 endpoints (1 ready) in slices of at most 100: 0 slices now, create 1, update 0, delete 0",
		map[string]string{"pods": "2", "endpoints": "2", "ready": "1", "create": "1", "update": "0", "delete": "0"})
}

// Slices that already say the right thing are not written again.
func TestSyncSkipsUpToDateSlices(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, testNode("node-1"), controllertest.WebService(), controllertest.WebPod("a", "10.244.1.2"),
		storedSlice("web-a", endpointOf("a", "10.244.1.2")))
	if err := f.sync(t); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t)
}

// A changed pod updates its slice with the cached resourceVersion; a slice
// left without endpoints is deleted.
func TestSyncUpdatesAndDeletesSlices(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, testNode("node-1"), controllertest.WebService(), controllertest.WebPod("a", "10.244.1.2", controllertest.NotReady),
		storedSlice("web-a", endpointOf("a", "10.244.1.2")), storedSlice("web-b", endpointOf("gone", "10.244.1.9")))
	if err := f.sync(t); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t, "update endpointslices web-a", "delete endpointslices web-b")
	s := fakeapi.Sent[*api.EndpointSlice](t, f.server, "update endpointslices web-a")
	if s.ResourceVersion != "5" || *s.Endpoints[0].Conditions.Ready {
		t.Errorf("update: resourceVersion %q, endpoint %s", s.ResourceVersion, asJSON(s.Endpoints[0]))
	}
	if _, ok := fakeapi.Get[*api.EndpointSlice](t, f.server, "default", "web-b"); ok {
		t.Error("web-b is still stored after its delete")
	}
}

// Services without a selector, ExternalName Services and deleted Services
// get no writes.
func TestSyncLeavesOtherServicesAlone(t *testing.T) {
	noSelector := controllertest.WebService(func(s *api.Service) { s.Spec.Selector = nil })
	external := controllertest.WebService(func(s *api.Service) { s.Spec.Type = api.ServiceTypeExternalName })
	for name, svc := range map[string]*api.Service{"no selector": noSelector, "ExternalName": external, "deleted": nil} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.server.Put(t, testNode("node-1"), controllertest.WebPod("a", "10.244.1.2"), storedSlice("web-a"))
			if svc != nil {
				f.server.Put(t, svc)
			}
			if err := f.sync(t); err != nil {
				t.Fatalf("sync: %v", err)
			}
			f.server.ExpectActions(t)
		})
	}
}

// A Service being deleted gets no new slices: the garbage collector is
// deleting them.
func TestSyncCreatesNothingForDeletingService(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, testNode("node-1"), controllertest.WebService(terminatingService), controllertest.WebPod("a", "10.244.1.2"))
	if err := f.sync(t); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t)
}

func terminatingService(s *api.Service) {
	now := api.Now()
	s.DeletionTimestamp = &now
}

// A sync right after a create, on a cache that has not seen the new slice,
// waits for the cache rather than creating a second slice.
func TestSyncWaitsForStaleCache(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, testNode("node-1"), controllertest.WebService(), controllertest.WebPod("a", "10.244.1.2"))
	if err := f.sync(t); err != nil {
		t.Fatalf("first sync: %v", err)
	}
	f.server.ExpectActions(t, createSlice)
	if err := f.sync(t); !errors.Is(err, errStaleCache) {
		t.Fatalf("second sync: %v, want a stale-cache error", err)
	}
	f.server.ExpectActions(t)
	controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"the EndpointSlice cache has not seen this controller's last writes → wait and retry", nil)

	// The watch delivers the new slice: the slices say it all.
	f.server.Cache(t, fakeapi.Result[*api.EndpointSlice](t, f.server, createSlice))
	if err := f.sync(t); err != nil {
		t.Fatalf("sync after the cache caught up: %v", err)
	}
	f.server.ExpectActions(t)
	if got := len(f.server.Decisions("default/web")); got != 2 {
		t.Errorf("%d decisions after a sync with nothing to write; want still 2 (create, wait)", got)
	}
}

// A pod whose node the cache does not know is left out and the sync is
// retried; the other pods are written meanwhile.
func TestSyncSkipsPodsOnUnknownNodes(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, testNode("node-1"), controllertest.WebService(),
		controllertest.WebPod("a", "10.244.1.2"),
		controllertest.WebPod("b", "10.244.2.2", controllertest.OnNode("node-2")))
	err := f.sync(t)
	if err == nil || !strings.Contains(err.Error(), "node-2") {
		t.Fatalf("sync: %v, want an error naming node-2", err)
	}
	f.server.ExpectActions(t, createSlice)
	if got := summary([]*api.EndpointSlice{fakeapi.Sent[*api.EndpointSlice](t, f.server, createSlice)}); got != "web-*: 10.244.1.2(a) | http/8080" {
		t.Errorf("created %s", got)
	}
}

// A failed write records a FailedToUpdateEndpointSlices event on the
// Service and is retried with back-off.
func TestSyncFailureRecordsEvent(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, testNode("node-1"), controllertest.WebService(), controllertest.WebPod("a", "10.244.1.2"))
	f.server.FailOn(fakeapi.VerbCreate, "endpointslices", "", apierrors.NewInternalError(errors.New("etcd is sad")))
	f.ctrl.queue.Add("default/web")
	controllerutil.ProcessNext(context.Background(), f.ctrl.queue, f.ctrl.sync, slog.New(slog.DiscardHandler))
	f.server.ExpectActions(t, createSlice)
	if got := f.ctrl.queue.NumRequeues("default/web"); got != 1 {
		t.Errorf("requeues = %d, want 1", got)
	}
	evs := f.events.Events()
	if len(evs) != 1 || !strings.HasPrefix(evs[0], "Warning FailedToUpdateEndpointSlices Error updating Endpoint Slices for Service default/web:") {
		t.Errorf("events %q, want one FailedToUpdateEndpointSlices", evs)
	}
}

// Slice events queue the Service unless they echo the controller's own
// writes or concern a slice someone else manages. (The pod handlers are
// controllerutil.ServicePodHandlers, tested with it.)
func TestHandlersQueueServiceKeys(t *testing.T) {
	f := newFixture(t)
	queued := func() []string {
		var keys []string
		for f.ctrl.queue.Len() > 0 {
			k, _ := f.ctrl.queue.Get()
			keys = append(keys, k)
			f.ctrl.queue.Done(k)
		}
		slices.Sort(keys)
		return keys
	}
	expect := func(what string, want ...string) {
		t.Helper()
		if got := queued(); !slices.Equal(got, want) {
			t.Errorf("%s queued %v, want %v", what, got, want)
		}
	}

	own := storedSlice("web-a")
	f.ctrl.tracker.wrote(own)
	f.ctrl.addSlice(own)
	expect("addSlice (own write)")
	edited := api.DeepCopy(own)
	edited.Generation = 2
	f.ctrl.updateSlice(own, edited)
	expect("updateSlice (someone else's edit)", "default/web")
	f.ctrl.deleteSlice(edited)
	expect("deleteSlice (someone else's delete)", "default/web")
	foreign := storedSlice("manual")
	foreign.Labels[api.LabelManagedBy] = "someone-else"
	f.ctrl.addSlice(foreign)
	f.ctrl.deleteSlice(foreign)
	expect("slice managed by someone else")
}
