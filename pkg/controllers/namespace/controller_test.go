package namespace

// Fixture tests, sample-controller's way: a namespace and its content are
// put in a fakeapi server (which deletes as the apiserver does: an object
// held by a finalizer, or a pod on a node still in its grace period, is
// only marked) and the namespace in the informer's cache; one sync runs
// on a fake clock, and the test lists the complete, ordered API writes it
// made.

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/events"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

var fixtureNow = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// fixture is a controller on a fakeapi server, with a fake clock, so one
// sync runs with no goroutines of its own and no waiting.
type fixture struct {
	server *fakeapi.Server
	ctrl   *Controller
}

// newFixture puts ns in the apiserver and the cache, and content in the
// apiserver only: the controller lists content there, not from a cache.
func newFixture(t *testing.T, ns *api.Namespace, content ...api.Object) *fixture {
	t.Helper()
	return newFixtureOn(t, nil, ns, content...)
}

// newFixtureOn is newFixture on a server built with serverOpts too.
func newFixtureOn(t *testing.T, serverOpts []fakeapi.Option, ns *api.Namespace, content ...api.Object) *fixture {
	t.Helper()
	clk := clock.NewFake(fixtureNow)
	server := fakeapi.New(t, append(serverOpts, fakeapi.WithClock(clk))...)
	ctrl, err := New(server.Client(), server.Informers(), &events.FakeRecorder{}, Options{Logger: slog.New(slog.DiscardHandler), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	server.Put(t, ns)
	server.Add(t, content...)
	return &fixture{server: server, ctrl: ctrl}
}

func terminatingNamespace(name string) *api.Namespace {
	deleted := api.NewTime(fixtureNow)
	return &api.Namespace{
		ObjectMeta: api.ObjectMeta{Name: name, UID: "uid-" + name, ResourceVersion: "1", DeletionTimestamp: &deleted},
		Spec:       api.NamespaceSpec{Finalizers: []string{api.FinalizerKubernetes}},
		Status:     api.NamespaceStatus{Phase: api.NamespaceTerminating},
	}
}

// contentPass is the writes of one pass over a namespace's content: a
// deletecollection of every namespaced resource, in the controller's
// order (events last).
func contentPass() []string {
	var writes []string
	for _, res := range namespacedResources(nil) {
		writes = append(writes, "deletecollection "+res.Resource)
	}
	return writes
}

// then appends writes to a pass's.
func then(pass []string, writes ...string) []string {
	return append(slices.Clone(pass), writes...)
}

// stoppingPod is a pod on a node that was deleted with a 30 s grace
// period: it stays until its kubelet confirms the stop.
func stoppingPod(namespace, name string) *api.Pod {
	deleted, grace := api.NewTime(fixtureNow), int64(30)
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace, DeletionTimestamp: &deleted, DeletionGracePeriodSeconds: &grace},
		Spec:       api.PodSpec{NodeName: "node1", TerminationGracePeriodSeconds: &grace},
		Status:     api.PodStatus{Phase: api.PodRunning},
	}
}

// condition is the condition of type t in the status the latest status
// write stored.
func (f *fixture) condition(t *testing.T, ns string, condType api.NamespaceConditionType) *api.NamespaceCondition {
	t.Helper()
	stored := fakeapi.Result[*api.Namespace](t, f.server, "update namespaces/status "+ns)
	return findCondition(stored.Status.Conditions, condType)
}

// Events are deleted last, so that those about the objects being deleted
// can be read for as long as possible; every namespaced resource is swept.
func TestNamespacedResourcesDeleteEventsLast(t *testing.T) {
	resources := namespacedResources(nil)
	if last := resources[len(resources)-1]; last != client.EventsResource {
		t.Errorf("last resource %s, want events", last)
	}
	for _, res := range client.BuiltinResources() {
		if slices.Contains(resources, res) != res.Namespaced {
			t.Errorf("%s (namespaced %v) swept: %v", res, res.Namespaced, !res.Namespaced)
		}
	}
}

