package garbagecollector

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

// Fixture tests, sample-controller's way: the objects are put in a fakeapi
// server and fed to the graph by hand (no informer runs; the collector
// reads no cache, only its graph and the apiserver), one sync runs, and
// the test lists the complete, ordered API writes it made and the uids it
// queued. The collector records no Events.

// holdFinalizer is a finalizer of the tests' own that keeps a dependent in
// existence (being deleted) until the test removes it.
const holdFinalizer = "kplane.test/hold"

type fixture struct {
	t      *testing.T
	ctx    context.Context
	server *fakeapi.Server
	gc     *Controller
}

// newFixture starts a fakeapi server holding objects and a collector on it.
func newFixture(t *testing.T, objects ...api.Object) *fixture {
	t.Helper()
	server := fakeapi.New(t)
	server.Add(t, objects...)
	return &fixture{t: t, ctx: context.Background(), server: server, gc: newCollector(t, server.Client(), server.Informers())}
}

// newCollector builds a collector whose informers are never started.
func newCollector(t *testing.T, c *client.Client, informers *informer.SharedInformerFactory) *Controller {
	t.Helper()
	gc, err := New(c, informers, &events.FakeRecorder{}, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(gc.attemptToDelete.ShutDown)
	t.Cleanup(gc.attemptToOrphan.ShutDown)
	return gc
}

// observe feeds an informer's add (old nil) or update to gc's graph.
func observe(gc *Controller, res client.Resource, old, obj api.Object) {
	gc.graph.observe(res, old, obj)
}

// syncDelete runs one sync of uid's attemptToDelete and fails the test on
// an error.
func (f *fixture) syncDelete(gc *Controller, uid string) {
	f.t.Helper()
	if err := gc.syncAttemptToDelete(f.ctx, uid); err != nil {
		f.t.Fatalf("sync %s: %v", uid, err)
	}
}

// userDeletes deletes a ReplicaSet as a user would (kubectl delete
// --cascade=…), and returns it as the apiserver then holds it, if it does.
func (f *fixture) userDeletes(name string, policy api.DeletionPropagation) (*api.ReplicaSet, bool) {
	f.t.Helper()
	if err := f.server.Client().ReplicaSets("default").Delete(f.ctx, name, client.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		f.t.Fatalf("delete ReplicaSet %s (%s): %v", name, policy, err)
	}
	f.server.ExpectActions(f.t, "delete replicasets "+name) // the user's write, not the collector's
	return fakeapi.Get[*api.ReplicaSet](f.t, f.server, "default", name)
}

// drain empties q and returns what it held, sorted.
func drain(q *workqueue.Queue[string]) []string {
	var keys []string
	for q.Len() > 0 {
		k, _ := q.Get()
		q.Done(k)
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sorted(s ...string) []string {
	slices.Sort(s)
	return s
}

func labelsFor(name string) map[string]string { return map[string]string{"app": name} }

// newReplicaSet is a ReplicaSet of no pods, as a user would create it.
func newReplicaSet(ns, name string) *api.ReplicaSet {
	replicas := int32(0)
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labelsFor(name)},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labelsFor(name)},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
}

// newPod is a pod (never scheduled) with the given owners and finalizers.
func newPod(ns, name string, owners []api.OwnerReference, finalizers ...string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: owners, Finalizers: finalizers},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}},
	}
}

// replicaSet is newReplicaSet in "default" as the apiserver stores it.
func replicaSet(name string) *api.ReplicaSet {
	rs := newReplicaSet("default", name)
	rs.UID, rs.ResourceVersion = "uid-"+name, "1"
	return rs
}

// pod is newPod in "default" as the apiserver stores it.
func pod(name string, owners []api.OwnerReference, finalizers ...string) *api.Pod {
	p := newPod("default", name, owners, finalizers...)
	p.UID, p.ResourceVersion = "uid-"+name, "1"
	return p
}

// refTo is the ownerReference a ReplicaSet controller puts on its pods.
func refTo(rs *api.ReplicaSet, block bool) api.OwnerReference {
	yes := true
	return api.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: &yes, BlockOwnerDeletion: &block}
}

// plainRef is an ownerReference that does not make rs the controller (an
// object has at most one controller).
func plainRef(rs *api.ReplicaSet, block bool) api.OwnerReference {
	return api.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, BlockOwnerDeletion: &block}
}

// ghostRef names a ReplicaSet that never existed.
func ghostRef(name, uid string) api.OwnerReference {
	return api.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name, UID: uid}
}

func ownerRefUIDs(meta api.ObjectMeta) []string {
	var uids []string
	for _, r := range meta.OwnerReferences {
		uids = append(uids, r.UID)
	}
	return uids
}

