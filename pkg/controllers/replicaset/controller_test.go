package replicaset

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
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

var web = map[string]string{"replicaset": "test"}

// From zero pods, one sync creates spec.replicas pods from the template,
// each controlled by the ReplicaSet, and expects to see them.
func TestSyncCreatesMissingPods(t *testing.T) {
	rs := newRS("ng-rs", 3, web)
	f := newFixture(t, rs)
	f.mustSync("default/ng-rs")

	if got := len(f.podControl.created); got != 3 {
		t.Fatalf("created %d pods, want 3", got)
	}
	for _, pod := range f.podControl.created {
		ref := controllerutil.GetControllerOf(&pod.ObjectMeta)
		if pod.GenerateName != "ng-rs-" || pod.Labels["replicaset"] != "test" || ref == nil ||
			ref.UID != rs.UID || ref.Kind != "ReplicaSet" || ref.APIVersion != "apps/v1" ||
			ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
			t.Errorf("pod %s: generateName %q, labels %v, controllerRef %+v", pod.Name, pod.GenerateName, pod.Labels, ref)
		}
	}
	if adds, _ := f.ctrl.manager.Expectations().Pending("default/ng-rs"); adds != 3 {
		t.Errorf("pending creates = %d, want 3", adds)
	}
	// The status reports what the cache shows (no pods yet) and that this
	// generation was seen.
	if s := f.lastStatus(); s.Replicas != 0 || s.ObservedGeneration != 1 || len(s.Conditions) != 0 {
		t.Errorf("status = %+v, want 0 replicas, observedGeneration 1, no conditions", s)
	}
}

// The slow start shows in which creates are tried when one fails: 10
// wanted, the second create fails, so the batches were 1 and 2 and the
// seven never tried are not expected any more.
func TestSyncSlowStartStopsAfterFailedBatch(t *testing.T) {
	f := newFixture(t, newRS("ng-rs", 10, web))
	quota := apierrors.NewForbidden(apierrors.Resource{Resource: "pods"}, "", errors.New("exceeded quota"))
	f.podControl.failCreate = func(n int) error {
		if n == 2 {
			return quota
		}
		return nil
	}
	err := f.sync("default/ng-rs")
	if !apierrors.IsForbidden(err) {
		t.Fatalf("sync error = %v, want the create's Forbidden error", err)
	}
	if f.podControl.calls != 3 || len(f.podControl.created) != 2 {
		t.Fatalf("create calls = %d (created %d), want 3 calls (batches of 1 and 2), 2 created", f.podControl.calls, len(f.podControl.created))
	}
	// 10 expected, 8 never coming (1 failed + 7 skipped): 2 still expected.
	if adds, _ := f.ctrl.manager.Expectations().Pending("default/ng-rs"); adds != 2 {
		t.Errorf("pending creates = %d, want 2", adds)
	}
	cond := findCondition(f.lastStatus().Conditions, api.ReplicaSetReplicaFailure)
	if cond == nil || cond.Status != api.ConditionTrue || cond.Reason != ReasonFailedCreate || !strings.Contains(cond.Message, "exceeded quota") {
		t.Errorf("ReplicaFailure condition = %+v, want True/FailedCreate with the error", cond)
	}
}

