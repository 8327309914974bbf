package job

// Fixture tests: listers filled by hand (an informer factory that is never
// started), a PodControl and jobControl that record what one sync asks
// for. No apiserver, no goroutines of our own.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/clock"
	"kplane/pkg/events"
	"kplane/pkg/informer"
)

// actionLog is the order in which one sync's API calls happened, shared by
// the fake PodControl and jobControl: "status", "patch -finalizer a",
// "delete a", "create".
type actionLog struct {
	mu      sync.Mutex
	actions []string
}

func (l *actionLog) add(action string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.actions = append(l.actions, action)
}

type fakePodControl struct {
	log     *actionLog
	mu      sync.Mutex
	created int
	// createdFinalizers are the finalizers of the templates CreatePod got.
	createdFinalizers [][]string
	deleted           []string
	// gone names pods the apiserver no longer has: patches get NotFound.
	gone map[string]bool
	// onPatch, if set, runs after each patch: an informer event arriving
	// in the middle of a sync.
	onPatch func(name string)
}

func (f *fakePodControl) CreatePod(_ context.Context, _ string, template *api.PodTemplateSpec, _ api.Object, _ api.OwnerReference) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.created++
	f.createdFinalizers = append(f.createdFinalizers, slices.Clone(template.Finalizers))
	f.log.add("create")
	return nil
}

func (f *fakePodControl) DeletePod(_ context.Context, _, name string, _ api.Object) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deleted = append(f.deleted, name)
	f.log.add("delete " + name)
	return nil
}

// PatchPod records the patches that add or remove the tracking finalizer
// as "patch +finalizer <name>" and "patch -finalizer <name>".
func (f *fakePodControl) PatchPod(_ context.Context, _, name string, patch []byte) error {
	switch string(patch) {
	case string(removeFinalizerPatch()):
		f.log.add("patch -finalizer " + name)
	case string(addFinalizerPatch()):
		f.log.add("patch +finalizer " + name)
	default:
		f.log.add("patch " + name)
	}
	if f.onPatch != nil {
		f.onPatch(name)
	}
	if f.gone[name] {
		return apierrors.NewNotFound(apierrors.Resource{Resource: "pods"}, name)
	}
	return nil
}

type fakeJobControl struct {
	log      *actionLog
	live     *api.Job // what Get returns
	statuses []api.JobStatus
	deleted  []string
}

func (f *fakeJobControl) Get(_ context.Context, _, name string) (*api.Job, error) {
	return api.DeepCopy(f.live), nil
}

func (f *fakeJobControl) UpdateStatus(_ context.Context, job *api.Job) (*api.Job, error) {
	f.statuses = append(f.statuses, api.DeepCopyValue(job.Status))
	f.log.add("status")
	return api.DeepCopy(job), nil
}

func (f *fakeJobControl) Delete(_ context.Context, _, name, _ string) error {
	f.deleted = append(f.deleted, name)
	return nil
}

type fixture struct {
	t       *testing.T
	factory *informer.SharedInformerFactory
	log     *actionLog
	pods    *fakePodControl
	jobs    *fakeJobControl
	ctrl    *Controller
	clock   *clock.Fake
}

