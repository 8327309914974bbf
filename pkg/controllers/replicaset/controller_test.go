package replicaset

// Each test gives the apiserver and the caches some objects, runs one
// sync and lists the complete, ordered API writes it made
// (server.ExpectActions), then checks what those writes carried and the
// Events recorded.

import (
	"context"
	"encoding/json"
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
	"kplane/test/framework/fakeapi"
)

var web = map[string]string{"replicaset": "test"}

// From zero pods, one sync creates spec.replicas pods from the template,
// each controlled by the ReplicaSet, and expects to see them.
func TestSyncCreatesMissingPods(t *testing.T) {
	rs := newRS("ng-rs", 3, web)
	f := newFixture(t, rs)
	f.mustSync("default/ng-rs")

	// Slow start: a batch of one create, then a batch of two; the three
	// requests are alike (generateName), so their order does not matter.
	f.server.ExpectActions(t,
		"create pods ng-rs-", "create pods ng-rs-", "create pods ng-rs-",
		"update replicasets/status ng-rs")
	created := f.storedPods()
	if len(created) != 3 {
		t.Fatalf("the apiserver holds %d pods, want 3", len(created))
	}
	for _, pod := range created {
		ref := controllerutil.GetControllerOf(&pod.ObjectMeta)
		if pod.GenerateName != "ng-rs-" || pod.Labels["replicaset"] != "test" || ref == nil ||
			ref.UID != rs.UID || ref.Kind != "ReplicaSet" || ref.APIVersion != "apps/v1" ||
			ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
			t.Errorf("pod %s: generateName %q, labels %v, controllerRef %+v", pod.Name, pod.GenerateName, pod.Labels, ref)
		}
	}
	f.expectEvents(
		"Normal SuccessfulCreate Created pod: ng-rs-00001",
		"Normal SuccessfulCreate Created pod: ng-rs-00002",
		"Normal SuccessfulCreate Created pod: ng-rs-00003",
	)
	if adds, _ := f.ctrl.expectations.Pending("default/ng-rs"); adds != 3 {
		t.Errorf("pending creates = %d, want 3", adds)
	}
	// The status reports what the cache shows (no pods yet) and that this
	// generation was seen.
	if s := f.sentStatus("ng-rs"); s.Replicas != 0 || s.ObservedGeneration != 1 || len(s.Conditions) != 0 {
		t.Errorf("status = %+v, want 0 replicas, observedGeneration 1, no conditions", s)
	}
}

// The slow start shows in which creates are tried when one fails: 10
// wanted, the second create fails, so the batches were 1 and 2 and the
// seven never tried are not expected any more.
func TestSyncSlowStartStopsAfterFailedBatch(t *testing.T) {
	f := newFixture(t, newRS("ng-rs", 10, web))
	quota := apierrors.NewForbidden(apierrors.Resource{Resource: "pods"}, "", errors.New("exceeded quota"))
	creates := 0 // the server calls its reactors one request at a time
	f.server.React(func(a fakeapi.Action) error {
		if a.Verb == fakeapi.VerbCreate && a.Resource == "pods" {
			if creates++; creates == 2 {
				return quota
			}
		}
		return nil
	})
	err := f.sync("default/ng-rs")
	if !apierrors.IsForbidden(err) {
		t.Fatalf("sync error = %v, want the create's Forbidden error", err)
	}
	// Batches of 1 and 2; the failure in the second ends the slow start.
	f.server.ExpectActions(t,
		"create pods ng-rs-", "create pods ng-rs-", "create pods ng-rs-",
		"update replicasets/status ng-rs")
	if n := len(f.storedPods()); n != 2 {
		t.Errorf("the apiserver holds %d pods, want the 2 created", n)
	}
	f.expectEvents(
		"Normal SuccessfulCreate Created pod: ng-rs-00001",
		"Normal SuccessfulCreate Created pod: ng-rs-00002",
		"Warning FailedCreate Error creating: "+quota.Error(),
	)
	// 10 expected, 8 never coming (1 failed + 7 skipped): 2 still expected.
	if adds, _ := f.ctrl.expectations.Pending("default/ng-rs"); adds != 2 {
		t.Errorf("pending creates = %d, want 2", adds)
	}
	cond := findCondition(f.sentStatus("ng-rs").Conditions, api.ReplicaSetReplicaFailure)
	if cond == nil || cond.Status != api.ConditionTrue || cond.Reason != ReasonFailedCreate || !strings.Contains(cond.Message, "exceeded quota") {
		t.Errorf("ReplicaFailure condition = %+v, want True/FailedCreate with the error", cond)
	}
}