// A pod whose owner never existed: the virtual owner is checked, found
// absent and dropped; then the pod is deleted, in the background, only if
// it is still the pod that was judged (uid and resourceVersion).
func TestSyncCollectsPodOfOwnerThatNeverExisted(t *testing.T) {
	p := pod("p", []api.OwnerReference{ghostRef("ghost", "ghost-uid")})
	f := newFixture(t, p)
	observe(f.gc, client.PodsResource, nil, p)
	if got := drain(f.gc.attemptToDelete); !slices.Equal(got, []string{"ghost-uid"}) {
		t.Fatalf("queued %v, want the virtual owner ghost-uid", got)
	}

	f.syncDelete(f.gc, "ghost-uid")
	f.server.ExpectActions(t)
	if _, ok := f.gc.graph.view("ghost-uid"); ok {
		t.Fatalf("virtual owner still in the graph after the apiserver said it does not exist")
	}
	if got := drain(f.gc.attemptToDelete); !slices.Equal(got, []string{p.UID}) {
		t.Fatalf("queued %v, want the dependent %s", got, p.UID)
	}

	f.syncDelete(f.gc, p.UID)
	f.server.ExpectActions(t, "delete pods p")
	opts := fakeapi.Sent[api.DeleteOptions](t, f.server, "delete pods p")
	if opts.PropagationPolicy == nil || *opts.PropagationPolicy != api.DeletePropagationBackground ||
		opts.Preconditions == nil || *opts.Preconditions.UID != p.UID || *opts.Preconditions.ResourceVersion != p.ResourceVersion {
		t.Errorf("delete options %+v; want Background, on the pod's uid and resourceVersion", opts)
	}
	if _, ok := fakeapi.Get[*api.Pod](t, f.server, "default", "p"); ok {
		t.Fatalf("pod still exists; want it collected")
	}
	d := controllertest.ExpectDecision(t, f.server.Decisions("default/p"),
		"owner ReplicaSet ghost is gone → delete Pod p (Background)", nil)
	if d.Resource != "pods" || d.UID != p.UID || d.ResourceVersion != p.ResourceVersion ||
		!slices.Equal(d.Lines, []string{"owner ReplicaSet ghost: gone (uid ghost-uid not found)"}) {
		t.Errorf("decision %+v; want about pods, the pod's uid and resourceVersion, one line per owner", d)
	}
}

// An owner whose name now belongs to another object (another uid) is
// absent too.
func TestSyncTreatsReplacedOwnerAsAbsent(t *testing.T) {
	rs := replicaSet("web")
	p := pod("p", []api.OwnerReference{ghostRef("web", "old-web-uid")})
	f := newFixture(t, rs, p)
	observe(f.gc, client.PodsResource, nil, p)
	drain(f.gc.attemptToDelete)
	f.syncDelete(f.gc, p.UID)
	f.server.ExpectActions(t, "delete pods p") // and not the new ReplicaSet of the same name
	if _, ok := fakeapi.Get[*api.ReplicaSet](t, f.server, "default", rs.Name); !ok {
		t.Fatalf("the new ReplicaSet of the same name was deleted")
	}
}

// A dependent with one live and one absent owner loses only the dangling
// reference, by a strategic merge patch that names just that reference.
func TestSyncRemovesOnlyTheDanglingReference(t *testing.T) {
	rs := replicaSet("live")
	p := pod("p", []api.OwnerReference{refTo(rs, true), ghostRef("gone", "gone-uid")})
	f := newFixture(t, rs, p)
	observe(f.gc, client.ReplicaSetsResource, nil, rs)
	observe(f.gc, client.PodsResource, nil, p)

	f.syncDelete(f.gc, p.UID)
	f.server.ExpectActions(t, "patch pods p")
	want := map[string]any{"metadata": map[string]any{"uid": p.UID,
		"ownerReferences": []any{map[string]any{"$patch": "delete", "uid": "gone-uid"}}}}
	if got := fakeapi.Sent[map[string]any](t, f.server, "patch pods p"); !reflect.DeepEqual(got, want) {
		t.Errorf("patch %v, want %v", got, want)
	}
	got, _ := fakeapi.Get[*api.Pod](t, f.server, "default", "p")
	if uids := ownerRefUIDs(got.ObjectMeta); !slices.Equal(uids, []string{rs.UID}) {
		t.Fatalf("ownerReferences = %v, want only the live owner %s", uids, rs.UID)
	}
	d := controllertest.ExpectDecision(t, f.server.Decisions("default/p"),
		"1 of 2 owners alive → keep Pod p, remove its references to the 1 others", nil)
	if want := []string{"owner ReplicaSet live: exists", "owner ReplicaSet gone: gone (uid gone-uid not found)"}; !slices.Equal(d.Lines, want) {
		t.Errorf("decision lines %q, want %q", d.Lines, want)
	}
}

