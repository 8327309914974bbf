package garbagecollector

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

// Fixture tests: objects are created in a real apiserver, fed to the graph
// by hand (no informer runs), and one sync is run; the test then checks
// what the sync did to the objects and which uids it queued.

// holdFinalizer is a finalizer of the tests' own that keeps a dependent in
// existence (being deleted) until the test removes it.
const holdFinalizer = "kplane.test/hold"

type fixture struct {
	t   *testing.T
	ctx context.Context
	c   *client.Client
	gc  *Controller
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	return &fixture{t: t, ctx: context.Background(), c: c, gc: newCollector(t, c, controllertest.TestLogger())}
}

// newCollector builds a collector whose informers are never started.
func newCollector(t *testing.T, c *client.Client, log *slog.Logger) *Controller {
	t.Helper()
	gc, err := New(c, informer.NewSharedInformerFactory(c, 0), &events.FakeRecorder{}, Options{Logger: log})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(gc.attemptToDelete.ShutDown)
	t.Cleanup(gc.attemptToOrphan.ShutDown)
	return gc
}

func (f *fixture) observe(gc *Controller, res client.Resource, old, obj api.Object) {
	gc.graph.observe(res, old, obj)
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

func labelsFor(name string) map[string]string { return map[string]string{"app": name} }

func createRS(t *testing.T, c *client.Client, ns, name string) *api.ReplicaSet {
	t.Helper()
	replicas := int32(0)
	rs, err := c.ReplicaSets(ns).Create(context.Background(), &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labelsFor(name)},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labelsFor(name)},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create ReplicaSet %s: %v", name, err)
	}
	return rs
}

// createPod creates a pod (never scheduled) with the given owners and
// finalizers.
func createPod(t *testing.T, c *client.Client, ns, name string, owners []api.OwnerReference, finalizers ...string) *api.Pod {
	t.Helper()
	pod, err := c.Pods(ns).Create(context.Background(), &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: owners, Finalizers: finalizers},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}},
	}, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod %s: %v", name, err)
	}
	return pod
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

func getPod(t *testing.T, c *client.Client, ns, name string) (*api.Pod, bool) {
	t.Helper()
	pod, err := c.Pods(ns).Get(context.Background(), name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		t.Fatalf("get pod %s: %v", name, err)
	}
	return pod, true
}

func getRS(t *testing.T, c *client.Client, ns, name string) (*api.ReplicaSet, bool) {
	t.Helper()
	rs, err := c.ReplicaSets(ns).Get(context.Background(), name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		t.Fatalf("get ReplicaSet %s: %v", name, err)
	}
	return rs, true
}

func deleteRS(t *testing.T, c *client.Client, ns, name string, policy api.DeletionPropagation) {
	t.Helper()
	if err := c.ReplicaSets(ns).Delete(context.Background(), name, client.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		t.Fatalf("delete ReplicaSet %s (%s): %v", name, policy, err)
	}
}

// removeHold takes the test's finalizer off a pod, letting it go.
func removeHold(t *testing.T, c *client.Client, ns, name string) {
	t.Helper()
	patch := fmt.Appendf(nil, `{"metadata":{"$deleteFromPrimitiveList/finalizers":[%q]}}`, holdFinalizer)
	if _, err := c.Pods(ns).Patch(context.Background(), name, client.StrategicMergePatchType, patch, client.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("remove finalizer from pod %s: %v", name, err)
	}
}

func ownerRefUIDs(meta api.ObjectMeta) []string {
	var uids []string
	for _, r := range meta.OwnerReferences {
		uids = append(uids, r.UID)
	}
	return uids
}

// A pod whose owner never existed: the virtual owner is checked, found
// absent and dropped; then the pod is deleted.
func TestSyncCollectsPodOfOwnerThatNeverExisted(t *testing.T) {
	f := newFixture(t)
	pod := createPod(t, f.c, "default", "p", []api.OwnerReference{ghostRef("ghost", "ghost-uid")})
	f.observe(f.gc, client.PodsResource, nil, pod)
	if got := drain(f.gc.attemptToDelete); !slices.Equal(got, []string{"ghost-uid"}) {
		t.Fatalf("queued %v, want the virtual owner ghost-uid", got)
	}

	if err := f.gc.syncAttemptToDelete(f.ctx, "ghost-uid"); err != nil {
		t.Fatalf("sync ghost: %v", err)
	}
	if _, ok := f.gc.graph.view("ghost-uid"); ok {
		t.Fatalf("virtual owner still in the graph after the apiserver said it does not exist")
	}
	if got := drain(f.gc.attemptToDelete); !slices.Equal(got, []string{pod.UID}) {
		t.Fatalf("queued %v, want the dependent %s", got, pod.UID)
	}

	if err := f.gc.syncAttemptToDelete(f.ctx, pod.UID); err != nil {
		t.Fatalf("sync pod: %v", err)
	}
	if _, ok := getPod(t, f.c, "default", "p"); ok {
		t.Fatalf("pod still exists; want it collected")
	}
}