// An empty-able namespace is emptied and finalized in one sync.
func TestSyncDeletesContentAndFinalizes(t *testing.T) {
	f := newFixture(t, terminatingNamespace("shop"),
		&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: "shop"}},
		&api.Deployment{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "shop"}},
		&api.Pod{ObjectMeta: api.ObjectMeta{Name: "unscheduled", Namespace: "shop"}},
		&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: "elsewhere"}})
	if err := f.ctrl.sync(context.Background(), "shop"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t, then(contentPass(), "update namespaces/status shop", "update namespaces/finalize shop")...)
	for _, w := range f.server.Writes() {
		if w.Verb == fakeapi.VerbDeleteCollection && w.Namespace != "shop" {
			t.Errorf("%s in namespace %q, want shop", w, w.Namespace)
		}
	}
	if opts := fakeapi.Sent[api.DeleteOptions](t, f.server, "deletecollection pods"); opts.PropagationPolicy == nil ||
		*opts.PropagationPolicy != api.DeletePropagationBackground {
		t.Errorf("deletecollection options %+v, want Background propagation", opts)
	}
	if _, ok := fakeapi.Get[*api.ConfigMap](t, f.server, "shop", "settings"); ok {
		t.Error("configmap shop/settings is still stored")
	}
	if _, ok := fakeapi.Get[*api.ConfigMap](t, f.server, "elsewhere", "settings"); !ok {
		t.Error("configmap elsewhere/settings was deleted with namespace shop")
	}
	if got := fakeapi.Result[*api.Namespace](t, f.server, "update namespaces/finalize shop").Spec.Finalizers; len(got) != 0 {
		t.Errorf("spec.finalizers after sync = %v, want none", got)
	}
	if _, ok := fakeapi.Get[*api.Namespace](t, f.server, "", "shop"); ok {
		t.Error("namespace shop is still stored after its last finalizer went")
	}
	c := f.condition(t, "shop", api.NamespaceContentRemaining)
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
	f := newFixture(t, terminatingNamespace("shop"), stoppingPod("shop", "web-1"), stoppingPod("shop", "web-2"))
	ctx := context.Background()
	if err := f.ctrl.sync(ctx, "shop"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t, then(contentPass(), "update namespaces/status shop")...) // no finalize
	c := f.condition(t, "shop", api.NamespaceContentRemaining)
	if want := "Some resources are remaining: pods. has 2 resource instances"; c == nil || c.Status != api.ConditionTrue || c.Message != want {
		t.Errorf("NamespaceContentRemaining = %+v, want True/%q", c, want)
	}
	if waiting := f.ctrl.queue.Waiting(); !slices.Equal(waiting, []string{"shop"}) {
		t.Errorf("queue waiting = %v, want [shop] requeued after a delay", waiting)
	}
	d := controllertest.ExpectDecision(t, f.server.Decisions("shop"), "", map[string]string{"remaining": "2"})
	if !strings.HasPrefix(d.Message, "namespace shop Terminating: deleted every namespaced resource's collection, 2 objects remain in 1 resources, 0 deletes failed → estimate ") ||
		!slices.Equal(d.Lines, []string{"pods.: 2 remaining"}) {
		t.Errorf("decision %q %q; want 2 pods remaining and an estimate", d.Message, d.Lines)
	}

	// The kubelet confirms both stops; the next pass finalizes.
	zero := int64(0)
	for _, name := range []string{"web-1", "web-2"} {
		if err := f.server.Client().Pods("shop").Delete(ctx, name, client.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			t.Fatalf("the kubelet's delete of %s: %v", name, err)
		}
	}
	f.server.ExpectActions(t, "delete pods web-1", "delete pods web-2")
	if err := f.ctrl.sync(ctx, "shop"); err != nil {
		t.Fatalf("second sync: %v", err)
	}
	f.server.ExpectActions(t, then(contentPass(), "update namespaces/status shop", "update namespaces/finalize shop")...)
	controllertest.ExpectDecision(t, f.server.Decisions("shop"),
		`namespace shop Terminating: deleted every namespaced resource's collection, nothing remains → remove the "kubernetes" finalizer (the apiserver then deletes the namespace)`,
		map[string]string{"remaining": "0", "estimateSeconds": "0"})
}

