package replicaset

import (
	"slices"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/informer"
)

// The event handlers only enqueue keys and keep expectations: each case
// feeds one event and checks the queue, and that no request was made.
func TestPodHandlers(t *testing.T) {
	rsA := newRS("a", 1, map[string]string{"app": "a"})
	rsB := newRS("b", 1, map[string]string{"app": "b"})
	rsEmpty := newRS("empty", 1, nil)
	rsEmpty.Spec.Selector = &api.LabelSelector{} // matches everything; never adopts via events
	appA := map[string]string{"app": "a"}
	appB := map[string]string{"app": "b"}

	tests := []struct {
		name string
		// event feeds one event to the controller.
		event       func(f *fixture)
		wantQueued  []string
		wantWaiting []string
	}{
		{
			name:       "pod added with a controllerRef wakes its controller",
			event:      func(f *fixture) { f.ctrl.addPod(newPod("p", appA, ownedBy(rsA))) },
			wantQueued: []string{"default/a"},
		},
		{
			name:       "orphan added wakes every owner whose selector matches",
			event:      func(f *fixture) { f.ctrl.addPod(newPod("p", appB)) },
			wantQueued: []string{"default/b"},
		},
		{
			name: "controllerRef to an owner of another UID is ignored",
			event: func(f *fixture) {
				stale := api.DeepCopy(rsA)
				stale.UID = "uid-old-a"
				f.ctrl.addPod(newPod("p", appA, ownedBy(stale)))
			},
		},
		{
			name: "orphan relabelled wakes the owners matching its new labels",
			event: func(f *fixture) {
				old := newPod("p", appA)
				cur := api.DeepCopy(old)
				cur.Labels, cur.ResourceVersion = appB, "2"
				f.ctrl.updatePod(old, cur)
			},
			wantQueued: []string{"default/b"},
		},
		{
			name: "controllerRef changed wakes old and new controller",
			event: func(f *fixture) {
				old := newPod("p", appA, ownedBy(rsA))
				cur := api.DeepCopy(old)
				ownedBy(rsB)(cur)
				cur.ResourceVersion = "2"
				f.ctrl.updatePod(old, cur)
			},
			wantQueued: []string{"default/a", "default/b"},
		},
		{
			name: "released pod wakes its former controller and the owners that may adopt it",
			event: func(f *fixture) {
				old := newPod("p", appB, ownedBy(rsA))
				cur := api.DeepCopy(old)
				cur.OwnerReferences, cur.ResourceVersion = nil, "2"
				f.ctrl.updatePod(old, cur)
			},
			wantQueued: []string{"default/a", "default/b"},
		},
		{
			name: "resync (same resourceVersion) does nothing",
			event: func(f *fixture) {
				pod := newPod("p", appA, ownedBy(rsA))
				f.ctrl.updatePod(pod, pod)
			},
		},
		{
			name: "pod became ready: enqueued now and after minReadySeconds+1s",
			event: func(f *fixture) {
				old := newPod("p", appA, ownedBy(rsSlow))
				cur := api.DeepCopy(old)
				readyFor(0)(cur)
				cur.ResourceVersion = "2"
				f.ctrl.updatePod(old, cur)
			},
			wantQueued:  []string{"default/slow"},
			wantWaiting: []string{"default/slow"},
		},
		{
			name: "pod deleted (tombstone) wakes its controller",
			event: func(f *fixture) {
				f.ctrl.deletePod(informer.DeletedFinalStateUnknown{Key: "default/p", Obj: newPod("p", appA, ownedBy(rsA))})
			},
			wantQueued: []string{"default/a"},
		},
		{
			name:  "orphan deleted wakes no one",
			event: func(f *fixture) { f.ctrl.deletePod(newPod("p", appA)) },
		},
		{
			name: "owner updated is enqueued",
			event: func(f *fixture) {
				cur := api.DeepCopy(rsA)
				cur.ResourceVersion = "2"
				f.ctrl.updateOwner(rsA, cur)
			},
			wantQueued: []string{"default/a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, rsA, rsB, rsEmpty, rsSlow)
			tt.event(f)
			if got := f.queued(); !slices.Equal(got, tt.wantQueued) {
				t.Errorf("queued = %v, want %v", got, tt.wantQueued)
			}
			waiting := f.ctrl.queue.Waiting()
			slices.Sort(waiting)
			if !slices.Equal(waiting, tt.wantWaiting) {
				t.Errorf("waiting = %v, want %v", waiting, tt.wantWaiting)
			}
			// Handlers only read the caches: no request at all.
			if actions := f.server.Actions(); len(actions) != 0 {
				t.Errorf("a handler called the apiserver: %v", actions)
			}
		})
	}
}

// rsSlow has minReadySeconds, for the "became ready" case.
var rsSlow = func() *api.ReplicaSet {
	rs := newRS("slow", 1, map[string]string{"app": "a", "speed": "slow"})
	rs.Spec.MinReadySeconds = 10
	return rs
}()

// The expectation bookkeeping of the handlers: a created pod lowers the
// creates, a deleted or terminating pod the deletes, a deleted owner
// forgets them.
func TestHandlersKeepExpectations(t *testing.T) {
	rs := newRS("a", 3, map[string]string{"app": "a"})
	f := newFixture(t, rs)
	exp := f.ctrl.expectations

	exp.ExpectCreations("default/a", 2)
	f.ctrl.addPod(newPod("p1", rs.Spec.Template.Labels, ownedBy(rs)))
	if adds, _ := exp.Pending("default/a"); adds != 1 {
		t.Fatalf("pending creates after one pod added = %d, want 1", adds)
	}

	exp.ExpectDeletions("default/a", []string{"default/p1", "default/p2", "default/p3"})
	terminating := newPod("p1", rs.Spec.Template.Labels, ownedBy(rs))
	ts := api.NewTime(testNow)
	terminating.DeletionTimestamp = &ts
	// A pod that shows up already terminating (after a restart) is a
	// deletion, not a creation.
	f.ctrl.addPod(terminating)
	old := newPod("p2", rs.Spec.Template.Labels, ownedBy(rs))
	cur := api.DeepCopy(old)
	cur.DeletionTimestamp, cur.ResourceVersion = &ts, "2"
	f.ctrl.updatePod(old, cur)
	if _, deletes := exp.Pending("default/a"); deletes != 1 {
		t.Fatalf("pending deletes = %d, want 1 (p3)", deletes)
	}

	f.ctrl.deleteOwner(informer.DeletedFinalStateUnknown{Key: "default/a", Obj: rs})
	if adds, deletes := exp.Pending("default/a"); adds != 0 || deletes != 0 {
		t.Fatalf("expectations of a deleted owner = %d creates, %d deletes; want forgotten", adds, deletes)
	}
	if got := f.queued(); !slices.Equal(got, []string{"default/a"}) {
		t.Errorf("queued = %v, want the deleted owner's key", got)
	}
}

// An owner re-created under the same name, seen as one update, starts
// with clean expectations.
func TestUpdateOwnerWithNewUIDForgetsExpectations(t *testing.T) {
	rs := newRS("a", 3, map[string]string{"app": "a"})
	f := newFixture(t, rs)
	f.ctrl.expectations.ExpectCreations("default/a", 3)
	recreated := api.DeepCopy(rs)
	recreated.UID, recreated.ResourceVersion = "uid-a-2", "9"
	f.ctrl.updateOwner(rs, recreated)
	if !f.ctrl.expectations.Satisfied("default/a") {
		t.Fatalf("expectations of the old owner survived its re-creation")
	}
}