// Until the informer has seen the pods a sync created, the next sync must
// not create them again — whatever the cache says.
func TestExpectationsBlockSecondSyncUntilPodsObserved(t *testing.T) {
	f := newFixture(t, newRS("ng-rs", 3, web))
	f.mustSync("default/ng-rs")
	created := slices.Clone(f.podControl.created)

	f.mustSync("default/ng-rs")
	if got := len(f.podControl.created); got != 3 {
		t.Fatalf("second sync created more pods: %d in all, want 3", got)
	}

	// Two of three arrive: still waiting.
	for _, pod := range created[:2] {
		f.add(pod)
		f.ctrl.manager.addPod(pod)
	}
	f.mustSync("default/ng-rs")
	if got := len(f.podControl.created); got != 3 {
		t.Fatalf("sync with one pod outstanding created more: %d in all, want 3", got)
	}
	if s := f.lastStatus(); s.Replicas != 2 {
		t.Errorf("status.replicas = %d, want 2 (status is updated while waiting)", s.Replicas)
	}

	f.add(created[2])
	f.ctrl.manager.addPod(created[2])
	if !f.ctrl.manager.Expectations().Satisfied("default/ng-rs") {
		t.Fatalf("expectations not satisfied after all three pods were observed")
	}
	f.mustSync("default/ng-rs")
	if got := len(f.podControl.created); got != 3 {
		t.Fatalf("created %d pods in all, want 3", got)
	}
	if s := f.lastStatus(); s.Replicas != 3 || s.FullyLabeledReplicas != 3 {
		t.Errorf("status = %+v, want 3 replicas, 3 fully labeled", s)
	}

	// Idempotent: nothing changed, so nothing is written.
	writes := len(f.statusWrites)
	f.mustSync("default/ng-rs")
	if len(f.statusWrites) != writes || len(f.podControl.created) != 3 || len(f.podControl.deleted) != 0 {
		t.Errorf("a sync with nothing to do acted: %d status writes (was %d), %d creates, %d deletes",
			len(f.statusWrites), writes, len(f.podControl.created), len(f.podControl.deleted))
	}
}

// A watch event that never comes stalls an owner only until the
// expectations time out.
func TestExpectationsExpire(t *testing.T) {
	f := newFixture(t, newRS("ng-rs", 2, web))
	f.mustSync("default/ng-rs")
	f.clock.Step(controllerutil.ExpectationsTimeout + time.Second)
	f.mustSync("default/ng-rs")
	if got := len(f.podControl.created); got != 4 {
		t.Fatalf("created %d pods in all, want 4 (2, then 2 again after the timeout)", got)
	}
}

// Too many pods: the ones that matter least go, in upstream's order.
func TestSyncDeletesLowestRankedPods(t *testing.T) {
	rs := newRS("ng-rs", 2, web)
	f := newFixture(t, rs,
		newPod("ready-old", web, ownedBy(rs), onNode("node1"), readyFor(time.Hour)),
		newPod("ready-new", web, ownedBy(rs), onNode("node2"), readyFor(time.Minute)),
		newPod("not-ready", web, ownedBy(rs), onNode("node1")),
		newPod("pending", web, ownedBy(rs), onNode("node2"), inPhase(api.PodPending)),
		newPod("unassigned", web, ownedBy(rs), inPhase(api.PodPending)),
	)
	f.mustSync("default/ng-rs")
	want := []string{"not-ready", "pending", "unassigned"}
	if got := f.podControl.deletedNames(); !slices.Equal(got, want) {
		t.Fatalf("deleted %v, want %v", got, want)
	}
	if _, deletes := f.ctrl.manager.Expectations().Pending("default/ng-rs"); deletes != 3 {
		t.Fatalf("pending deletes = %d, want 3", deletes)
	}

	// One deletion is seen as a deletionTimestamp (graceful), one as a
	// delete event, one as a tombstone from a relist.
	notReady, _ := f.factory.Pods().Lister().Namespace("default").Get("not-ready")
	terminating := api.DeepCopy(notReady)
	ts := api.NewTime(testNow)
	terminating.DeletionTimestamp, terminating.ResourceVersion = &ts, "2"
	f.ctrl.manager.updatePod(notReady, terminating)
	pending, _ := f.factory.Pods().Lister().Namespace("default").Get("pending")
	f.ctrl.manager.deletePod(pending)
	unassigned, _ := f.factory.Pods().Lister().Namespace("default").Get("unassigned")
	f.ctrl.manager.deletePod(informer.DeletedFinalStateUnknown{Key: "default/unassigned", Obj: unassigned})
	if !f.ctrl.manager.Expectations().Satisfied("default/ng-rs") {
		adds, deletes := f.ctrl.manager.Expectations().Pending("default/ng-rs")
		t.Fatalf("expectations not satisfied after the three deletions were seen: %d creates, %d deletes pending", adds, deletes)
	}
	if got := f.queued(); !slices.Equal(got, []string{"default/ng-rs"}) {
		t.Errorf("queue = %v, want the ReplicaSet", got)
	}
}

