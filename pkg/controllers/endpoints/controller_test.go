package endpoints

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

// A Service without Endpoints gets them, with its labels and the ready and
// not-ready addresses of its pods.
func TestSyncCreatesEndpoints(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, controllertest.WebService(),
		controllertest.WebPod("a", "10.244.1.2"),
		controllertest.WebPod("b", "10.244.1.3", controllertest.NotReady),
		controllertest.WebPod("stranger", "10.244.1.4", controllertest.WithLabels(map[string]string{"app": "other"})))
	if err := f.sync(t); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t, "create endpoints web")
	ep := fakeapi.Sent[*api.Endpoints](t, f.server, "create endpoints web")
	want := []api.EndpointSubset{{
		Addresses:         []api.EndpointAddress{addr("a", "10.244.1.2")},
		NotReadyAddresses: []api.EndpointAddress{addr("b", "10.244.1.3")},
		Ports:             []api.EndpointPort{tcp("http", 8080)},
	}}
	if ep.Name != "web" || !maps.Equal(ep.Labels, map[string]string{"team": "shop"}) || asJSON(ep.Subsets) != asJSON(want) {
		t.Fatalf("created %s %v %s\nwant web %v %s", ep.Name, ep.Labels, asJSON(ep.Subsets), map[string]string{"team": "shop"}, asJSON(want))
	}
	controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"Service web selects 2 pods, 1 ready → 1 addresses, 1 notReadyAddresses: create Endpoints",
		map[string]string{"pods": "2", "readyPods": "1", "addresses": "1", "notReadyAddresses": "1"})
}

// Endpoints that already say the right thing are not written again.
func TestSyncSkipsUnchangedEndpoints(t *testing.T) {
	f := newFixture(t)
	svc := controllertest.WebService()
	pods := []*api.Pod{controllertest.WebPod("a", "10.244.1.2"), controllertest.WebPod("b", "10.244.1.3")}
	current := &api.Endpoints{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "7", Labels: map[string]string{"team": "shop"}},
		Subsets:    desiredSubsets(svc, pods),
	}
	f.server.Put(t, svc, pods[0], pods[1], current)
	if err := f.sync(t); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t)
	controllertest.ExpectNoDecision(t, f.server.Decisions("default/web"))
}

// Changed subsets or labels are written with the cached resourceVersion.
func TestSyncUpdatesChangedEndpoints(t *testing.T) {
	for name, current := range map[string]*api.Endpoints{
		"stale subsets": {
			ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "7", Labels: map[string]string{"team": "shop"}},
			Subsets:    []api.EndpointSubset{{Addresses: []api.EndpointAddress{addr("gone", "10.244.9.9")}, Ports: []api.EndpointPort{tcp("http", 8080)}}},
		},
		"stale labels": {
			ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "7", Labels: map[string]string{"team": "old"}},
			Subsets:    []api.EndpointSubset{{Addresses: []api.EndpointAddress{addr("a", "10.244.1.2")}, Ports: []api.EndpointPort{tcp("http", 8080)}}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.server.Put(t, controllertest.WebService(), controllertest.WebPod("a", "10.244.1.2"), current)
			if err := f.sync(t); err != nil {
				t.Fatalf("sync: %v", err)
			}
			f.server.ExpectActions(t, "update endpoints web")
			ep := fakeapi.Sent[*api.Endpoints](t, f.server, "update endpoints web")
			if ep.ResourceVersion != "7" {
				t.Errorf("update resourceVersion %q, want the cached 7", ep.ResourceVersion)
			}
			if !maps.Equal(ep.Labels, map[string]string{"team": "shop"}) || len(ep.Subsets) != 1 || ep.Subsets[0].Addresses[0].IP != "10.244.1.2" {
				t.Errorf("update wrote labels %v subsets %s", ep.Labels, asJSON(ep.Subsets))
			}
		})
	}
}

// A deleted Service takes its Endpoints along.
func TestSyncDeletesEndpointsOfDeletedService(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, &api.Endpoints{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "7"}})
	if err := f.sync(t); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t, "delete endpoints web")
	if _, ok := fakeapi.Get[*api.Endpoints](t, f.server, "default", "web"); ok {
		t.Error("endpoints web still stored after the sync")
	}
	controllertest.ExpectDecision(t, f.server.Decisions("default/web"), "Service is gone → delete its Endpoints", nil)
	// Already gone (the apiserver answers NotFound) is fine.
	if err := f.sync(t); err != nil {
		t.Fatalf("sync with endpoints already gone: %v", err)
	}
	f.server.ExpectActions(t, "delete endpoints web")
}