// Until the informer has seen the pods a sync created, the next sync must
// not create them again — whatever the cache says.
func TestExpectationsBlockSecondSyncUntilPodsObserved(t *testing.T) {
	f := newFixture(t, newRS("ng-rs", 3, web))
	f.mustSync("default/ng-rs")
	f.server.ExpectActions(t,
		"create pods ng-rs-", "create pods ng-rs-", "create pods ng-rs-",
		"update replicasets/status ng-rs")
	f.catchUp("ng-rs")
	created := f.storedPods()

	f.mustSync("default/ng-rs")
	f.server.ExpectActions(t) // the cache shows no pods, but three are expected

	// Two of three arrive: still waiting, but the status counts them.
	f.deliver(created[:2]...)
	f.mustSync("default/ng-rs")
	f.server.ExpectActions(t, "update replicasets/status ng-rs")
	if s := f.sentStatus("ng-rs"); s.Replicas != 2 {
		t.Errorf("status.replicas = %d, want 2 (status is updated while waiting)", s.Replicas)
	}
	f.catchUp("ng-rs")

	f.deliver(created[2])
	if !f.ctrl.expectations.Satisfied("default/ng-rs") {
		t.Fatalf("expectations not satisfied after all three pods were observed")
	}
	f.mustSync("default/ng-rs")
	f.server.ExpectActions(t, "update replicasets/status ng-rs")
	if s := f.sentStatus("ng-rs"); s.Replicas != 3 || s.FullyLabeledReplicas != 3 {
		t.Errorf("status = %+v, want 3 replicas, 3 fully labeled", s)
	}
	f.catchUp("ng-rs")

	// Idempotent: nothing changed, so nothing is written.
	f.mustSync("default/ng-rs")
	f.server.ExpectActions(t)
}

