package job

// Fixture tests, sample-controller's way: the objects a test starts from
// are put in a fakeapi server and in the informers' caches (the factory is
// never started), one sync runs, and the test lists the complete, ordered
// API writes it made and the Events it recorded. No goroutines of our own.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/clock"
	"kplane/pkg/informer"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

type fixture struct {
	t        *testing.T
	server   *fakeapi.Server
	recorder *controllertest.Recorder
	ctrl     *Controller
}

// newFixture builds the controller on a fakeapi server holding objects, in
// the apiserver and in the caches.
func newFixture(t *testing.T, objects ...api.Object) *fixture {
	t.Helper()
	clk := clock.NewFake(testNow)
	server := fakeapi.New(t, fakeapi.WithClock(clk))
	recorder := &controllertest.Recorder{}
	ctrl, err := New(server.Client(), server.Informers(), recorder, Options{Clock: clk, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	t.Cleanup(ctrl.orphans.ShutDown)
	server.Put(t, objects...)
	return &fixture{t: t, server: server, recorder: recorder, ctrl: ctrl}
}

// sync runs one sync of the Job "pi" and fails the test on an error.
func (f *fixture) sync() {
	f.t.Helper()
	if err := f.ctrl.sync(context.Background(), "default/pi"); err != nil {
		f.t.Fatalf("sync: %v", err)
	}
}

// statusWrites are the statuses the successful writes of the Job's status
// stored, oldest first.
func (f *fixture) statusWrites() []api.JobStatus {
	f.t.Helper()
	var statuses []api.JobStatus
	for _, a := range f.server.Writes() {
		if a.String() != "update jobs/status pi" || a.Err != nil {
			continue
		}
		var job api.Job
		if err := json.Unmarshal(a.Result, &job); err != nil {
			f.t.Fatalf("decode the stored Job: %v", err)
		}
		statuses = append(statuses, job.Status)
	}
	return statuses
}

// lastStatus is the status the last successful status write stored.
func (f *fixture) lastStatus() api.JobStatus {
	f.t.Helper()
	return fakeapi.Result[*api.Job](f.t, f.server, "update jobs/status pi").Status
}

// jobPod is a pod the Job "pi" created: its labels, its controller
// ownerReference and the tracking finalizer.
func jobPod(name string, phase api.PodPhase) *api.Pod {
	p := pod(name, phase, testNow.Add(-time.Second))
	p.Labels = map[string]string{api.JobControllerUIDLabel: "uid-pi", api.JobNameLabel: "pi"}
	p.OwnerReferences = []api.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "pi", UID: "uid-pi",
		Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
	p.Finalizers = []string{api.JobTrackingFinalizer}
	return p
}

// withoutFinalizer is p after the controller removed its finalizer.
func withoutFinalizer(p *api.Pod) *api.Pod {
	p.Finalizers = nil
	return p
}

// deleting is p after someone deleted it: it has a deletionTimestamp and
// stays while it carries the finalizer.
func deleting(p *api.Pod) *api.Pod {
	now := api.NewTime(testNow)
	p.DeletionTimestamp = &now
	return p
}

func uncounted(s api.JobStatus) string {
	if s.UncountedTerminatedPods == nil {
		return "nil"
	}
	return fmt.Sprintf("succeeded %v failed %v", s.UncountedTerminatedPods.Succeeded, s.UncountedTerminatedPods.Failed)
}

// A new Job creates parallelism pods once; a second sync before the cache
// has seen them creates nothing more (the expectations hold it back).
func TestSyncCreatesOnceUntilThePodsArrive(t *testing.T) {
	f := newFixture(t, newJob(2, i32(5)))
	f.sync()
	// Slow start: a batch of 1, then the 1 left; one pod at a time, so the
	// order of the names is fixed.
	f.server.ExpectActions(t, "create pods pi-", "create pods pi-", "update jobs/status pi")
	f.recorder.ExpectEvents(t, "Normal SuccessfulCreate Created pod: pi-00001", "Normal SuccessfulCreate Created pod: pi-00002")
	if s := f.lastStatus(); s.Active != 2 || s.StartTime == nil {
		t.Fatalf("status active %d, startTime %v; want active 2 and a startTime", s.Active, s.StartTime)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("default/pi"),
		"Job wants 5 completions, parallelism 2: 0 succeeded, 0 failed (backoffLimit 6), 0 active → create 2",
		map[string]string{"completions": "5", "parallelism": "2", "active": "0", "wantActive": "2", "create": "2"})

	// The status write's echo arrives; the pods' creates have not yet.
	f.server.Cache(t, fakeapi.Result[*api.Job](t, f.server, "update jobs/status pi"))
	f.sync()
	// The status follows the cache, which shows no pod yet (upstream does
	// the same); what matters is that no pod is created twice.
	f.server.ExpectActions(t, "update jobs/status pi")
	f.recorder.ExpectEvents(t)
	controllertest.ExpectDecision(t, f.server.Decisions("default/pi"),
		"Job wants 5 completions, parallelism 2: 0 succeeded, 0 failed (backoffLimit 6), 0 active → wait: earlier creates/deletes not yet seen in the cache",
		map[string]string{"create": "0", "wantActive": "2"})
}

// Every pod the Job creates carries the tracking finalizer, next to the
// template's own finalizers.
func TestCreatedPodsCarryTheTrackingFinalizer(t *testing.T) {
	job := newJob(2, i32(5))
	job.Spec.Template.Finalizers = []string{"example.com/keep"}
	f := newFixture(t, job)
	f.sync()
	f.server.ExpectActions(t, "create pods pi-", "create pods pi-", "update jobs/status pi")
	want := []string{"example.com/keep", api.JobTrackingFinalizer}
	for _, name := range []string{"pi-00001", "pi-00002"} {
		created, ok := fakeapi.Get[*api.Pod](t, f.server, "default", name)
		if !ok {
			t.Fatalf("pod %s was not created", name)
		}
		if !slices.Equal(created.Finalizers, want) {
			t.Errorf("created pod %s's finalizers %v, want %v", name, created.Finalizers, want)
		}
	}
	if !slices.Equal(job.Spec.Template.Finalizers, []string{"example.com/keep"}) {
		t.Errorf("the cached Job's template was changed: %v", job.Spec.Template.Finalizers)
	}
}

// The two-phase flush: finished pods are first recorded by UID in
// uncountedTerminatedPods (one status write), then their finalizers are
// removed, then the final status write moves them into succeeded/failed.
// A running pod keeps its finalizer.
func TestSyncCountsFinishedPodsInTwoPhases(t *testing.T) {
	f := newFixture(t, newJob(3, i32(5)),
		jobPod("a", api.PodSucceeded), jobPod("b", api.PodFailed), jobPod("c", api.PodRunning))
	f.sync()
	// Record, release, then count (and run the pods it needs: 5 - 1 = 4
	// still to succeed, parallelism 3, one running → 2 more).
	f.server.ExpectActions(t,
		"update jobs/status pi",
		"patch pods a", "patch pods b",
		"create pods pi-", "create pods pi-",
		"update jobs/status pi")
	f.recorder.ExpectEvents(t, "Normal SuccessfulCreate Created pod: pi-00001", "Normal SuccessfulCreate Created pod: pi-00002")

	statuses := f.statusWrites()
	first, second := statuses[0], statuses[1]
	if got := uncounted(first); got != "succeeded [uid-a] failed [uid-b]" || first.Succeeded != 0 || first.Failed != 0 {
		t.Errorf("first write: uncounted %s, succeeded %d, failed %d; want a and b recorded, nothing counted yet",
			got, first.Succeeded, first.Failed)
	}
	if got := uncounted(second); got != "succeeded [] failed []" || second.Succeeded != 1 || second.Failed != 1 {
		t.Errorf("second write: uncounted %s, succeeded %d, failed %d; want both counted", got, second.Succeeded, second.Failed)
	}
	for name, wantFinalizer := range map[string]bool{"a": false, "b": false, "c": true} {
		p, _ := fakeapi.Get[*api.Pod](t, f.server, "default", name)
		if got := hasTrackingFinalizer(p); got != wantFinalizer {
			t.Errorf("pod %s has the tracking finalizer: %v, want %v", name, got, wantFinalizer)
		}
	}
}

// The bug this tracking fixes: completions 5, three pods succeeded and were
// counted, then deleted (by a user, the garbage collector, a TTL). Two
// more succeed. The Job must reach 5 and complete — counting the visible
// pods would give max(3, 2) = 3 for ever.
func TestSyncCountsSurviveDeletedFinishedPods(t *testing.T) {
	job := newJob(2, i32(5))
	job.Status.Succeeded = 3
	f := newFixture(t, job, jobPod("d", api.PodSucceeded), jobPod("e", api.PodSucceeded))
	f.sync()
	f.server.ExpectActions(t, "update jobs/status pi", "patch pods d", "patch pods e", "update jobs/status pi")
	f.recorder.ExpectEvents(t, "Normal Completed Job completed")
	s := f.lastStatus()
	if s.Succeeded != 5 {
		t.Fatalf("succeeded = %d, want 5 (3 counted before + 2 new)", s.Succeeded)
	}
	if !hasTrueCondition(&s, api.JobComplete) || s.CompletionTime == nil {
		t.Errorf("conditions %q, completionTime %v: want Complete", conditionTypes(s), s.CompletionTime)
	}
}

// A finished pod without the finalizer has been counted already: the
// count does not move, whether the pod is still there or not.
func TestSyncDoesNotCountReleasedPodsAgain(t *testing.T) {
	job := newJob(1, i32(5))
	job.Status.Succeeded = 1
	job.Status.UncountedTerminatedPods = &api.UncountedTerminatedPods{}
	f := newFixture(t, job, withoutFinalizer(jobPod("a", api.PodSucceeded)), jobPod("b", api.PodRunning))
	f.sync()
	// Only the status the sync always fills in (startTime, active): nothing
	// to record, release or count.
	f.server.ExpectActions(t, "update jobs/status pi")
	f.recorder.ExpectEvents(t)
	if s := f.lastStatus(); s.Succeeded != 1 || s.Active != 1 {
		t.Errorf("succeeded %d, active %d; want 1, 1", s.Succeeded, s.Active)
	}
}

// The next sync may read the Job after the count was written but the pod
// before its finalizer removal arrived (two watches, no order between
// them). The pending removal keeps the pod from being counted twice; once
// the informer shows it without the finalizer the record is cleared.
func TestSyncStaleCacheDoesNotCountTwice(t *testing.T) {
	a := jobPod("a", api.PodSucceeded)
	f := newFixture(t, newJob(1, i32(5)), a, jobPod("b", api.PodRunning))
	f.sync()
	f.server.ExpectActions(t, "update jobs/status pi", "patch pods a", "update jobs/status pi")
	if got := f.lastStatus().Succeeded; got != 1 {
		t.Fatalf("succeeded = %d after the first sync, want 1", got)
	}
	// The Job's cache catches up with the write; the pod's does not.
	f.server.Cache(t, fakeapi.Result[*api.Job](t, f.server, "update jobs/status pi"))
	f.sync()
	f.server.ExpectActions(t) // a is neither recorded nor counted again
	// The pod update without the finalizer arrives: nothing is pending.
	released := withoutFinalizer(api.DeepCopy(a))
	released.ResourceVersion = "3"
	f.ctrl.updatePod(a, released)
	if pending := f.ctrl.removals.pendingFor("default/pi"); len(pending) != 0 {
		t.Errorf("removals still pending after the informer showed them: %v", pending)
	}
}

// The informer may deliver a pod without its finalizer while the sync that
// removed it is still running, on pods listed before: the removal still
// counts as done, so the pod is counted in this sync's final write (and
// not taken for still tracked).
func TestSyncCountsARemovalSeenDuringTheSync(t *testing.T) {
	a := jobPod("a", api.PodSucceeded)
	f := newFixture(t, newJob(1, i32(5)), a, jobPod("b", api.PodRunning))
	f.server.React(func(action fakeapi.Action) error {
		if action.String() == "patch pods a" {
			released := withoutFinalizer(api.DeepCopy(a))
			released.ResourceVersion = "2"
			f.ctrl.updatePod(a, released) // the handler only; the sync's list is older
		}
		return nil
	})
	f.sync()
	f.server.ExpectActions(t, "update jobs/status pi", "patch pods a", "update jobs/status pi")
	if s := f.lastStatus(); s.Succeeded != 1 || uncounted(s) != "succeeded [] failed []" {
		t.Errorf("succeeded %d, uncounted %s; want a counted in this sync", s.Succeeded, uncounted(s))
	}
}

// A sync that died between releasing a pod and counting it left the UID in
// uncountedTerminatedPods and the pod without its finalizer (or gone): the
// next sync counts it without writing or patching anything first.
func TestSyncCountsWhatAnInterruptedSyncReleased(t *testing.T) {
	job := newJob(1, i32(5))
	job.Status.Succeeded = 1
	job.Status.UncountedTerminatedPods = &api.UncountedTerminatedPods{Succeeded: []string{"uid-a", "uid-gone"}}
	f := newFixture(t, job, withoutFinalizer(jobPod("a", api.PodSucceeded)), jobPod("b", api.PodRunning))
	f.sync()
	f.server.ExpectActions(t, "update jobs/status pi")
	if s := f.lastStatus(); s.Succeeded != 3 || uncounted(s) != "succeeded [] failed []" {
		t.Errorf("succeeded %d, uncounted %s; want 3 and none left", s.Succeeded, uncounted(s))
	}
}

// A pod deleted while it ran will never finish: it counts as failed (as
// upstream), its finalizer goes so it can leave, and it is replaced.
func TestSyncCountsPodDeletedWhileRunningAsFailed(t *testing.T) {
	f := newFixture(t, newJob(1, i32(5)), deleting(jobPod("a", api.PodRunning)))
	f.sync()
	f.server.ExpectActions(t, "update jobs/status pi", "patch pods a", "create pods pi-", "update jobs/status pi")
	f.recorder.ExpectEvents(t, "Normal SuccessfulCreate Created pod: pi-00001")
	if got := uncounted(f.statusWrites()[0]); got != "succeeded [] failed [uid-a]" {
		t.Errorf("first write: uncounted %s, want a recorded as failed", got)
	}
	if s := f.lastStatus(); s.Failed != 1 || s.Succeeded != 0 {
		t.Errorf("failed %d, succeeded %d; want 1, 0", s.Failed, s.Succeeded)
	}
	if _, ok := fakeapi.Get[*api.Pod](t, f.server, "default", "a"); ok {
		t.Error("pod a is still stored; without its finalizer its deletion should have completed")
	}
}

// A pod that finished and was then deleted by a user is counted by how it
// finished, and a patch that finds it already gone is fine.
func TestSyncCountsDeletedFinishedPodByItsPhase(t *testing.T) {
	f := newFixture(t, newJob(1, i32(2)), jobPod("b", api.PodRunning))
	// The apiserver no longer has a; the cache still shows it being deleted.
	f.server.Cache(t, deleting(jobPod("a", api.PodSucceeded)))
	f.sync()
	f.server.ExpectActions(t, "update jobs/status pi", "patch pods a", "update jobs/status pi")
	if s := f.lastStatus(); s.Succeeded != 1 || s.Failed != 0 || uncounted(s) != "succeeded [] failed []" {
		t.Errorf("succeeded %d, failed %d, uncounted %s; want 1, 0, none", s.Succeeded, s.Failed, uncounted(s))
	}
}

// Complete and Failed wait until every finished pod is counted: a release
// that fails leaves the pod recorded, the sync returns the error, and no
// terminal condition is written.
func TestSyncTerminalConditionWaitsForUncountedPods(t *testing.T) {
	f := newFixture(t, newJob(1, i32(1)), jobPod("a", api.PodSucceeded))
	f.server.FailOn(fakeapi.VerbPatch, "pods", "", apierrors.NewInternalError(errors.New("etcd is down")))
	if err := f.ctrl.sync(context.Background(), "default/pi"); err == nil {
		t.Fatal("sync succeeded although the finalizer could not be removed")
	}
	f.server.ExpectActions(t, "update jobs/status pi", "patch pods a")
	f.recorder.ExpectEvents(t)
	s := f.lastStatus()
	if hasTrueCondition(&s, api.JobComplete) || s.Succeeded != 0 {
		t.Errorf("written: succeeded %d, conditions %q; want nothing counted or completed", s.Succeeded, conditionTypes(s))
	}
	if got := uncounted(s); got != "succeeded [uid-a] failed []" {
		t.Errorf("uncounted %s, want a recorded", got)
	}
}

// Suspending deletes the running pods without counting them as failed:
// each loses its finalizer before it is deleted. A failing Job keeps the
// finalizer on the pods it stops, so they count as failed next time.
func TestDeletedPodsKeepTheirFinalizerOnlyWhenTheJobFails(t *testing.T) {
	t.Run("suspended", func(t *testing.T) {
		suspended := newJob(1, i32(5))
		suspended.Spec.Suspend = ptr(true)
		f := newFixture(t, suspended, jobPod("a", api.PodRunning))
		f.sync()
		f.server.ExpectActions(t, "patch pods a", "delete pods a", "update jobs/status pi")
		f.recorder.ExpectEvents(t, "Normal SuccessfulDelete Deleted pod: a", "Normal Suspended Job suspended")
		if _, ok := fakeapi.Get[*api.Pod](t, f.server, "default", "a"); ok {
			t.Error("pod a is still stored; released first, its delete should have removed it")
		}
	})
	t.Run("failing", func(t *testing.T) {
		failing := newJob(2, i32(5))
		failing.Spec.BackoffLimit = i32(0)
		f := newFixture(t, failing, jobPod("a", api.PodRunning), jobPod("b", api.PodFailed))
		f.sync()
		// b is recorded and released; a is deleted with its finalizer on.
		f.server.ExpectActions(t, "update jobs/status pi", "patch pods b", "delete pods a", "update jobs/status pi")
		f.recorder.ExpectEvents(t, "Normal SuccessfulDelete Deleted pod: a")
		if a, ok := fakeapi.Get[*api.Pod](t, f.server, "default", "a"); !ok || a.DeletionTimestamp == nil || !hasTrackingFinalizer(a) {
			t.Errorf("pod a = %+v (stored %v); want it held by its finalizer, being deleted", a, ok)
		}
		if s := f.lastStatus(); !hasTrueCondition(&s, api.JobFailureTarget) || hasTrueCondition(&s, api.JobFailed) || s.Failed != 1 {
			t.Errorf("failed %d, conditions %q; want FailureTarget, not Failed yet", s.Failed, conditionTypes(s))
		}
	})
}

// A pod whose Job is gone, or that has no controller any more, loses its
// finalizer through the orphan queue; a pod whose Job is alive, or that
// another kind of controller owns, keeps it.
func TestSyncOrphanPod(t *testing.T) {
	orphan := jobPod("orphan", api.PodRunning)
	orphan.OwnerReferences = nil
	ofGoneJob := jobPod("of-gone-job", api.PodSucceeded)
	ofGoneJob.OwnerReferences[0].UID = "uid-of-a-deleted-pi"
	ofLiveJob := jobPod("of-live-job", api.PodRunning)
	ofReplicaSet := jobPod("of-rs", api.PodRunning)
	ofReplicaSet.OwnerReferences[0].Kind, ofReplicaSet.OwnerReferences[0].APIVersion = "ReplicaSet", "apps/v1"
	f := newFixture(t, newJob(1, i32(1)), orphan, ofGoneJob, ofLiveJob, ofReplicaSet)
	for _, name := range []string{"orphan", "of-gone-job", "of-live-job", "of-rs", "not-there"} {
		if err := f.ctrl.syncOrphanPod(context.Background(), "default/"+name); err != nil {
			t.Fatalf("syncOrphanPod(%s): %v", name, err)
		}
	}
	f.server.ExpectActions(t, "patch pods orphan", "patch pods of-gone-job")
	if got := fakeapi.Sent[map[string]any](t, f.server, "patch pods orphan"); !reflect.DeepEqual(got, jsonMap(t, removeFinalizerPatch())) {
		t.Errorf("patch sent %v, want the tracking finalizer's removal", got)
	}
}

// Deleting a Job (Background: it goes at once) hands the pods it still
// tracks to the orphan queue, whose sync removes their finalizers; a
// tombstone does the same as the Job itself.
func TestDeletedJobReleasesItsPods(t *testing.T) {
	job := newJob(2, i32(5))
	f := newFixture(t, job, jobPod("a", api.PodRunning), jobPod("b", api.PodSucceeded), withoutFinalizer(jobPod("c", api.PodSucceeded)))
	// The deletion, found by a relist: the handler gets a tombstone.
	f.server.Uncache(t, job)
	f.ctrl.deleteJob(informer.DeletedFinalStateUnknown{Key: "default/pi", Obj: job})
	if got := f.ctrl.orphans.Len(); got != 2 {
		t.Fatalf("orphan queue holds %d pods, want a and b", got)
	}
	for f.ctrl.orphans.Len() > 0 {
		key, _ := f.ctrl.orphans.Get()
		if err := f.ctrl.syncOrphanPod(context.Background(), key); err != nil {
			t.Fatalf("syncOrphanPod(%s): %v", key, err)
		}
		f.ctrl.orphans.Done(key)
	}
	// The pods are queued in name order (the controller lists them so).
	f.server.ExpectActions(t, "patch pods a", "patch pods b")
}

// A Job being deleted (foreground: it waits for its pods) creates and
// deletes nothing, counts what finished, and releases every pod, so the
// garbage collector can remove them and then the Job.
func TestSyncJobBeingDeletedReleasesEveryPod(t *testing.T) {
	job := newJob(2, i32(5))
	now := api.NewTime(testNow)
	job.DeletionTimestamp = &now
	job.Finalizers = []string{api.FinalizerDeleteDependents}
	f := newFixture(t, job, jobPod("a", api.PodRunning), jobPod("b", api.PodSucceeded))
	f.sync()
	f.server.ExpectActions(t, "update jobs/status pi", "patch pods a", "patch pods b", "update jobs/status pi")
	f.recorder.ExpectEvents(t)
	if s := f.lastStatus(); s.Succeeded != 1 || s.Failed != 0 {
		t.Errorf("succeeded %d, failed %d; want b counted, a (running) not", s.Succeeded, s.Failed)
	}
}

// A finished Job lets go of any pod that still carries the finalizer.
func TestSyncFinishedJobReleasesLeftoverPods(t *testing.T) {
	job := newJob(1, i32(1))
	job.Status.Succeeded = 1
	job.Status.Conditions = []api.JobCondition{{Type: api.JobComplete, Status: api.ConditionTrue}}
	f := newFixture(t, job, jobPod("late", api.PodRunning), withoutFinalizer(jobPod("done", api.PodSucceeded)))
	f.sync()
	f.server.ExpectActions(t, "patch pods late") // and nothing else
	f.recorder.ExpectEvents(t)
}

// An orphan the Job adopts gets the tracking finalizer, so how it ends is
// counted.
func TestSyncAdoptedPodGetsTheFinalizer(t *testing.T) {
	adoptee := jobPod("adoptee", api.PodSucceeded)
	adoptee.OwnerReferences, adoptee.Finalizers = nil, nil
	f := newFixture(t, newJob(1, i32(2)), adoptee)
	f.sync()
	// Adopt, add the finalizer, record, release, count; and run the one
	// pod still needed.
	f.server.ExpectActions(t,
		"patch pods adoptee", "patch pods adoptee",
		"update jobs/status pi",
		"patch pods adoptee",
		"create pods pi-",
		"update jobs/status pi")
	f.recorder.ExpectEvents(t, "Normal SuccessfulCreate Created pod: pi-00001")
	patches := f.server.Writes()[:2]
	if addFinalizer := jsonMap(t, addFinalizerPatch()); !reflect.DeepEqual(jsonMap(t, patches[1].Body), addFinalizer) {
		t.Errorf("second patch %s, want the tracking finalizer added", patches[1].Body)
	}
	adopted, _ := fakeapi.Get[*api.Pod](t, f.server, "default", "adoptee")
	if ref := adopted.OwnerReferences; len(ref) != 1 || ref[0].UID != "uid-pi" || hasTrackingFinalizer(adopted) {
		t.Errorf("adoptee ownerReferences %+v, finalizers %v; want owned by pi and released", ref, adopted.Finalizers)
	}
	if got := f.lastStatus().Succeeded; got != 1 {
		t.Errorf("succeeded %d, want the adopted pod counted", got)
	}
}

// A finished Job with a TTL that has passed is deleted (in the background,
// only if it is still the same Job); one whose TTL has not passed waits
// for it.
func TestSyncTTLAfterFinished(t *testing.T) {
	finished := api.NewTime(testNow.Add(-time.Minute))
	finishedJob := func(ttl int32) *api.Job {
		job := newJob(1, i32(1))
		job.Spec.TTLSecondsAfterFinished = &ttl
		job.Status.CompletionTime = &finished
		job.Status.Conditions = []api.JobCondition{{Type: api.JobComplete, Status: api.ConditionTrue}}
		return job
	}
	t.Run("ttl 30 s, finished 60 s ago: deleted", func(t *testing.T) {
		f := newFixture(t, finishedJob(30))
		f.sync()
		f.server.ExpectActions(t, "delete jobs pi")
		opts := fakeapi.Sent[api.DeleteOptions](t, f.server, "delete jobs pi")
		if opts.PropagationPolicy == nil || *opts.PropagationPolicy != api.DeletePropagationBackground ||
			opts.Preconditions == nil || opts.Preconditions.UID == nil || *opts.Preconditions.UID != "uid-pi" {
			t.Errorf("delete options %+v; want Background with the Job's uid as precondition", opts)
		}
		controllertest.ExpectDecision(t, f.server.Decisions("default/pi"),
			"Job finished at "+finished.UTC().Format(time.TimeOnly)+", ttlSecondsAfterFinished 30 → delete it (background)",
			map[string]string{"ttlSecondsAfterFinished": "30", "secondsLeft": "-30"})
	})
	t.Run("ttl 120 s, finished 60 s ago: waits", func(t *testing.T) {
		f := newFixture(t, finishedJob(120))
		f.sync()
		f.server.ExpectActions(t)
		if got := f.ctrl.queue.Waiting(); !slices.Equal(got, []string{"default/pi"}) {
			t.Errorf("waiting keys %v; want the Job back when its TTL passes", got)
		}
		controllertest.ExpectDecision(t, f.server.Decisions("default/pi"),
			"Job finished at "+finished.UTC().Format(time.TimeOnly)+", ttlSecondsAfterFinished 120 → wait 1m0s, delete at "+
				finished.Add(2*time.Minute).UTC().Format(time.TimeOnly),
			map[string]string{"ttlSecondsAfterFinished": "120", "secondsLeft": "60"})
	})
}

// A failed status write is returned, so the key is retried, and the
// Events wait for a write that lands.
func TestSyncStatusWriteConflictIsRetriedWithoutEvents(t *testing.T) {
	job := newJob(1, i32(1))
	job.Status.Succeeded = 1
	job.Status.UncountedTerminatedPods = &api.UncountedTerminatedPods{}
	f := newFixture(t, job)
	f.server.FailOn(fakeapi.VerbUpdate, "jobs/status", "pi",
		apierrors.NewConflict(apierrors.Resource{Group: "batch", Resource: "jobs"}, "pi", "injected"))
	err := f.ctrl.sync(context.Background(), "default/pi")
	if !apierrors.IsConflict(err) {
		t.Fatalf("sync = %v, want the Conflict", err)
	}
	f.server.ExpectActions(t, "update jobs/status pi")
	f.recorder.ExpectEvents(t) // Completed waits for the write that records it
}

// jsonMap decodes a JSON object, to compare patches whatever their key
// order.
func jsonMap(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return m
}

// After a pod failure the replacement waits out the back-off (10 s for
// the first failure): the sync creates nothing and says for how long.
func TestSyncRecordsTheFailureBackOff(t *testing.T) {
	job := newJob(1, i32(1))
	job.Status.Failed = 1
	start := api.NewTime(testNow.Add(-time.Minute))
	job.Status.StartTime = &start
	f := newFixture(t, job, withoutFinalizer(jobPod("pi-a", api.PodFailed))) // failed a second ago, counted
	f.sync()
	for _, a := range f.server.Writes() {
		if strings.HasPrefix(a.String(), "create pods") {
			t.Fatalf("created a pod during the back-off: %s", a)
		}
	}
	controllertest.ExpectDecision(t, f.server.Decisions("default/pi"),
		"Job wants 1 completions, parallelism 1: 0 succeeded, 1 failed (backoffLimit 6), 0 active → back-off after a failure: create in 9s",
		map[string]string{"failed": "1", "active": "0", "wantActive": "1", "create": "0"})
}
