package garbagecollector

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/events"
	"kplane/test/framework/fakeapi"
)

// Custom resources in the collector: the fake API lists made-up resources
// in discovery beside the built-in ones, a resync turns them into monitors
// and REST mappings, and the collector then deletes dependents of a
// custom owner that is gone, and custom objects whose owner is gone.

var (
	widgetsResource = client.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	// gadgets cannot be watched, so the collector cannot monitor them.
	gadgetsResource = client.Resource{Group: "example.com", Version: "v1", Resource: "gadgets", Kind: "Gadget", Namespaced: true}
	// clusterWidgets are cluster-scoped custom objects.
	clusterWidgetsResource = client.Resource{Group: "example.com", Version: "v1", Resource: "clusterwidgets", Kind: "ClusterWidget"}
)

// newCustomFixture is newFixture on a server that also serves widgets,
// clusterwidgets and (without watch) gadgets.
func newCustomFixture(t *testing.T, objects ...api.Object) *fixture {
	t.Helper()
	server := fakeapi.New(t,
		fakeapi.WithCustomResource(widgetsResource),
		fakeapi.WithCustomResource(clusterWidgetsResource),
		fakeapi.WithCustomResource(gadgetsResource, "get", "list", "delete"))
	server.Add(t, objects...)
	return &fixture{t: t, ctx: context.Background(), server: server, gc: newCollector(t, server.Client(), server.Informers())}
}

// widget is a Widget in default with owners, as the apiserver holds it.
func widget(name string, owners ...api.OwnerReference) *api.CustomObject {
	return &api.CustomObject{
		TypeMeta:   api.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name, ResourceVersion: "1", OwnerReferences: owners},
		Content:    map[string]any{"spec": map[string]any{"size": int64(1)}},
	}
}

func widgetRef(name string) api.OwnerReference {
	return api.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: name, UID: "uid-" + name}
}

func configMapRef(name string) api.OwnerReference {
	return api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: name, UID: "uid-" + name}
}

func (f *fixture) resync() resyncResult {
	f.t.Helper()
	result, err := f.gc.resyncMonitors(f.ctx)
	if err != nil {
		f.t.Fatalf("resyncMonitors: %v", err)
	}
	return result
}

func TestResyncAddsAndRemovesMonitorsOfDiscoveredResources(t *testing.T) {
	f := newCustomFixture(t)
	typed := len(f.gc.monitors.resources())

	result := f.resync()
	// Every deletable resource without a monitor: the custom ones, not
	// gadgets (no watch); and the built-in ones beyond the workload kinds
	// (namespaces, leases, …), but not events (ignored).
	for _, want := range []client.Resource{clusterWidgetsResource, widgetsResource, client.NamespacesResource, client.LeasesResource} {
		if !slices.Contains(result.added, want) {
			t.Errorf("first resync added %v; want %s among them", result.added, want)
		}
	}
	for _, never := range []client.Resource{gadgetsResource, client.EventsResource, client.EventsV1EventsResource} {
		if slices.Contains(result.added, never) {
			t.Errorf("first resync added %s", never)
		}
	}
	if len(result.removed) != 0 {
		t.Fatalf("first resync removed %v", result.removed)
	}
	if n := len(f.gc.monitors.resources()); n != typed+len(result.added) {
		t.Fatalf("%d monitors after the resync, want %d", n, typed+len(result.added))
	}
	// A built-in kind is watched through the shared typed informer, the
	// one the other controllers use.
	if m := f.gc.monitors.monitors[client.LeasesResource]; m.informer != f.server.Informers().Leases().Informer() || m.dynamic {
		t.Errorf("the leases monitor has informer %v (dynamic %v); want the shared typed Leases() informer", m.informer, m.dynamic)
	}
	if r, err := f.gc.mapper.resourceFor("example.com/v1", "Gadget"); err != nil || r != gadgetsResource {
		t.Fatalf("Gadget maps to %v, %v; a kind discovery lists maps even when it is not monitored", r, err)
	}
	if again := f.resync(); len(again.added)+len(again.removed) != 0 {
		t.Fatalf("an unchanged discovery changed the monitors: %+v", again)
	}

	// The widgets CRD is deleted: its monitor goes, and so does its
	// informer (asking again builds a new one).
	old := f.server.Informers().ForDynamicResource(widgetsResource).Informer()
	f.server.SetCustomResources(clusterWidgetsResource)
	result = f.resync()
	if !slices.Equal(result.removed, []client.Resource{widgetsResource}) || len(result.added) != 0 {
		t.Fatalf("resync after the CRD went: added %v removed %v; want widgets removed", result.added, result.removed)
	}
	if f.server.Informers().ForDynamicResource(widgetsResource).Informer() == old {
		t.Fatal("the removed monitor's informer is still the factory's")
	}
	if _, err := f.gc.mapper.resourceFor("example.com/v1", "Widget"); !isUnknownKind(err) {
		t.Fatalf("Widget still maps after its resource went: %v", err)
	}

	// A failing discovery changes nothing.
	f.server.FailOn(fakeapi.VerbGet, "discovery", "", apierrors.NewServiceUnavailable("etcd is down"))
	before := f.gc.monitors.resources()
	if _, err := f.gc.resyncMonitors(f.ctx); err == nil {
		t.Fatal("resync with a failing discovery returned no error")
	}
	if after := f.gc.monitors.resources(); !slices.Equal(before, after) {
		t.Fatalf("a failed discovery changed the monitors from %v to %v", before, after)
	}
}