// A delete that fails is not waited for and shows in the condition; one
// that finds the pod already gone is not an error.
func TestSyncDeleteFailures(t *testing.T) {
	rs := newRS("ng-rs", 0, web)
	f := newFixture(t, rs, newPod("a", web, ownedBy(rs)), newPod("b", web, ownedBy(rs)))
	f.podControl.failDelete = func(name string) error {
		if name == "a" {
			return apierrors.NewNotFound(apierrors.Resource{Resource: "pods"}, name)
		}
		return errors.New("connection refused")
	}
	err := f.sync("default/ng-rs")
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("sync error = %v, want the failed delete's", err)
	}
	if !f.ctrl.manager.Expectations().Satisfied("default/ng-rs") {
		t.Errorf("expectations still wait for deletions that failed")
	}
	cond := findCondition(f.lastStatus().Conditions, api.ReplicaSetReplicaFailure)
	if cond == nil || cond.Reason != ReasonFailedDelete {
		t.Errorf("ReplicaFailure condition = %+v, want reason FailedDelete", cond)
	}
}

// An orphan that matches the selector is adopted with a controller
// ownerReference; others' pods and non-matching orphans are left alone.
func TestSyncAdoptsMatchingOrphan(t *testing.T) {
	rs := newRS("ng-rs", 2, web)
	other := newRS("other", 1, web)
	f := newFixture(t, rs, other,
		newPod("orphan", web),
		newPod("stranger", map[string]string{"app": "db"}),
		newPod("others", web, ownedBy(other)),
	)
	f.mustSync("default/ng-rs")

	if len(f.podControl.patches) != 1 {
		t.Fatalf("patches = %v, want one, adopting orphan", f.podControl.patches)
	}
	patch := f.podControl.patches["orphan"]
	for _, want := range []string{`"uid":"uid-ng-rs"`, `"controller":true`, `"blockOwnerDeletion":true`, `"kind":"ReplicaSet"`, `"uid":"uid-orphan"`} {
		if !strings.Contains(patch, want) {
			t.Errorf("adoption patch %s lacks %s", patch, want)
		}
	}
	if f.gets != 1 {
		t.Errorf("live GETs = %d, want 1 (the deletion recheck before adopting)", f.gets)
	}
	// Adopted: one pod of two, so one more is created, not two.
	if got := len(f.podControl.created); got != 1 {
		t.Errorf("created %d pods, want 1", got)
	}
}

// A ReplicaSet that the apiserver says is being deleted adopts nothing,
// even if the cache does not know yet.
func TestSyncDoesNotAdoptWhenOwnerIsBeingDeleted(t *testing.T) {
	rs := newRS("ng-rs", 1, web)
	f := newFixture(t, rs, newPod("orphan", web))
	ts := api.NewTime(testNow)
	f.live["ng-rs"].DeletionTimestamp = &ts

	if err := f.sync("default/ng-rs"); err == nil {
		t.Fatalf("sync succeeded; want the refused adoption reported")
	}
	if len(f.podControl.patches) != 0 || len(f.podControl.created) != 0 {
		t.Errorf("patches %v, creates %d; want none", f.podControl.patches, len(f.podControl.created))
	}
}

// A pod relabelled out of the selector is released (its controllerRef
// removed) and replaced.
func TestSyncReleasesRelabelledPod(t *testing.T) {
	rs := newRS("ng-rs", 2, web)
	f := newFixture(t, rs,
		newPod("keeper", web, ownedBy(rs)),
		newPod("debug-me", map[string]string{"replicaset": "debug"}, ownedBy(rs)),
	)
	f.mustSync("default/ng-rs")
	patch, ok := f.podControl.patches["debug-me"]
	if !ok || !strings.Contains(patch, `"$patch":"delete"`) || !strings.Contains(patch, `"uid":"uid-ng-rs"`) {
		t.Fatalf("patches = %v, want debug-me's controllerRef deleted", f.podControl.patches)
	}
	if got := len(f.podControl.created); got != 1 {
		t.Errorf("created %d pods, want 1 replacement", got)
	}
	if s := f.lastStatus(); s.Replicas != 1 {
		t.Errorf("status.replicas = %d, want 1 (the released pod is not ours)", s.Replicas)
	}
}