// Objects held by a finalizer are reported per finalizer and waited for.
func TestSyncReportsFinalizersRemaining(t *testing.T) {
	f := newFixture(t, terminatingNamespace("shop"),
		&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "held", Namespace: "shop", Finalizers: []string{"example.com/hold"}}})
	if err := f.ctrl.sync(context.Background(), "shop"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t, then(contentPass(), "update namespaces/status shop")...) // no finalize
	c := f.condition(t, "shop", api.NamespaceFinalizersRemaining)
	if want := "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"; c == nil || c.Message != want {
		t.Errorf("NamespaceFinalizersRemaining = %+v, want %q", c, want)
	}
	if held, ok := fakeapi.Get[*api.ConfigMap](t, f.server, "shop", "held"); !ok || held.DeletionTimestamp == nil {
		t.Errorf("configmap held = %+v (stored %v); want it marked for deletion, held by its finalizer", held, ok)
	}
	if waiting := f.ctrl.queue.Waiting(); !slices.Equal(waiting, []string{"shop"}) {
		t.Errorf("queue waiting = %v, want [shop]", waiting)
	}
}

// One resource that cannot be deleted does not stop the others: the pass
// goes on, the failure is a condition, the error requeues with back-off,
// and the namespace is not finalized.
func TestSyncCarriesOnPastAFailingResource(t *testing.T) {
	f := newFixture(t, terminatingNamespace("shop"),
		&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: "shop"}},
		&api.Secret{ObjectMeta: api.ObjectMeta{Name: "token", Namespace: "shop"}})
	f.server.FailOn(fakeapi.VerbDeleteCollection, "configmaps", "", apierrors.NewInternalError(errors.New("etcd is down")))
	if err := f.ctrl.sync(context.Background(), "shop"); err == nil {
		t.Fatal("sync succeeded although configmaps could not be deleted")
	}
	f.server.ExpectActions(t, then(contentPass(), "update namespaces/status shop")...)
	if _, ok := fakeapi.Get[*api.Secret](t, f.server, "shop", "token"); ok {
		t.Error("secret shop/token is still stored: the pass stopped at the failing resource")
	}
	if c := f.condition(t, "shop", api.NamespaceDeletionContentFailure); c == nil || c.Status != api.ConditionTrue {
		t.Errorf("NamespaceDeletionContentFailure = %+v, want True", c)
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
		f := newFixture(t, ns, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: ns.Name}})
		if err := f.ctrl.sync(context.Background(), ns.Name); err != nil {
			t.Fatalf("sync %s: %v", ns.Name, err)
		}
		f.server.ExpectActions(t)
	}
}

// A namespace whose phase was not yet Terminating is set so first.
func TestSyncSetsTerminatingPhase(t *testing.T) {
	ns := terminatingNamespace("shop")
	ns.Status.Phase = api.NamespaceActive
	f := newFixture(t, ns)
	if err := f.ctrl.sync(context.Background(), "shop"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t, then(append([]string{"update namespaces/status shop"}, contentPass()...),
		"update namespaces/status shop", "update namespaces/finalize shop")...)
	if phase := fakeapi.Result[*api.Namespace](t, f.server, "update namespaces/finalize shop").Status.Phase; phase != api.NamespaceTerminating {
		t.Errorf("phase = %s, want Terminating", phase)
	}
}

// A write that conflicts (another writer got there first) is retried on
// the namespace read again, not given up.
func TestSyncRetriesAConflictingFinalize(t *testing.T) {
	f := newFixture(t, terminatingNamespace("shop"))
	conflicts := 0
	f.server.React(func(a fakeapi.Action) error {
		if a.String() == "update namespaces/finalize shop" && conflicts == 0 {
			conflicts++
			return apierrors.NewConflict(apierrors.Resource{Resource: "namespaces"}, "shop", "injected")
		}
		return nil
	})
	if err := f.ctrl.sync(context.Background(), "shop"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t, then(contentPass(), "update namespaces/status shop",
		"update namespaces/finalize shop", "update namespaces/finalize shop")...)
	if _, ok := fakeapi.Get[*api.Namespace](t, f.server, "", "shop"); ok {
		t.Error("namespace shop is still stored after the retried finalize")
	}
}

// Only namespaces marked for deletion are queued, after the grace period.
func TestHandlersEnqueueOnlyDeletedNamespaces(t *testing.T) {
	f := newFixture(t, terminatingNamespace("shop"))
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