// An owner whose name now belongs to another object (another uid) is
// absent too.
func TestSyncTreatsReplacedOwnerAsAbsent(t *testing.T) {
	f := newFixture(t)
	rs := createRS(t, f.c, "default", "web")
	pod := createPod(t, f.c, "default", "p", []api.OwnerReference{ghostRef("web", "old-web-uid")})
	f.observe(f.gc, client.PodsResource, nil, pod)
	drain(f.gc.attemptToDelete)
	if err := f.gc.syncAttemptToDelete(f.ctx, pod.UID); err != nil {
		t.Fatalf("sync pod: %v", err)
	}
	if _, ok := getPod(t, f.c, "default", "p"); ok {
		t.Fatalf("pod of the replaced owner still exists")
	}
	if _, ok := getRS(t, f.c, "default", rs.Name); !ok {
		t.Fatalf("the new ReplicaSet of the same name was deleted")
	}
}

// A dependent with one live and one absent owner loses only the dangling
// reference.
func TestSyncRemovesOnlyTheDanglingReference(t *testing.T) {
	f := newFixture(t)
	rs := createRS(t, f.c, "default", "live")
	pod := createPod(t, f.c, "default", "p", []api.OwnerReference{refTo(rs, true), ghostRef("gone", "gone-uid")})
	f.observe(f.gc, client.ReplicaSetsResource, nil, rs)
	f.observe(f.gc, client.PodsResource, nil, pod)

	if err := f.gc.syncAttemptToDelete(f.ctx, pod.UID); err != nil {
		t.Fatalf("sync pod: %v", err)
	}
	got, ok := getPod(t, f.c, "default", "p")
	if !ok {
		t.Fatalf("pod deleted; it has a live owner")
	}
	if uids := ownerRefUIDs(got.ObjectMeta); !slices.Equal(uids, []string{rs.UID}) {
		t.Fatalf("ownerReferences = %v, want only the live owner %s", uids, rs.UID)
	}
}

// A dependent of a live owner is left exactly as it is.
func TestSyncKeepsDependentOfLiveOwner(t *testing.T) {
	f := newFixture(t)
	rs := createRS(t, f.c, "default", "live")
	pod := createPod(t, f.c, "default", "p", []api.OwnerReference{refTo(rs, true)})
	f.observe(f.gc, client.ReplicaSetsResource, nil, rs)
	f.observe(f.gc, client.PodsResource, nil, pod)
	if err := f.gc.syncAttemptToDelete(f.ctx, pod.UID); err != nil {
		t.Fatalf("sync pod: %v", err)
	}
	got, ok := getPod(t, f.c, "default", "p")
	if !ok || got.ResourceVersion != pod.ResourceVersion {
		t.Fatalf("pod changed or deleted (exists %v, resourceVersion %s → %v); want untouched", ok, pod.ResourceVersion, got)
	}
}