// Status counts: replicas, fully labeled (all template labels), ready,
// available (ready for minReadySeconds), and a requeue for the pod that
// becomes available later.
func TestSyncStatusCounts(t *testing.T) {
	rs := newRS("ng-rs", 4, web)
	rs.Generation = 7
	rs.Spec.MinReadySeconds = 30
	rs.Spec.Template.Labels = map[string]string{"replicaset": "test", "tier": "web"}
	full := rs.Spec.Template.Labels
	f := newFixture(t, rs,
		newPod("available", full, ownedBy(rs), readyFor(time.Minute)),
		newPod("just-ready", full, ownedBy(rs), readyFor(10*time.Second)),
		newPod("not-ready", full, ownedBy(rs)),
		newPod("partly-labeled", web, ownedBy(rs), readyFor(time.Hour)),
		newPod("finished", full, ownedBy(rs), inPhase(api.PodSucceeded)),
	)
	f.mustSync("default/ng-rs")
	if len(f.podControl.created)+len(f.podControl.deleted) != 0 {
		t.Fatalf("created %d, deleted %d; want nothing (4 active pods)", len(f.podControl.created), len(f.podControl.deleted))
	}
	s := f.lastStatus()
	if s.Replicas != 4 || s.FullyLabeledReplicas != 3 || s.ReadyReplicas != 3 || s.AvailableReplicas != 2 || s.ObservedGeneration != 7 {
		t.Errorf("status = %+v, want replicas 4, fullyLabeled 3, ready 3, available 2, observedGeneration 7", s)
	}
	if waiting := f.ctrl.manager.Queue().Waiting(); !slices.Contains(waiting, "default/ng-rs") {
		t.Errorf("waiting keys = %v, want the ReplicaSet requeued after minReadySeconds", waiting)
	}
}

// A status write that conflicts is retried once on a fresh copy.
func TestSyncRetriesStatusConflict(t *testing.T) {
	f := newFixture(t, newRS("ng-rs", 0, web))
	f.conflicts = 1
	f.mustSync("default/ng-rs")
	if f.gets != 1 || len(f.statusWrites) != 1 {
		t.Fatalf("gets = %d, status writes = %d; want one re-read and one successful write", f.gets, len(f.statusWrites))
	}
}

// A ReplicaSet being deleted keeps its status but creates nothing.
func TestSyncOwnerBeingDeletedCreatesNothing(t *testing.T) {
	rs := newRS("ng-rs", 3, web)
	ts := api.NewTime(testNow)
	rs.DeletionTimestamp = &ts
	f := newFixture(t, rs)
	f.mustSync("default/ng-rs")
	if len(f.podControl.created) != 0 {
		t.Fatalf("created %d pods for a ReplicaSet being deleted", len(f.podControl.created))
	}
}

// A ReplicaSet that is gone has its expectations forgotten.
func TestSyncDeletedOwner(t *testing.T) {
	f := newFixture(t)
	f.ctrl.manager.Expectations().ExpectCreations("default/gone", 3)
	f.mustSync("default/gone")
	if adds, _ := f.ctrl.manager.Expectations().Pending("default/gone"); adds != 0 {
		t.Fatalf("pending creates for a deleted ReplicaSet = %d, want 0", adds)
	}
}

// An invalid selector is not retried: only a new version can fix it, and
// its update event enqueues it again.
func TestSyncInvalidSelectorIsNotRetried(t *testing.T) {
	rs := newRS("ng-rs", 1, nil)
	rs.Spec.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "Near"}}}
	f := newFixture(t, rs)
	if err := f.sync("default/ng-rs"); err == nil || !strings.Contains(err.Error(), "invalid selector") {
		t.Fatalf("sync error = %v, want an invalid selector error", err)
	}
	q := f.ctrl.manager.Queue()
	q.Add("default/ng-rs")
	controllerutil.ProcessNext(context.Background(), q, f.ctrl.sync, slog.New(slog.DiscardHandler))
	if q.Len() != 0 || len(q.Waiting()) != 0 || q.NumRequeues("default/ng-rs") != 0 {
		t.Errorf("the key was requeued (len %d, waiting %v)", q.Len(), q.Waiting())
	}
	if len(f.podControl.created) != 0 {
		t.Errorf("created pods for an invalid selector")
	}
}