// A watch event that never comes stalls an owner only until the
// expectations time out.
func TestExpectationsExpire(t *testing.T) {
	f := newFixture(t, newRS("ng-rs", 2, web))
	f.mustSync("default/ng-rs")
	f.server.ExpectActions(t, "create pods ng-rs-", "create pods ng-rs-", "update replicasets/status ng-rs")
	f.catchUp("ng-rs")

	f.clock.Step(controllerutil.ExpectationsTimeout + time.Second)
	f.mustSync("default/ng-rs")
	// The cache still shows no pods: after the timeout it is trusted.
	f.server.ExpectActions(t, "create pods ng-rs-", "create pods ng-rs-")
	if n := len(f.storedPods()); n != 4 {
		t.Errorf("the apiserver holds %d pods, want 4 (2, then 2 again after the timeout)", n)
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
	// The deletes run in parallel, in no fixed order; the status write
	// waits for all of them.
	f.server.ExpectActions(t,
		fakeapi.InAnyOrder("delete pods not-ready", "delete pods pending", "delete pods unassigned"),
		"update replicasets/status ng-rs")
	f.expectEvents(
		"Normal SuccessfulDelete Deleted pod: not-ready",
		"Normal SuccessfulDelete Deleted pod: pending",
		"Normal SuccessfulDelete Deleted pod: unassigned",
	)
	if _, deletes := f.ctrl.expectations.Pending("default/ng-rs"); deletes != 3 {
		t.Fatalf("pending deletes = %d, want 3", deletes)
	}

	// One deletion is seen as a deletionTimestamp (graceful), one as a
	// delete event, one as a tombstone from a relist.
	cached := f.server.Informers().Pods().Lister().Namespace("default")
	notReady, _ := cached.Get("not-ready")
	terminating := api.DeepCopy(notReady)
	ts := api.NewTime(testNow)
	terminating.DeletionTimestamp, terminating.ResourceVersion = &ts, "2"
	f.ctrl.updatePod(notReady, terminating)
	pending, _ := cached.Get("pending")
	f.ctrl.deletePod(pending)
	unassigned, _ := cached.Get("unassigned")
	f.ctrl.deletePod(informer.DeletedFinalStateUnknown{Key: "default/unassigned", Obj: unassigned})
	if !f.ctrl.expectations.Satisfied("default/ng-rs") {
		adds, deletes := f.ctrl.expectations.Pending("default/ng-rs")
		t.Fatalf("expectations not satisfied after the three deletions were seen: %d creates, %d deletes pending", adds, deletes)
	}
	if got := f.queued(); !slices.Equal(got, []string{"default/ng-rs"}) {
		t.Errorf("queue = %v, want the ReplicaSet", got)
	}
}

// A delete that fails is not waited for and shows in the condition; one
// that finds the pod already gone is not an error.
func TestSyncDeleteFailuresAreNotWaitedForAndShowInTheCondition(t *testing.T) {
	rs := newRS("ng-rs", 0, web)
	f := newFixture(t, rs, newPod("a", web, ownedBy(rs)), newPod("b", web, ownedBy(rs)))
	gone := apierrors.NewNotFound(apierrors.Resource{Resource: "pods"}, "a")
	f.server.FailOn(fakeapi.VerbDelete, "pods", "a", gone)
	f.server.FailOn(fakeapi.VerbDelete, "pods", "b", errors.New("connection refused"))
	err := f.sync("default/ng-rs")
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("sync error = %v, want the failed delete's", err)
	}
	f.server.ExpectActions(t,
		fakeapi.InAnyOrder("delete pods a", "delete pods b"), // in parallel
		"update replicasets/status ng-rs")
	if !f.ctrl.expectations.Satisfied("default/ng-rs") {
		t.Errorf("expectations still wait for deletions that failed")
	}
	// PodControl records even the NotFound as a FailedDelete.
	f.expectEvents(
		"Warning FailedDelete Error deleting: Internal error occurred: connection refused",
		"Warning FailedDelete Error deleting: "+gone.Error(),
	)
	cond := findCondition(f.sentStatus("ng-rs").Conditions, api.ReplicaSetReplicaFailure)
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

	// Adopted: one pod of two, so one more is created, not two.
	f.server.ExpectActions(t, "patch pods orphan", "create pods ng-rs-", "update replicasets/status ng-rs")
	patch := string(fakeapi.Sent[json.RawMessage](t, f.server, "patch pods orphan"))
	for _, want := range []string{`"uid":"uid-ng-rs"`, `"controller":true`, `"blockOwnerDeletion":true`, `"kind":"ReplicaSet"`, `"uid":"uid-orphan"`} {
		if !strings.Contains(patch, want) {
			t.Errorf("adoption patch %s lacks %s", patch, want)
		}
	}
	adopted := fakeapi.Result[*api.Pod](t, f.server, "patch pods orphan")
	if ref := controllerutil.GetControllerOf(&adopted.ObjectMeta); ref == nil || ref.UID != rs.UID {
		t.Errorf("orphan's controllerRef after adoption = %+v, want ng-rs", ref)
	}
	if n := countActions(f.server, "get replicasets ng-rs"); n != 1 {
		t.Errorf("live GETs = %d, want 1 (the deletion recheck before adopting)", n)
	}
	f.expectEvents("Normal SuccessfulCreate Created pod: ng-rs-00001")
}