// Foreground: the owner keeps its finalizer while a blocking dependent
// exists (even one being deleted) and loses it when that dependent is gone.
func TestSyncForegroundOwnerWaitsForBlockingDependent(t *testing.T) {
	f := newFixture(t)
	rs := createRS(t, f.c, "default", "web")
	blocking := createPod(t, f.c, "default", "blocking", []api.OwnerReference{refTo(rs, true)}, holdFinalizer)
	loose := createPod(t, f.c, "default", "loose", []api.OwnerReference{refTo(rs, false)})
	f.observe(f.gc, client.ReplicaSetsResource, nil, rs)
	f.observe(f.gc, client.PodsResource, nil, blocking)
	f.observe(f.gc, client.PodsResource, nil, loose)
	drain(f.gc.attemptToDelete)

	deleteRS(t, f.c, "default", "web", api.DeletePropagationForeground)
	deletingRS, ok := getRS(t, f.c, "default", "web")
	if !ok || deletingRS.DeletionTimestamp == nil || !slices.Contains(deletingRS.Finalizers, api.FinalizerDeleteDependents) {
		t.Fatalf("after a foreground delete the ReplicaSet is %+v; want it marked with foregroundDeletion", deletingRS)
	}
	f.observe(f.gc, client.ReplicaSetsResource, rs, deletingRS)
	if got, want := drain(f.gc.attemptToDelete), sorted(rs.UID, blocking.UID, loose.UID); !slices.Equal(got, want) {
		t.Fatalf("queued %v, want the owner and both dependents %v", got, want)
	}

	// Both dependents are deleted: their only owner waits for them.
	for _, pod := range []*api.Pod{blocking, loose} {
		if err := f.gc.syncAttemptToDelete(f.ctx, pod.UID); err != nil {
			t.Fatalf("sync %s: %v", pod.Name, err)
		}
	}
	if _, ok := getPod(t, f.c, "default", "loose"); ok {
		t.Fatalf("pod loose still exists")
	}
	f.gc.graph.observeDeletion(loose.UID)
	held, ok := getPod(t, f.c, "default", "blocking")
	if !ok || held.DeletionTimestamp == nil {
		t.Fatalf("pod blocking = %+v; want it being deleted, held by its finalizer", held)
	}
	f.observe(f.gc, client.PodsResource, blocking, held)
	drain(f.gc.attemptToDelete)

	// The owner waits: the blocking pod still exists.
	if err := f.gc.syncAttemptToDelete(f.ctx, rs.UID); err != nil {
		t.Fatalf("sync owner: %v", err)
	}
	if got, ok := getRS(t, f.c, "default", "web"); !ok || !slices.Contains(got.Finalizers, api.FinalizerDeleteDependents) {
		t.Fatalf("ReplicaSet = %+v (exists %v); want it kept with foregroundDeletion while a blocking pod exists", got, ok)
	}
	if got := drain(f.gc.attemptToDelete); !slices.Equal(got, []string{blocking.UID}) {
		t.Fatalf("queued %v while waiting, want the blocking dependent %s", got, blocking.UID)
	}

	removeHold(t, f.c, "default", "blocking")
	f.gc.graph.observeDeletion(blocking.UID)
	if got := drain(f.gc.attemptToDelete); !slices.Equal(got, []string{rs.UID}) {
		t.Fatalf("queued %v after the blocking pod left, want the owner %s", got, rs.UID)
	}
	if err := f.gc.syncAttemptToDelete(f.ctx, rs.UID); err != nil {
		t.Fatalf("sync owner: %v", err)
	}
	if got, ok := getRS(t, f.c, "default", "web"); ok {
		t.Fatalf("ReplicaSet still exists (%v); want it gone once no dependent blocks it", got.Finalizers)
	}
}

func sorted(s ...string) []string {
	slices.Sort(s)
	return s
}

// Orphan: the dependents lose the ownerReference, then the owner its
// finalizer — and with that the owner is gone.
func TestSyncOrphanRemovesReferencesThenFinalizer(t *testing.T) {
	f := newFixture(t)
	rs := createRS(t, f.c, "default", "web")
	p1 := createPod(t, f.c, "default", "p1", []api.OwnerReference{refTo(rs, true)})
	p2 := createPod(t, f.c, "default", "p2", []api.OwnerReference{refTo(rs, true)})
	for _, o := range []api.Object{rs, p1, p2} {
		res := client.PodsResource
		if o == api.Object(rs) {
			res = client.ReplicaSetsResource
		}
		f.observe(f.gc, res, nil, o)
	}
	deleteRS(t, f.c, "default", "web", api.DeletePropagationOrphan)
	marked, ok := getRS(t, f.c, "default", "web")
	if !ok || !slices.Contains(marked.Finalizers, api.FinalizerOrphanDependents) {
		t.Fatalf("after an orphan delete the ReplicaSet is %+v; want it marked with the orphan finalizer", marked)
	}
	f.observe(f.gc, client.ReplicaSetsResource, rs, marked)
	if got := drain(f.gc.attemptToOrphan); !slices.Equal(got, []string{rs.UID}) {
		t.Fatalf("orphan queue %v, want %s", got, rs.UID)
	}

	if err := f.gc.syncAttemptToOrphan(f.ctx, rs.UID); err != nil {
		t.Fatalf("sync orphan: %v", err)
	}
	for _, name := range []string{"p1", "p2"} {
		pod, ok := getPod(t, f.c, "default", name)
		if !ok || len(pod.OwnerReferences) != 0 {
			t.Fatalf("pod %s = %+v (exists %v); want it kept without ownerReferences", name, pod, ok)
		}
	}
	if _, ok := getRS(t, f.c, "default", "web"); ok {
		t.Fatalf("ReplicaSet still exists after its orphan finalizer was removed")
	}
}