// Services without a selector, and ExternalName Services, are left alone.
func TestSyncLeavesForeignEndpointsAlone(t *testing.T) {
	noSelector := controllertest.WebService(func(s *api.Service) { s.Spec.Selector = nil })
	external := controllertest.WebService(func(s *api.Service) { s.Spec.Type = api.ServiceTypeExternalName })
	for _, svc := range []*api.Service{noSelector, external} {
		f := newFixture(t)
		f.server.Put(t, svc, controllertest.WebPod("a", "10.244.1.2"))
		if err := f.sync(t); err != nil {
			t.Fatalf("sync: %v", err)
		}
		f.server.ExpectActions(t)
	}
}

// A headless Service's Endpoints carry the headless label.
func TestSyncLabelsHeadlessEndpoints(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, controllertest.WebService(controllertest.Headless), controllertest.WebPod("a", "10.244.1.2"))
	if err := f.sync(t); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t, "create endpoints web")
	if ep := fakeapi.Sent[*api.Endpoints](t, f.server, "create endpoints web"); !maps.Equal(ep.Labels, map[string]string{"team": "shop", headlessLabel: ""}) {
		t.Fatalf("labels %v", ep.Labels)
	}
}

// A create refused because the namespace is terminating is dropped without
// an event (the Service goes with the namespace); other failures, a plain
// Forbidden included, record an event and are retried with back-off, as
// upstream does.
func TestSyncCreateFailures(t *testing.T) {
	endpointsResource := apierrors.Resource{Resource: "endpoints"}
	for _, tc := range []struct {
		name         string
		err          error
		wantRequeues int
		wantEvent    bool
	}{
		{"terminating namespace is dropped", apierrors.NewNamespaceTerminating(endpointsResource, "web", "default"), 0, false},
		{"other forbidden is retried", apierrors.NewForbidden(endpointsResource, "web", errors.New("no")), 1, true},
		{"server error is retried", apierrors.NewInternalError(errors.New("etcd is sad")), 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.server.Put(t, controllertest.WebService(), controllertest.WebPod("a", "10.244.1.2"))
			f.server.FailOn(fakeapi.VerbCreate, "endpoints", "web", tc.err)
			f.ctrl.queue.Add("default/web")
			controllerutil.ProcessNext(context.Background(), f.ctrl.queue, f.ctrl.sync, slog.New(slog.DiscardHandler))
			f.server.ExpectActions(t, "create endpoints web")
			if got := f.ctrl.queue.NumRequeues("default/web"); got != tc.wantRequeues {
				t.Errorf("requeues = %d, want %d", got, tc.wantRequeues)
			}
			evs := f.events.Events()
			if tc.wantEvent && (len(evs) != 1 || !strings.HasPrefix(evs[0], "Warning FailedToCreateEndpoint Failed to create endpoint for service default/web:")) {
				t.Errorf("events %q, want one FailedToCreateEndpoint", evs)
			}
			if !tc.wantEvent && len(evs) != 0 {
				t.Errorf("events %q, want none", evs)
			}
		})
	}
}

// Service and Endpoints events queue the Service's key, once however many
// arrive before a worker takes it; a Service's tombstone is queued by the
// key it carries even when it lost the Service's last state. (The pod
// handlers are controllerutil.ServicePodHandlers, tested with it.)
func TestHandlersQueueServiceKeys(t *testing.T) {
	f := newFixture(t)
	f.ctrl.deleteEndpoints(&api.Endpoints{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"}})
	f.ctrl.updateService(controllertest.WebService(), controllertest.WebService())
	f.ctrl.deleteService(informer.DeletedFinalStateUnknown{Key: "default/web", Obj: controllertest.WebService()})
	f.ctrl.deleteService(informer.DeletedFinalStateUnknown{Key: "default/lost"})
	var queued []string
	for f.ctrl.queue.Len() > 0 {
		k, _ := f.ctrl.queue.Get()
		queued = append(queued, k)
		f.ctrl.queue.Done(k)
	}
	if !slices.Equal(queued, []string{"default/web", "default/lost"}) {
		t.Errorf("endpoints delete, service update and deletes (tombstones) queued %v, want [default/web default/lost]", queued)
	}
}