func newFixture(t *testing.T, objects ...api.Object) *fixture {
	log := &actionLog{}
	f := &fixture{t: t, factory: informer.NewSharedInformerFactory(nil, 0), log: log,
		pods: &fakePodControl{log: log, gone: map[string]bool{}}, jobs: &fakeJobControl{log: log},
		clock: clock.NewFake(testNow)}
	ctrl, err := newController(f.factory, f.pods, f.jobs, &events.FakeRecorder{}, Options{Clock: f.clock})
	if err != nil {
		t.Fatalf("newController: %v", err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	t.Cleanup(ctrl.orphans.ShutDown)
	f.ctrl = ctrl
	for _, obj := range objects {
		f.add(obj)
	}
	return f
}

// add puts obj in the informer cache (a Job also becomes what Get returns).
func (f *fixture) add(obj api.Object) {
	f.t.Helper()
	var err error
	switch o := obj.(type) {
	case *api.Job:
		f.jobs.live = o
		err = f.factory.Jobs().Informer().GetIndexer().Add(o)
	case *api.Pod:
		err = f.factory.Pods().Informer().GetIndexer().Add(o)
	}
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) sync() {
	f.t.Helper()
	if err := f.ctrl.sync(context.Background(), "default/pi"); err != nil {
		f.t.Fatalf("sync: %v", err)
	}
}

// lastStatus is the status the last write left.
func (f *fixture) lastStatus() api.JobStatus {
	f.t.Helper()
	if len(f.jobs.statuses) == 0 {
		f.t.Fatal("no status was written")
	}
	return f.jobs.statuses[len(f.jobs.statuses)-1]
}

// actions returns the API calls in the order they happened. The pods of
// one batch are handled in the cache's (random) order, so a run of calls
// of one kind ("patch -finalizer b, patch -finalizer a") is sorted.
func (f *fixture) actions() string {
	actions := slices.Clone(f.log.actions)
	kind := func(action string) string { // the action without the pod's name
		if i := strings.LastIndex(action, " "); i >= 0 {
			return action[:i]
		}
		return action
	}
	for start := 0; start < len(actions); {
		end := start + 1
		for end < len(actions) && kind(actions[end]) == kind(actions[start]) {
			end++
		}
		slices.Sort(actions[start:end])
		start = end
	}
	return strings.Join(actions, ", ")
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
	if f.pods.created != 2 {
		t.Fatalf("first sync created %d pods, want 2", f.pods.created)
	}
	if len(f.jobs.statuses) != 1 || f.jobs.statuses[0].Active != 2 || f.jobs.statuses[0].StartTime == nil {
		t.Fatalf("status writes %+v, want active 2 and a startTime", f.jobs.statuses)
	}
	f.sync()
	if f.pods.created != 2 {
		t.Errorf("second sync created more pods: %d in all", f.pods.created)
	}
}

// Every pod the Job creates carries the tracking finalizer, next to the
// template's own finalizers.
func TestCreatedPodsCarryTheTrackingFinalizer(t *testing.T) {
	job := newJob(2, i32(5))
	job.Spec.Template.Finalizers = []string{"example.com/keep"}
	f := newFixture(t, job)
	f.sync()
	want := []string{"example.com/keep", api.JobTrackingFinalizer}
	if len(f.pods.createdFinalizers) != 2 {
		t.Fatalf("created %d pods, want 2", len(f.pods.createdFinalizers))
	}
	for _, got := range f.pods.createdFinalizers {
		if !slices.Equal(got, want) {
			t.Errorf("created pod's finalizers %v, want %v", got, want)
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

	if len(f.jobs.statuses) != 2 {
		t.Fatalf("status writes: %d (%s), want 2", len(f.jobs.statuses), f.actions())
	}
	first, second := f.jobs.statuses[0], f.jobs.statuses[1]
	if got := uncounted(first); got != "succeeded [uid-a] failed [uid-b]" || first.Succeeded != 0 || first.Failed != 0 {
		t.Errorf("first write: uncounted %s, succeeded %d, failed %d; want a and b recorded, nothing counted yet",
			got, first.Succeeded, first.Failed)
	}
	if got := uncounted(second); got != "succeeded [] failed []" || second.Succeeded != 1 || second.Failed != 1 {
		t.Errorf("second write: uncounted %s, succeeded %d, failed %d; want both counted", got, second.Succeeded, second.Failed)
	}
	// Record, release, then count (and run the pods it needs: 5 - 1 = 4
	// still to succeed, parallelism 3, one running → 2 more).
	want := "status, patch -finalizer a, patch -finalizer b, create, create, status"
	if got := f.actions(); got != want {
		t.Errorf("actions:\n got %s\nwant %s", got, want)
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
	s := f.lastStatus()
	if s.Succeeded != 5 {
		t.Fatalf("succeeded = %d, want 5 (3 counted before + 2 new)", s.Succeeded)
	}
	if !hasTrueCondition(&s, api.JobComplete) || s.CompletionTime == nil {
		t.Errorf("conditions %q, completionTime %v: want Complete", conditionTypes(s), s.CompletionTime)
	}
	if f.pods.created != 0 {
		t.Errorf("created %d pods for a Job that has all its completions", f.pods.created)
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
	for _, s := range f.jobs.statuses {
		if s.Succeeded != 1 {
			t.Errorf("a status write says succeeded %d, want 1", s.Succeeded)
		}
	}
	if strings.Contains(f.actions(), "patch") {
		t.Errorf("actions %s: nothing to release", f.actions())
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
	if got := f.lastStatus().Succeeded; got != 1 {
		t.Fatalf("succeeded = %d after the first sync, want 1", got)
	}
	// The Job's cache catches up with the write; the pod's does not.
	written := api.DeepCopy(f.jobs.live)
	written.Status = f.lastStatus()
	written.ResourceVersion = "2"
	f.add(written)
	f.sync()
	if got := f.lastStatus().Succeeded; got != 1 {
		t.Errorf("succeeded = %d after a sync on a stale pod cache, want 1", got)
	}
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
	f.pods.onPatch = func(name string) {
		released := withoutFinalizer(api.DeepCopy(a))
		released.ResourceVersion = "2"
		f.ctrl.updatePod(a, released) // the handler only; the sync's list is older
	}
	f.sync()
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
	if got := f.actions(); got != "status" {
		t.Errorf("actions %q, want one status write", got)
	}
	if s := f.lastStatus(); s.Succeeded != 3 || uncounted(s) != "succeeded [] failed []" {
		t.Errorf("succeeded %d, uncounted %s; want 3 and none left", s.Succeeded, uncounted(s))
	}
}

// A pod deleted while it ran will never finish: it counts as failed (as
// upstream), its finalizer goes so it can leave, and it is replaced.
func TestSyncCountsPodDeletedWhileRunningAsFailed(t *testing.T) {
	f := newFixture(t, newJob(1, i32(5)), deleting(jobPod("a", api.PodRunning)))
	f.sync()
	if got := uncounted(f.jobs.statuses[0]); got != "succeeded [] failed [uid-a]" {
		t.Errorf("first write: uncounted %s, want a recorded as failed", got)
	}
	s := f.lastStatus()
	if s.Failed != 1 || s.Succeeded != 0 {
		t.Errorf("failed %d, succeeded %d; want 1, 0", s.Failed, s.Succeeded)
	}
	if !strings.Contains(f.actions(), "patch -finalizer a") || f.pods.created != 1 {
		t.Errorf("actions %s: want a released and one replacement created", f.actions())
	}
}

// A pod that finished and was then deleted by a user is counted by how it
// finished, and a patch that finds it already gone is fine.
func TestSyncCountsDeletedFinishedPodByItsPhase(t *testing.T) {
	f := newFixture(t, newJob(1, i32(2)), deleting(jobPod("a", api.PodSucceeded)), jobPod("b", api.PodRunning))
	f.pods.gone["a"] = true
	f.sync()
	if s := f.lastStatus(); s.Succeeded != 1 || s.Failed != 0 || uncounted(s) != "succeeded [] failed []" {
		t.Errorf("succeeded %d, failed %d, uncounted %s; want 1, 0, none", s.Succeeded, s.Failed, uncounted(s))
	}
}

// Complete and Failed wait until every finished pod is counted: a release
// that fails leaves the pod recorded, the sync returns the error, and no
// terminal condition is written.
func TestSyncTerminalConditionWaitsForUncountedPods(t *testing.T) {
	job := newJob(1, i32(1))
	f := newFixture(t, job, jobPod("a", api.PodSucceeded))
	f.ctrl.podControl = failingPatches{f.pods}
	if err := f.ctrl.sync(context.Background(), "default/pi"); err == nil {
		t.Fatal("sync succeeded although the finalizer could not be removed")
	}
	for _, s := range f.jobs.statuses {
		if hasTrueCondition(&s, api.JobComplete) || s.Succeeded != 0 {
			t.Errorf("written: succeeded %d, conditions %q; want nothing counted or completed", s.Succeeded, conditionTypes(s))
		}
	}
	if got := uncounted(f.lastStatus()); got != "succeeded [uid-a] failed []" {
		t.Errorf("uncounted %s, want a recorded", got)
	}
}

// failingPatches is a PodControl whose patches fail.
type failingPatches struct{ *fakePodControl }

func (failingPatches) PatchPod(context.Context, string, string, []byte) error {
	return apierrors.NewInternalError(fmt.Errorf("etcd is down"))
}

// Suspending deletes the running pods without counting them as failed:
// each loses its finalizer before it is deleted. A failing Job keeps the
// finalizer on the pods it stops, so they count as failed next time.
func TestDeletedPodsKeepTheirFinalizerOnlyWhenTheJobFails(t *testing.T) {
	suspended := newJob(1, i32(5))
	suspended.Spec.Suspend = ptr(true)
	f := newFixture(t, suspended, jobPod("a", api.PodRunning))
	f.sync()
	if got := f.actions(); !strings.HasPrefix(got, "patch -finalizer a, delete a") {
		t.Errorf("suspend: actions %s, want the finalizer removed, then the delete", got)
	}

	failing := newJob(2, i32(5))
	failing.Spec.BackoffLimit = i32(0)
	f = newFixture(t, failing, jobPod("a", api.PodRunning), jobPod("b", api.PodFailed))
	f.sync()
	if got := f.actions(); !strings.Contains(got, "delete a") || strings.Contains(got, "patch -finalizer a") {
		t.Errorf("failing job: actions %s, want a deleted with its finalizer on", got)
	}
	if s := f.lastStatus(); !hasTrueCondition(&s, api.JobFailureTarget) || hasTrueCondition(&s, api.JobFailed) || s.Failed != 1 {
		t.Errorf("failing job: failed %d, conditions %q; want FailureTarget, not Failed yet", s.Failed, conditionTypes(s))
	}
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
	if got, want := f.actions(), "patch -finalizer of-gone-job, patch -finalizer orphan"; got != want {
		t.Errorf("actions %q, want %q", got, want)
	}
}

// Deleting a Job (Background: it goes at once) hands the pods it still
// tracks to the orphan queue, whose sync removes their finalizers.
func TestDeletedJobReleasesItsPods(t *testing.T) {
	job := newJob(2, i32(5))
	f := newFixture(t, job, jobPod("a", api.PodRunning), jobPod("b", api.PodSucceeded), withoutFinalizer(jobPod("c", api.PodSucceeded)))
	if err := f.factory.Jobs().Informer().GetIndexer().Delete(job); err != nil {
		t.Fatal(err)
	}
	f.ctrl.deleteJob(job)
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
	got := f.log.actions
	slices.Sort(got)
	if want := []string{"patch -finalizer a", "patch -finalizer b"}; !slices.Equal(got, want) {
		t.Errorf("actions %q, want %q", got, want)
	}
}

// A Job being deleted (foreground: it waits for its pods) creates and
// deletes nothing, counts what finished, and releases every pod, so the
// garbage collector can remove them and then the Job.
func TestSyncJobBeingDeletedReleasesEveryPod(t *testing.T) {
	job := newJob(2, i32(5))
	now := api.NewTime(testNow)
	job.DeletionTimestamp = &now
	f := newFixture(t, job, jobPod("a", api.PodRunning), jobPod("b", api.PodSucceeded))
	f.sync()
	if got, want := f.actions(), "status, patch -finalizer a, patch -finalizer b, status"; got != want {
		t.Errorf("actions %q, want %q", got, want)
	}
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
	if got := f.actions(); got != "patch -finalizer late" {
		t.Errorf("actions %q, want the late pod released and nothing else", got)
	}
}

// An orphan the Job adopts gets the tracking finalizer, so how it ends is
// counted.
func TestSyncAdoptedPodGetsTheFinalizer(t *testing.T) {
	adoptee := jobPod("adoptee", api.PodSucceeded)
	adoptee.OwnerReferences, adoptee.Finalizers = nil, nil
	f := newFixture(t, newJob(1, i32(2)), adoptee)
	f.sync()
	if got := f.actions(); !strings.HasPrefix(got, "patch adoptee, patch +finalizer adoptee, status, patch -finalizer adoptee") {
		t.Errorf("actions %s: want adopt, add the finalizer, record, release", got)
	}
	if got := f.lastStatus().Succeeded; got != 1 {
		t.Errorf("succeeded %d, want the adopted pod counted", got)
	}
}

// A finished Job with a TTL that has passed is deleted; one whose TTL has
// not passed waits for it.
func TestSyncTTLAfterFinished(t *testing.T) {
	finished := api.NewTime(testNow.Add(-time.Minute))
	for _, tt := range []struct {
		ttl         int32
		wantDeleted bool
	}{{30, true}, {120, false}} {
		job := newJob(1, i32(1))
		job.Spec.TTLSecondsAfterFinished = &tt.ttl
		job.Status.CompletionTime = &finished
		job.Status.Conditions = []api.JobCondition{{Type: api.JobComplete, Status: api.ConditionTrue}}
		f := newFixture(t, job)
		f.sync()
		if got := len(f.jobs.deleted) == 1; got != tt.wantDeleted {
			t.Errorf("ttl %d s, finished 60 s ago: deleted %v, want %v", tt.ttl, f.jobs.deleted, tt.wantDeleted)
		}
		if !tt.wantDeleted && len(f.ctrl.queue.Waiting()) != 1 {
			t.Errorf("ttl %d s: nothing waits for the TTL to pass", tt.ttl)
		}
		if f.pods.created != 0 || len(f.jobs.statuses) != 0 {
			t.Errorf("a finished job was touched: created %d, status writes %d", f.pods.created, len(f.jobs.statuses))
		}
	}
}