// Two collectors acting on the same stale graph: whichever comes second
// finds the work done and reports no error.
func TestSyncTwoCollectorsDoTheSameWork(t *testing.T) {
	f := newFixture(t)
	second := newCollector(t, f.c, controllertest.TestLogger())
	rs := createRS(t, f.c, "default", "web")
	pod := createPod(t, f.c, "default", "p", []api.OwnerReference{refTo(rs, true)})
	orphanRS := createRS(t, f.c, "default", "orphaner")
	kept := createPod(t, f.c, "default", "kept", []api.OwnerReference{refTo(orphanRS, true)})
	for _, gc := range []*Controller{f.gc, second} {
		f.observe(gc, client.ReplicaSetsResource, nil, rs)
		f.observe(gc, client.PodsResource, nil, pod)
		f.observe(gc, client.ReplicaSetsResource, nil, orphanRS)
		f.observe(gc, client.PodsResource, nil, kept)
	}

	// Background: both see the owner go and both try to collect the pod.
	deleteRS(t, f.c, "default", "web", api.DeletePropagationBackground)
	for i, gc := range []*Controller{f.gc, second} {
		gc.graph.observeDeletion(rs.UID)
		if err := gc.syncAttemptToDelete(f.ctx, pod.UID); err != nil {
			t.Fatalf("collector %d: sync pod: %v", i, err)
		}
	}
	if _, ok := getPod(t, f.c, "default", "p"); ok {
		t.Fatalf("pod still exists")
	}

	// Orphan: both strip the reference and remove the finalizer.
	deleteRS(t, f.c, "default", "orphaner", api.DeletePropagationOrphan)
	marked, _ := getRS(t, f.c, "default", "orphaner")
	for i, gc := range []*Controller{f.gc, second} {
		f.observe(gc, client.ReplicaSetsResource, orphanRS, marked)
		if err := gc.syncAttemptToOrphan(f.ctx, orphanRS.UID); err != nil {
			t.Fatalf("collector %d: sync orphan: %v", i, err)
		}
	}
	if _, ok := getRS(t, f.c, "default", "orphaner"); ok {
		t.Fatalf("orphaned ReplicaSet still exists")
	}
	if got, ok := getPod(t, f.c, "default", "kept"); !ok || len(got.OwnerReferences) != 0 {
		t.Fatalf("orphaned pod = %+v (exists %v); want kept without ownerReferences", got, ok)
	}
}

// An owner that exists but no informer has reported stays virtual and is
// looked at again later.
func TestSyncRechecksVirtualOwnerThatExists(t *testing.T) {
	f := newFixture(t)
	rs := createRS(t, f.c, "default", "web")
	pod := createPod(t, f.c, "default", "p", []api.OwnerReference{refTo(rs, true)})
	f.observe(f.gc, client.PodsResource, nil, pod)
	drain(f.gc.attemptToDelete)
	if err := f.gc.syncAttemptToDelete(f.ctx, rs.UID); err != nil {
		t.Fatalf("sync virtual owner: %v", err)
	}
	if v, ok := f.gc.graph.view(rs.UID); !ok || !v.virtual {
		t.Fatalf("virtual owner node = %+v (in graph %v); want it kept, still virtual", v, ok)
	}
	if waiting := f.gc.attemptToDelete.Waiting(); !slices.Equal(waiting, []string{rs.UID}) {
		t.Fatalf("waiting keys %v, want a recheck of %s", waiting, rs.UID)
	}
	if _, ok := getPod(t, f.c, "default", "p"); !ok {
		t.Fatalf("pod of a live owner deleted")
	}
}

// A reference to a kind kplane does not serve is never taken as dangling.
func TestSyncKeepsDependentOfUnknownKind(t *testing.T) {
	f := newFixture(t)
	widget := api.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "widget-uid"}
	pod := createPod(t, f.c, "default", "p", []api.OwnerReference{widget})
	f.observe(f.gc, client.PodsResource, nil, pod)
	if err := f.gc.syncAttemptToDelete(f.ctx, "widget-uid"); err == nil {
		t.Fatalf("sync of an unknown kind: no error; want a not-retried error")
	}
	if err := f.gc.syncAttemptToDelete(f.ctx, pod.UID); err != nil {
		t.Fatalf("sync pod: %v", err)
	}
	if _, ok := getPod(t, f.c, "default", "p"); !ok {
		t.Fatalf("pod with an owner of an unknown kind was deleted")
	}
}
