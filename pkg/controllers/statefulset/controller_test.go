package statefulset

// Each test gives the apiserver and the caches some objects, runs one
// sync on a fakeapi.Server and lists the complete, ordered API writes it
// made, then checks what those writes carried and the Events recorded.
// The StatefulSet controller writes one step at a time, in order, so the
// order of the writes is fixed. No goroutines of our own, no sleeps.

import (
	"context"
	"log/slog"
	"slices"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

// fixture runs one StatefulSet controller against a fake apiserver.
type fixture struct {
	t        *testing.T
	server   *fakeapi.Server
	recorder *events.FakeRecorder
	ctrl     *Controller
}

// newFixture builds the controller and puts objects in the apiserver and
// the informers' caches.
func newFixture(t *testing.T, objects ...api.Object) *fixture {
	t.Helper()
	server := fakeapi.New(t)
	recorder := &events.FakeRecorder{}
	ctrl, err := New(server.Client(), server.Informers(), recorder, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	server.Put(t, objects...)
	return &fixture{t: t, server: server, recorder: recorder, ctrl: ctrl}
}

// sync runs one sync of the set "default/web".
func (f *fixture) sync() error {
	return f.ctrl.sync(context.Background(), "default/web")
}

// storedSet returns testSet() as the apiserver first holds it: with a
// resourceVersion, so that a status write from a stale copy conflicts.
func storedSet() *api.StatefulSet {
	set := testSet()
	set.ResourceVersion, set.Generation = "1", 1
	return set
}

// templateRevision is the ControllerRevision the controller makes of the
// set's template as its first revision.
func templateRevision(t *testing.T, set *api.StatefulSet) *api.ControllerRevision {
	t.Helper()
	data, err := api.RevisionData(&set.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	var collisions int32
	rev := controllerutil.NewControllerRevision(set, "apps/v1", "StatefulSet", set.Spec.Template.Labels, data, 1, &collisions)
	rev.UID, rev.ResourceVersion = "uid-"+rev.Name, "1"
	return rev
}

// A new OrderedReady set: one sync makes the revision, web-0's claim and
// web-0, nothing more, and records both events.
func TestSyncNewSetCreatesFirstPodOnly(t *testing.T) {
	set := storedSet()
	rev := templateRevision(t, set)
	f := newFixture(t, set)
	if err := f.sync(); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t,
		"create controllerrevisions "+rev.Name,
		"create persistentvolumeclaims www-web-0",
		"create pods web-0",
		"update statefulsets/status web")
	if stored := fakeapi.Result[*api.ControllerRevision](t, f.server, "create controllerrevisions "+rev.Name); stored.Revision != 1 {
		t.Errorf("revision number = %d, want 1", stored.Revision)
	}
	if pod := fakeapi.Sent[*api.Pod](t, f.server, "create pods web-0"); pod.Labels[api.ControllerRevisionHashLabelKey] != rev.Name {
		t.Errorf("web-0 labels %v, want the revision %s", pod.Labels, rev.Name)
	}
	status := fakeapi.Sent[*api.StatefulSet](t, f.server, "update statefulsets/status web").Status
	if status.UpdateRevision != rev.Name || status.ObservedGeneration != set.Generation {
		t.Errorf("status %+v, revision %s", status, rev.Name)
	}
	want := []string{
		"Normal SuccessfulCreate create Claim www-web-0 Pod web-0 in StatefulSet web success",
		"Normal SuccessfulCreate create Pod web-0 in StatefulSet web successful",
	}
	if got := f.recorder.Events(); !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"StatefulSet wants 3 replicas (OrderedReady, RollingUpdate partition 0): 0 exist, 0 Running and Ready, 0 at revision "+rev.Name+
			", 0 beyond the replicas → create web-0 (missing)",
		map[string]string{"replicas": "3", "existing": "0", "actions": "1"})
}

// A stale cache that has seen neither web-0 nor the status write: the
// second sync's creates hit AlreadyExists, which is fine and creates
// nothing new; its status write conflicts, which requeues.
func TestSyncOnStaleCacheIsHarmless(t *testing.T) {
	set := storedSet()
	rev := templateRevision(t, set)
	f := newFixture(t, set)
	if err := f.sync(); err != nil {
		t.Fatal(err)
	}
	writes := []string{
		"create controllerrevisions " + rev.Name,
		"create persistentvolumeclaims www-web-0",
		"create pods web-0",
		"update statefulsets/status web",
	}
	f.server.ExpectActions(t, writes...)

	err := f.sync()
	if !apierrors.IsConflict(err) {
		t.Errorf("second sync on a stale set: %v, want a conflict on the status write", err)
	}
	f.server.ExpectActions(t, writes...) // the same writes, each refused
	second := f.server.Writes()[len(writes):]
	for _, w := range second[:3] {
		if !apierrors.IsAlreadyExists(w.Err) {
			t.Errorf("%s answered %v, want AlreadyExists", w, w.Err)
		}
	}
	if !apierrors.IsConflict(second[3].Err) {
		t.Errorf("%s answered %v, want Conflict", second[3], second[3].Err)
	}
	if n := len(f.recorder.Events()); n != 2 {
		t.Errorf("%d events, want the first sync's 2: %q", n, f.recorder.Events())
	}
}

// Scale down on a cache whose pods are all ready: one sync deletes web-2
// only, guarded by its uid.
func TestSyncScaleDownDeletesHighestOnly(t *testing.T) {
	set := storedSet()
	set.Spec.Replicas = ptrInt32(1)
	rev := templateRevision(t, set)
	set.Status = api.StatefulSetStatus{CurrentRevision: rev.Name, UpdateRevision: rev.Name}
	objects := []api.Object{set, rev}
	for i := range 3 {
		pod := newPod(set, &set.Spec.Template, rev.Name, i)
		pod.Namespace, pod.UID, pod.ResourceVersion = "default", "uid-"+pod.Name, "1"
		pod.Status.Phase = api.PodRunning
		pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
		objects = append(objects, pod)
	}
	f := newFixture(t, objects...)
	if err := f.sync(); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, "delete pods web-2", "update statefulsets/status web")
	opts := fakeapi.Sent[api.DeleteOptions](t, f.server, "delete pods web-2")
	if opts.Preconditions == nil || opts.Preconditions.UID == nil || *opts.Preconditions.UID != "uid-web-2" {
		t.Errorf("delete options %+v, want web-2's uid as a precondition", opts)
	}
	if want := []string{"Normal SuccessfulDelete delete Pod web-2 in StatefulSet web successful"}; !slices.Equal(f.recorder.Events(), want) {
		t.Errorf("events %q, want %q", f.recorder.Events(), want)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"StatefulSet wants 1 replicas (OrderedReady, RollingUpdate partition 0): 1 exist, 1 Running and Ready, 1 at revision "+rev.Name+
			", 2 beyond the replicas → delete web-2 (scale down)",
		map[string]string{"replicas": "1", "condemned": "2", "actions": "1"})
}

func ptrInt32(v int32) *int32 { return &v }