// A pod owned by a Widget that is gone is deleted once discovery maps
// Widget; until then it is kept.
func TestCollectsDependentOfGoneCustomOwner(t *testing.T) {
	p := pod("p", []api.OwnerReference{widgetRef("gone")})
	f := newCustomFixture(t, p)
	observe(f.gc, client.PodsResource, nil, p)
	if err := f.gc.syncAttemptToDelete(f.ctx, p.UID); !errors.Is(err, errUnknownKind) {
		t.Fatalf("sync before discovery = %v; want an unknown-kind error", err)
	}
	f.server.ExpectActions(t)

	f.resync()
	f.syncDelete(f.gc, "uid-gone") // the virtual owner: not found, leaves the graph
	f.syncDelete(f.gc, p.UID)
	f.server.ExpectActions(t, "delete pods p")
}

// A Widget whose ConfigMap owner is gone is deleted; one whose owner lives
// is kept.
func TestCollectsCustomObjectWhoseOwnerIsGone(t *testing.T) {
	live := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "live", Namespace: "default", UID: "uid-live"}}
	orphaned, kept := widget("orphaned", configMapRef("gone")), widget("kept", configMapRef("live"))
	f := newCustomFixture(t, live, orphaned, kept)
	f.resync()
	observe(f.gc, widgetsResource, nil, orphaned)
	observe(f.gc, widgetsResource, nil, kept)
	observe(f.gc, client.ConfigMapsResource, nil, live)

	f.syncDelete(f.gc, orphaned.UID)
	f.syncDelete(f.gc, kept.UID)
	f.server.ExpectActions(t, "delete widgets orphaned")
}

// A Widget with one owner gone and one alive loses the dangling reference.
// The apiserver refuses a strategic merge patch of a custom resource, so
// the collector falls back to a JSON merge patch of the whole list at the
// resourceVersion it read.
func TestRemovesDanglingReferenceOfCustomObjectByMergePatch(t *testing.T) {
	live := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "live", Namespace: "default", UID: "uid-live"}}
	w := widget("w", configMapRef("gone"), configMapRef("live"))
	f := newCustomFixture(t, live, w)
	f.resync()
	observe(f.gc, widgetsResource, nil, w)

	f.syncDelete(f.gc, w.UID)
	f.server.ExpectActions(t, "patch widgets w", "patch widgets w")
	actions := f.server.Actions()
	var patches []fakeapi.Action
	for _, a := range actions {
		if a.Verb == fakeapi.VerbPatch {
			patches = append(patches, a)
		}
	}
	if len(patches) != 2 || apierrors.ReasonOf(patches[0].Err) != apierrors.ReasonUnsupportedMediaType || patches[1].Err != nil {
		t.Fatalf("patches %+v; want a refused strategic merge patch, then a merge patch", patches)
	}
	got, err := f.server.Client().Dynamic(widgetsResource).Namespace("default").Get(f.ctx, "w", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	meta, err := metadataOf(got)
	if err != nil {
		t.Fatal(err)
	}
	if uids := ownerRefUIDs(*meta); !slices.Equal(uids, []string{"uid-live"}) {
		t.Fatalf("ownerReferences after the patch %v; want only uid-live", uids)
	}
	if spec, _ := got["spec"].(map[string]any); spec["size"] != int64(1) {
		t.Fatalf("the patch changed more than the references: %v", got)
	}
}

// A Deployment owned by a cluster-scoped custom object that is gone: the
// owner is looked up without a namespace, and the Deployment is deleted.
func TestCollectsDependentOfGoneClusterScopedCustomOwner(t *testing.T) {
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-web", ResourceVersion: "1",
		OwnerReferences: []api.OwnerReference{{APIVersion: "example.com/v1", Kind: "ClusterWidget", Name: "cw", UID: "uid-cw"}}}}
	f := newCustomFixture(t, d)
	f.resync()
	observe(f.gc, client.DeploymentsResource, nil, d)
	if owner, ok := f.gc.graph.view("uid-cw"); !ok || owner.identity.Namespace != "" {
		t.Fatalf("virtual owner %+v (found %v); want it cluster-scoped", owner.identity, ok)
	}
	f.syncDelete(f.gc, d.UID)
	f.server.ExpectActions(t, "delete deployments web")
}

// The resync loop reads discovery once per period on the controller's
// clock: a resource that appears is monitored after the next tick, not
// before, and its informer is started.
func TestResyncLoopAddsMonitorAfterThePeriod(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	server := fakeapi.New(t, fakeapi.WithClock(clk))
	gc, err := New(server.Client(), server.Informers(), &events.FakeRecorder{},
		Options{Logger: slog.New(slog.DiscardHandler), Clock: clk, ResourceResyncPeriod: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gc.attemptToDelete.ShutDown)
	t.Cleanup(gc.attemptToOrphan.ShutDown)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { gc.runResync(ctx); close(done) }()
	defer func() { cancel(); <-done; server.Informers().Shutdown() }()
	waitUntil(t, "the resync ticker is set", func() bool { return clk.Waiters() > 0 })

	server.SetCustomResources(widgetsResource)
	clk.Step(59 * time.Second)
	if slices.Contains(gc.monitors.resources(), widgetsResource) {
		t.Fatal("widgets monitored before the resync period passed")
	}
	clk.Step(time.Second)
	waitUntil(t, "widgets are monitored after one period", func() bool { return slices.Contains(gc.monitors.resources(), widgetsResource) })
	waitUntil(t, "the widgets informer lists them", func() bool {
		for _, a := range server.Actions() {
			if a.Verb == fakeapi.VerbList && a.Resource == "widgets" {
				return true
			}
		}
		return false
	})
}

// waitUntil polls cond for up to 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