// A dependent of a live owner is left exactly as it is.
func TestSyncKeepsDependentOfLiveOwner(t *testing.T) {
	rs := replicaSet("live")
	p := pod("p", []api.OwnerReference{refTo(rs, true)})
	f := newFixture(t, rs, p)
	observe(f.gc, client.ReplicaSetsResource, nil, rs)
	observe(f.gc, client.PodsResource, nil, p)
	f.syncDelete(f.gc, p.UID)
	f.server.ExpectActions(t)
	controllertest.ExpectNoDecision(t, f.server.Decisions("default/p"))
}

// Foreground: the owner keeps its finalizer while a blocking dependent
// exists (even one being deleted) and loses it when that dependent is gone.
func TestSyncForegroundOwnerWaitsForBlockingDependent(t *testing.T) {
	rs := replicaSet("web")
	blocking := pod("blocking", []api.OwnerReference{refTo(rs, true)}, holdFinalizer)
	loose := pod("loose", []api.OwnerReference{refTo(rs, false)})
	f := newFixture(t, rs, blocking, loose)
	observe(f.gc, client.ReplicaSetsResource, nil, rs)
	observe(f.gc, client.PodsResource, nil, blocking)
	observe(f.gc, client.PodsResource, nil, loose)
	drain(f.gc.attemptToDelete)

	deletingRS, ok := f.userDeletes("web", api.DeletePropagationForeground)
	if !ok || deletingRS.DeletionTimestamp == nil || !slices.Contains(deletingRS.Finalizers, api.FinalizerDeleteDependents) {
		t.Fatalf("after a foreground delete the ReplicaSet is %+v; want it marked with foregroundDeletion", deletingRS)
	}
	observe(f.gc, client.ReplicaSetsResource, rs, deletingRS)
	if got, want := drain(f.gc.attemptToDelete), sorted(rs.UID, blocking.UID, loose.UID); !slices.Equal(got, want) {
		t.Fatalf("queued %v, want the owner and both dependents %v", got, want)
	}

	// Both dependents are deleted: their only owner waits for them.
	f.syncDelete(f.gc, blocking.UID)
	f.syncDelete(f.gc, loose.UID)
	f.server.ExpectActions(t, "delete pods blocking", "delete pods loose")
	if _, ok := fakeapi.Get[*api.Pod](t, f.server, "default", "loose"); ok {
		t.Fatalf("pod loose still exists")
	}
	f.gc.graph.observeDeletion(loose.UID)
	held, ok := fakeapi.Get[*api.Pod](t, f.server, "default", "blocking")
	if !ok || held.DeletionTimestamp == nil {
		t.Fatalf("pod blocking = %+v; want it being deleted, held by its finalizer", held)
	}
	observe(f.gc, client.PodsResource, blocking, held)
	drain(f.gc.attemptToDelete)

	// The owner waits: the blocking pod still exists.
	f.syncDelete(f.gc, rs.UID)
	f.server.ExpectActions(t)
	controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"foreground deletion of ReplicaSet web: 1 dependents with blockOwnerDeletion still exist → wait for them", nil)
	if got := drain(f.gc.attemptToDelete); !slices.Equal(got, []string{blocking.UID}) {
		t.Fatalf("queued %v while waiting, want the blocking dependent %s", got, blocking.UID)
	}

	// The test's finalizer goes, and with it the pod.
	removeHold(t, f.server.Client(), "default", "blocking")
	f.server.ExpectActions(t, "patch pods blocking") // the test's write
	f.gc.graph.observeDeletion(blocking.UID)
	if got := drain(f.gc.attemptToDelete); !slices.Equal(got, []string{rs.UID}) {
		t.Fatalf("queued %v after the blocking pod left, want the owner %s", got, rs.UID)
	}
	f.syncDelete(f.gc, rs.UID)
	f.server.ExpectActions(t, "patch replicasets web")
	controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"foreground deletion of ReplicaSet web: no dependent blocks it any more → remove the foregroundDeletion finalizer (the apiserver then deletes it)", nil)
	want := map[string]any{"metadata": map[string]any{"finalizers": []any{}, "resourceVersion": deletingRS.ResourceVersion}}
	if got := fakeapi.Sent[map[string]any](t, f.server, "patch replicasets web"); !reflect.DeepEqual(got, want) {
		t.Errorf("finalizer patch %v, want %v (at the resourceVersion read)", got, want)
	}
	if got, ok := fakeapi.Get[*api.ReplicaSet](t, f.server, "default", "web"); ok {
		t.Fatalf("ReplicaSet still exists (%v); want it gone once no dependent blocks it", got.Finalizers)
	}
}