// A ReplicaSet that the apiserver says is being deleted adopts nothing,
// even if the cache does not know yet.
func TestSyncDoesNotAdoptWhenOwnerIsBeingDeleted(t *testing.T) {
	rs := newRS("ng-rs", 1, web)
	f := newFixture(t, rs, newPod("orphan", web))
	deleting := api.DeepCopy(rs)
	ts := api.NewTime(testNow)
	deleting.DeletionTimestamp = &ts
	f.server.Add(t, deleting) // the apiserver knows; the cache does not

	if err := f.sync("default/ng-rs"); err == nil {
		t.Fatalf("sync succeeded; want the refused adoption reported")
	}
	f.server.ExpectActions(t) // no patch, no create, no status
	if n := countActions(f.server, "get replicasets ng-rs"); n != 1 {
		t.Errorf("live GETs = %d, want 1 (the deletion recheck)", n)
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
	f.server.ExpectActions(t, "patch pods debug-me", "create pods ng-rs-", "update replicasets/status ng-rs")
	patch := string(fakeapi.Sent[json.RawMessage](t, f.server, "patch pods debug-me"))
	if !strings.Contains(patch, `"$patch":"delete"`) || !strings.Contains(patch, `"uid":"uid-ng-rs"`) {
		t.Fatalf("patch = %s, want debug-me's controllerRef deleted", patch)
	}
	if released := fakeapi.Result[*api.Pod](t, f.server, "patch pods debug-me"); len(released.OwnerReferences) != 0 {
		t.Errorf("debug-me's ownerReferences after release = %+v, want none", released.OwnerReferences)
	}
	if s := f.sentStatus("ng-rs"); s.Replicas != 1 {
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
	f.server.ExpectActions(t, "update replicasets/status ng-rs") // 4 active pods: no create, no delete
	s := f.sentStatus("ng-rs")
	if s.Replicas != 4 || s.FullyLabeledReplicas != 3 || s.ReadyReplicas != 3 || s.AvailableReplicas != 2 || s.ObservedGeneration != 7 {
		t.Errorf("status = %+v, want replicas 4, fullyLabeled 3, ready 3, available 2, observedGeneration 7", s)
	}
	if waiting := f.ctrl.queue.Waiting(); !slices.Contains(waiting, "default/ng-rs") {
		t.Errorf("waiting keys = %v, want the ReplicaSet requeued after minReadySeconds", waiting)
	}
}

// A status write that conflicts (someone changed the ReplicaSet since the
// cache saw it) is retried once on a fresh copy, keeping their change.
func TestSyncRetriesStatusConflictOnAFreshCopy(t *testing.T) {
	rs := newRS("ng-rs", 0, web)
	f := newFixture(t, rs)
	edited := api.DeepCopy(rs)
	edited.ResourceVersion, edited.Annotations = "2", map[string]string{"edited": "by someone"}
	f.server.Add(t, edited)

	f.mustSync("default/ng-rs")
	f.server.ExpectActions(t, "update replicasets/status ng-rs", "update replicasets/status ng-rs")
	writes := f.server.Writes()
	if !apierrors.IsConflict(writes[0].Err) || writes[1].Err != nil {
		t.Errorf("status writes answered %v, %v; want a conflict, then success", writes[0].Err, writes[1].Err)
	}
	if n := countActions(f.server, "get replicasets ng-rs"); n != 1 {
		t.Errorf("live GETs = %d, want one re-read", n)
	}
	stored := fakeapi.Result[*api.ReplicaSet](t, f.server, "update replicasets/status ng-rs")
	if stored.Annotations["edited"] != "by someone" || stored.Status.ObservedGeneration != 1 {
		t.Errorf("stored after the retry: annotations %v, status %+v", stored.Annotations, stored.Status)
	}
}

// A ReplicaSet being deleted keeps its status but creates nothing.
func TestSyncOwnerBeingDeletedCreatesNothing(t *testing.T) {
	rs := newRS("ng-rs", 3, web)
	ts := api.NewTime(testNow)
	rs.DeletionTimestamp = &ts
	f := newFixture(t, rs)
	f.mustSync("default/ng-rs")
	f.server.ExpectActions(t, "update replicasets/status ng-rs")
}

// A ReplicaSet that is gone has its expectations forgotten.
func TestSyncDeletedOwnerForgetsExpectations(t *testing.T) {
	f := newFixture(t)
	f.ctrl.expectations.ExpectCreations("default/gone", 3)
	f.mustSync("default/gone")
	f.server.ExpectActions(t)
	if adds, _ := f.ctrl.expectations.Pending("default/gone"); adds != 0 {
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
	q := f.ctrl.queue
	q.Add("default/ng-rs")
	controllerutil.ProcessNext(context.Background(), q, f.ctrl.Sync, slog.New(slog.DiscardHandler))
	if q.Len() != 0 || len(q.Waiting()) != 0 || q.NumRequeues("default/ng-rs") != 0 {
		t.Errorf("the key was requeued (len %d, waiting %v)", q.Len(), q.Waiting())
	}
	f.server.ExpectActions(t)
}

// countActions counts the requests, reads included, spelled action.
func countActions(s *fakeapi.Server, action string) int {
	n := 0
	for _, a := range s.Actions() {
		if a.String() == action {
			n++
		}
	}
	return n
}
