package statefulset

// Fixture tests: the listers are filled by hand (the informer factory is
// never started), one sync runs, and the test reads what it wrote from a
// real in-process apiserver. No goroutines of our own, no sleeps.

import (
	"context"
	"log/slog"
	"testing"

	apierrors "kplane/pkg/api/errors"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
)

type fixture struct {
	t        *testing.T
	c        *client.Client
	factory  *informer.SharedInformerFactory
	recorder *events.FakeRecorder
	ctrl     *Controller
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	c := framework.StartAPIServer(t).Client(t, nil)
	f := &fixture{t: t, c: c, factory: informer.NewSharedInformerFactory(c, 0), recorder: &events.FakeRecorder{}}
	ctrl, err := New(c, f.factory, f.recorder, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	f.ctrl = ctrl
	return f
}

// createSet writes set to the apiserver and puts what came back in the cache.
func (f *fixture) createSet(set *api.StatefulSet) *api.StatefulSet {
	f.t.Helper()
	created, err := f.c.StatefulSets("default").Create(context.Background(), set, client.CreateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	if err := f.factory.StatefulSets().Informer().GetIndexer().Add(created); err != nil {
		f.t.Fatal(err)
	}
	return created
}

func (f *fixture) cachePod(pod *api.Pod) {
	f.t.Helper()
	if err := f.factory.Pods().Informer().GetIndexer().Add(pod); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) sync(set *api.StatefulSet) {
	f.t.Helper()
	if err := f.ctrl.sync(context.Background(), "default/"+set.Name); err != nil {
		f.t.Fatalf("sync: %v", err)
	}
}

func (f *fixture) podNames() []string {
	f.t.Helper()
	list, err := f.c.Pods("default").List(context.Background(), client.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	var names []string
	for _, p := range list.Items {
		names = append(names, p.Name)
	}
	return names
}

// A new OrderedReady set: one sync makes the revision, web-0's claim and
// web-0, nothing more, and records both events.
func TestSyncNewSetCreatesFirstPodOnly(t *testing.T) {
	f := newFixture(t)
	set := f.createSet(testSet())
	f.sync(set)

	if got := f.podNames(); len(got) != 1 || got[0] != "web-0" {
		t.Fatalf("pods after one sync %v, want [web-0]", got)
	}
	pvcs, err := f.c.PersistentVolumeClaims("default").List(context.Background(), client.ListOptions{})
	if err != nil || len(pvcs.Items) != 1 || pvcs.Items[0].Name != "www-web-0" {
		t.Fatalf("claims %v (err %v)", pvcs, err)
	}
	revs, err := f.c.ControllerRevisions("default").List(context.Background(), client.ListOptions{})
	if err != nil || len(revs.Items) != 1 || revs.Items[0].Revision != 1 {
		t.Fatalf("revisions %v (err %v)", revs, err)
	}
	fresh, err := f.c.StatefulSets("default").Get(context.Background(), "web", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Status.UpdateRevision != revs.Items[0].Name || fresh.Status.ObservedGeneration != fresh.Generation {
		t.Errorf("status %+v, revision %s", fresh.Status, revs.Items[0].Name)
	}
	want := []string{
		"Normal SuccessfulCreate create Claim www-web-0 Pod web-0 in StatefulSet web success",
		"Normal SuccessfulCreate create Pod web-0 in StatefulSet web successful",
	}
	if got := f.recorder.Events(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("events %q, want %q", got, want)
	}
}

// A stale cache that has seen neither web-0 nor the status write: the
// second sync's create hits AlreadyExists, which is fine and creates
// nothing new; its status write conflicts, which requeues.
func TestSyncOnStaleCacheIsHarmless(t *testing.T) {
	f := newFixture(t)
	set := f.createSet(testSet())
	f.sync(set)
	err := f.ctrl.sync(context.Background(), "default/web")
	if !apierrors.IsConflict(err) {
		t.Errorf("second sync on a stale set: %v, want a conflict on the status write", err)
	}
	if got := f.podNames(); len(got) != 1 {
		t.Errorf("pods %v after two syncs on a stale cache, want only web-0", got)
	}
	if n := len(f.recorder.Events()); n != 2 {
		t.Errorf("%d events, want the first sync's 2: %q", n, f.recorder.Events())
	}
}

// Scale down on a cache whose pods are all ready: one sync deletes web-2
// only.
func TestSyncScaleDownDeletesHighestOnly(t *testing.T) {
	f := newFixture(t)
	s := testSet()
	s.Spec.Replicas = ptrInt32(1)
	set := f.createSet(s)
	f.sync(set) // creates the revision and web-0
	fresh, err := f.c.StatefulSets("default").Get(context.Background(), "web", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rev := fresh.Status.UpdateRevision
	if err := f.factory.StatefulSets().Informer().GetIndexer().Update(fresh); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		var pod *api.Pod
		if i == 0 {
			pod, err = f.c.Pods("default").Get(context.Background(), "web-0", client.GetOptions{})
		} else {
			pod, err = f.c.Pods("default").Create(context.Background(), newPod(set, &set.Spec.Template, rev, i), client.CreateOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
		pod.Status.Phase = api.PodRunning
		pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
		f.cachePod(pod)
	}
	f.sync(set)
	if got := f.podNames(); len(got) != 2 || got[0] != "web-0" || got[1] != "web-1" {
		t.Errorf("pods %v, want web-0 and web-1 (web-2 deleted first, one at a time)", got)
	}
}

func ptrInt32(v int32) *int32 { return &v }