// Orphan: the dependents lose the ownerReference, then the owner its
// finalizer — and with that the owner is gone.
func TestSyncOrphanRemovesReferencesThenFinalizer(t *testing.T) {
	rs := replicaSet("web")
	p1 := pod("p1", []api.OwnerReference{refTo(rs, true)})
	p2 := pod("p2", []api.OwnerReference{refTo(rs, true)})
	f := newFixture(t, rs, p1, p2)
	observe(f.gc, client.ReplicaSetsResource, nil, rs)
	observe(f.gc, client.PodsResource, nil, p1)
	observe(f.gc, client.PodsResource, nil, p2)
	marked, ok := f.userDeletes("web", api.DeletePropagationOrphan)
	if !ok || !slices.Contains(marked.Finalizers, api.FinalizerOrphanDependents) {
		t.Fatalf("after an orphan delete the ReplicaSet is %+v; want it marked with the orphan finalizer", marked)
	}
	observe(f.gc, client.ReplicaSetsResource, rs, marked)
	if got := drain(f.gc.attemptToOrphan); !slices.Equal(got, []string{rs.UID}) {
		t.Fatalf("orphan queue %v, want %s", got, rs.UID)
	}

	if err := f.gc.syncAttemptToOrphan(f.ctx, rs.UID); err != nil {
		t.Fatalf("sync orphan: %v", err)
	}
	// The dependents in uid order (the graph's view sorts them), then the
	// owner.
	f.server.ExpectActions(t, "patch pods p1", "patch pods p2", "patch replicasets web")
	controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"ReplicaSet web is deleted with propagationPolicy Orphan → remove its ownerReference from 2 dependents, then the orphan finalizer", nil)
	for _, name := range []string{"p1", "p2"} {
		p, ok := fakeapi.Get[*api.Pod](t, f.server, "default", name)
		if !ok || len(p.OwnerReferences) != 0 {
			t.Fatalf("pod %s = %+v (exists %v); want it kept without ownerReferences", name, p, ok)
		}
	}
	if _, ok := fakeapi.Get[*api.ReplicaSet](t, f.server, "default", "web"); ok {
		t.Fatalf("ReplicaSet still exists after its orphan finalizer was removed")
	}
}

// A dependent that cannot be orphaned keeps the owner's finalizer on, so
// the owner does not go and take the dependent with it; the error
// requeues the owner.
func TestSyncOrphanKeepsTheFinalizerWhileADependentFails(t *testing.T) {
	rs := replicaSet("web")
	rs.DeletionTimestamp, rs.Finalizers = ptr(api.Now()), []string{api.FinalizerOrphanDependents}
	p := pod("p", []api.OwnerReference{refTo(rs, true)})
	f := newFixture(t, rs, p)
	observe(f.gc, client.ReplicaSetsResource, nil, rs)
	observe(f.gc, client.PodsResource, nil, p)
	f.server.FailOn(fakeapi.VerbPatch, "pods", "p", apierrors.NewInternalError(errors.New("etcd is down")))
	if err := f.gc.syncAttemptToOrphan(f.ctx, rs.UID); err == nil {
		t.Fatal("sync succeeded although the dependent could not be orphaned")
	}
	f.server.ExpectActions(t, "patch pods p") // and no finalizer removal
}

// Two collectors acting on the same stale graph: whichever comes second
// finds the work done and reports no error.
func TestSyncTwoCollectorsDoTheSameWork(t *testing.T) {
	rs, orphanRS := replicaSet("web"), replicaSet("orphaner")
	p := pod("p", []api.OwnerReference{refTo(rs, true)})
	kept := pod("kept", []api.OwnerReference{refTo(orphanRS, true)})
	f := newFixture(t, rs, p, orphanRS, kept)
	// A second controller-manager, with informers of its own.
	second := newCollector(t, f.server.Client(), informer.NewSharedInformerFactory(f.server.Client(), 0))
	collectors := []*Controller{f.gc, second}
	for _, gc := range collectors {
		observe(gc, client.ReplicaSetsResource, nil, rs)
		observe(gc, client.PodsResource, nil, p)
		observe(gc, client.ReplicaSetsResource, nil, orphanRS)
		observe(gc, client.PodsResource, nil, kept)
	}

	// Background: both see the owner go and both try to collect the pod;
	// the second finds it gone.
	f.userDeletes("web", api.DeletePropagationBackground)
	for _, gc := range collectors {
		gc.graph.observeDeletion(rs.UID)
		f.syncDelete(gc, p.UID)
	}
	f.server.ExpectActions(t, "delete pods p")

	// Orphan: both strip the reference (the second patch changes nothing)
	// and try to remove the finalizer; the second finds the owner gone.
	marked, _ := f.userDeletes("orphaner", api.DeletePropagationOrphan)
	for i, gc := range collectors {
		observe(gc, client.ReplicaSetsResource, orphanRS, marked)
		if err := gc.syncAttemptToOrphan(f.ctx, orphanRS.UID); err != nil {
			t.Fatalf("collector %d: sync orphan: %v", i, err)
		}
	}
	f.server.ExpectActions(t, "patch pods kept", "patch replicasets orphaner", "patch pods kept")
	if _, ok := fakeapi.Get[*api.ReplicaSet](t, f.server, "default", "orphaner"); ok {
		t.Fatalf("orphaned ReplicaSet still exists")
	}
	if got, ok := fakeapi.Get[*api.Pod](t, f.server, "default", "kept"); !ok || len(got.OwnerReferences) != 0 {
		t.Fatalf("orphaned pod = %+v (exists %v); want kept without ownerReferences", got, ok)
	}
}

// A dependent that changed since it was judged (its resourceVersion
// precondition fails) is deleted anyway when its ownerReferences are
// still the ones judged: a status update does not matter.
func TestSyncDeletesADependentThatChangedSinceItWasJudged(t *testing.T) {
	p := pod("p", []api.OwnerReference{ghostRef("ghost", "ghost-uid")})
	f := newFixture(t, p)
	observe(f.gc, client.PodsResource, nil, p)
	deletes := 0
	f.server.React(func(a fakeapi.Action) error {
		if a.String() == "delete pods p" {
			if deletes++; deletes == 1 {
				return apierrors.NewConflict(apierrors.Resource{Resource: "pods"}, "p", "the object has been modified")
			}
		}
		return nil
	})
	f.syncDelete(f.gc, p.UID)
	f.server.ExpectActions(t, "delete pods p", "delete pods p")
	if opts := fakeapi.Sent[api.DeleteOptions](t, f.server, "delete pods p"); opts.Preconditions == nil ||
		opts.Preconditions.ResourceVersion != nil || *opts.Preconditions.UID != p.UID {
		t.Errorf("second delete's preconditions %+v; want the uid only", opts.Preconditions)
	}
	if _, ok := fakeapi.Get[*api.Pod](t, f.server, "default", "p"); ok {
		t.Fatalf("pod still exists; want it collected")
	}
}

// An owner that exists but no informer has reported stays virtual and is
// looked at again later.
func TestSyncRechecksVirtualOwnerThatExists(t *testing.T) {
	rs := replicaSet("web")
	p := pod("p", []api.OwnerReference{refTo(rs, true)})
	f := newFixture(t, rs, p)
	observe(f.gc, client.PodsResource, nil, p)
	drain(f.gc.attemptToDelete)
	f.syncDelete(f.gc, rs.UID)
	f.server.ExpectActions(t)
	if v, ok := f.gc.graph.view(rs.UID); !ok || !v.virtual {
		t.Fatalf("virtual owner node = %+v (in graph %v); want it kept, still virtual", v, ok)
	}
	if waiting := f.gc.attemptToDelete.Waiting(); !slices.Equal(waiting, []string{rs.UID}) {
		t.Fatalf("waiting keys %v, want a recheck of %s", waiting, rs.UID)
	}
}

// A reference to a kind discovery does not know is never taken as
// dangling: the sync fails (and is retried with back-off, as upstream's),
// writing nothing, since the kind may yet appear.
func TestSyncKeepsDependentOfUnknownKind(t *testing.T) {
	widget := api.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "widget-uid"}
	p := pod("p", []api.OwnerReference{widget})
	f := newFixture(t, p)
	observe(f.gc, client.PodsResource, nil, p)
	if err := f.gc.syncAttemptToDelete(f.ctx, "widget-uid"); !errors.Is(err, errUnknownKind) {
		t.Fatalf("sync of an unknown kind = %v; want an unknown-kind error", err)
	}
	if err := f.gc.syncAttemptToDelete(f.ctx, p.UID); !errors.Is(err, errUnknownKind) {
		t.Fatalf("sync of a dependent of an unknown kind = %v; want an unknown-kind error", err)
	}
	f.server.ExpectActions(t)
}

func ptr[T any](v T) *T { return &v }
