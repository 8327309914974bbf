package cronjob

// Fixture tests, sample-controller's way: the CronJob and its Jobs are put
// in a fakeapi server and in the informers' caches (the factory is never
// started), one sync runs on a fake clock, and the test lists the complete,
// ordered API writes it made and the Events it recorded.

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
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

// now is 30 s past base (10:00): the 10:00 start time is due, 10:01 is
// not yet.
var now = base.Add(30 * time.Second)

type fixture struct {
	t        *testing.T
	server   *fakeapi.Server
	recorder *controllertest.Recorder
	ctrl     *Controller
}

// newFixture builds the controller on a fakeapi server holding objects, in
// the apiserver and in the caches, with the clock at now.
func newFixture(t *testing.T, objects ...api.Object) *fixture {
	t.Helper()
	clk := clock.NewFake(now)
	server := fakeapi.New(t, fakeapi.WithClock(clk))
	recorder := &controllertest.Recorder{}
	ctrl, err := New(server.Client(), server.Informers(), recorder, Options{Clock: clk, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	server.Put(t, objects...)
	return &fixture{t: t, server: server, recorder: recorder, ctrl: ctrl}
}

// sync runs one sync of the CronJob "hello".
func (f *fixture) sync() error {
	f.t.Helper()
	return f.ctrl.sync(context.Background(), "default/hello")
}

// cronJob is "hello", every minute in UTC, created at 09:58:30, which has
// not run yet.
func cronJob(policy api.ConcurrencyPolicy) *api.CronJob {
	return &api.CronJob{
		ObjectMeta: api.ObjectMeta{Name: "hello", Namespace: "default", UID: "uid-hello", ResourceVersion: "1",
			CreationTimestamp: api.NewTime(base.Add(-90 * time.Second))},
		Spec: api.CronJobSpec{Schedule: "*/1 * * * *", TimeZone: ptr("UTC"), ConcurrencyPolicy: policy,
			JobTemplate: api.JobTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "hello"}},
				Spec: api.JobSpec{Template: api.PodTemplateSpec{Spec: api.PodSpec{RestartPolicy: api.RestartPolicyOnFailure,
					Containers: []api.Container{{Name: "hello", Image: "busybox", Command: []string{"date"}}}}}}}},
	}
}

// ranAt is cj after it created the Job for scheduled, which still runs:
// lastScheduleTime and status.active say so.
func ranAt(cj *api.CronJob, scheduled time.Time) (*api.CronJob, *api.Job) {
	job := jobFromTemplate(cj, jobName(cj.Name, scheduled), scheduled)
	job.UID, job.ResourceVersion = "uid-"+job.Name, "1"
	// In Local, as a status decoded from the apiserver holds it (the
	// controller compares statuses with reflect.DeepEqual).
	last := api.NewTime(scheduled.Local())
	cj.Status.LastScheduleTime = &last
	cj.Status.Active = append(cj.Status.Active, jobReference(job))
	return cj, job
}

// finished is job after it completed at completed, having started a
// second after it was scheduled.
func finished(job *api.Job, scheduled, completed time.Time) *api.Job {
	start, done := api.NewTime(scheduled.Add(time.Second)), api.NewTime(completed)
	job.Status.StartTime, job.Status.CompletionTime = &start, &done
	job.Status.Conditions = []api.JobCondition{{Type: api.JobComplete, Status: api.ConditionTrue}}
	return job
}

func ptr[T any](v T) *T { return &v }

// The Job for the latest due start time is created, named for its minute,
// from the template, with the CronJob as its controller; status records it
// and the key waits for the next start time. A second sync, once the
// caches show both writes, changes nothing.
func TestSyncCreatesTheJobThatIsDue(t *testing.T) {
	f := newFixture(t, cronJob(api.AllowConcurrent))
	if err := f.sync(); err != nil {
		t.Fatalf("sync: %v", err)
	}
	name := jobName("hello", base) // 09:59 was missed too; only the latest runs
	f.server.ExpectActions(t, "create jobs "+name, "update cronjobs/status hello")
	f.recorder.ExpectEvents(t, "Normal SuccessfulCreate Created job "+name)

	job := fakeapi.Sent[*api.Job](t, f.server, "create jobs "+name)
	if ref := controllerutil.GetControllerOf(&job.ObjectMeta); ref == nil || ref.UID != "uid-hello" || ref.Kind != "CronJob" {
		t.Errorf("the Job's controller is %+v, want the CronJob", ref)
	}
	if got := job.Annotations[ScheduledTimestampAnnotation]; got != "2025-03-01T10:00:00Z" {
		t.Errorf("scheduled-timestamp annotation %q, want 10:00 UTC", got)
	}
	if job.Labels["app"] != "hello" || len(job.Spec.Template.Spec.Containers) != 1 {
		t.Errorf("the Job is not built from the template: labels %v, spec %+v", job.Labels, job.Spec)
	}
	cj := fakeapi.Result[*api.CronJob](t, f.server, "update cronjobs/status hello")
	if got := cj.Status.Active; len(got) != 1 || got[0].Name != name || got[0].UID != "uid-"+name {
		t.Errorf("status.active %+v, want the new Job", got)
	}
	if got := cj.Status.LastScheduleTime; got == nil || !got.Equal(base) {
		t.Errorf("lastScheduleTime %v, want %v", got, base)
	}
	if got := f.ctrl.queue.Waiting(); !slices.Equal(got, []string{"default/hello"}) {
		t.Errorf("waiting keys %v, want the CronJob back for 10:01", got)
	}

	controllertest.ExpectDecision(t, f.server.Decisions("default/hello"),
		"CronJob */1 * * * *: missed 2, next run 10:01:00, concurrencyPolicy Allow, 0 active → create Job "+name+" for the 10:00:00 run",
		map[string]string{"missed": "2", "active": "0", "nextRun": "2025-03-01T10:01:00Z", "scheduledTime": "2025-03-01T10:00:00Z"})

	f.server.Cache(t, cj, fakeapi.Result[*api.Job](t, f.server, "create jobs "+name))
	if err := f.sync(); err != nil {
		t.Fatalf("second sync: %v", err)
	}
	f.server.ExpectActions(t)
	f.recorder.ExpectEvents(t)
	if got := len(f.server.Decisions("default/hello")); got != 1 {
		t.Errorf("%d decisions after a sync with nothing to do; want still 1", got)
	}
}

// Forbid: while the previous Job runs the start time is skipped, not
// queued.
func TestSyncForbidSkipsWhileAJobRuns(t *testing.T) {
	cj, running := ranAt(cronJob(api.ForbidConcurrent), base.Add(-time.Minute))
	f := newFixture(t, cj, running)
	if err := f.sync(); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t)
	f.recorder.ExpectEvents(t, "Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid")
	controllertest.ExpectDecision(t, f.server.Decisions("default/hello"),
		"CronJob */1 * * * *: missed 1, next run 10:01:00, concurrencyPolicy Forbid, 1 active → skip the 10:00:00 run",
		map[string]string{"missed": "1", "active": "1", "concurrencyPolicy": "Forbid"})
}

// Replace: the running Job is deleted (in the background: its pods go
// through the garbage collector) and the new one created.
func TestSyncReplaceDeletesTheRunningJob(t *testing.T) {
	cj, running := ranAt(cronJob(api.ReplaceConcurrent), base.Add(-time.Minute))
	f := newFixture(t, cj, running)
	if err := f.sync(); err != nil {
		t.Fatalf("sync: %v", err)
	}
	name := jobName("hello", base)
	controllertest.ExpectDecision(t, f.server.Decisions("default/hello"),
		"CronJob */1 * * * *: missed 1, next run 10:01:00, concurrencyPolicy Replace, 1 active → delete the 1 active Jobs, then create Job "+name+" for the 10:00:00 run",
		map[string]string{"active": "1", "concurrencyPolicy": "Replace"})
	f.server.ExpectActions(t, "delete jobs "+running.Name, "create jobs "+name, "update cronjobs/status hello")
	f.recorder.ExpectEvents(t, "Normal SuccessfulDelete Deleted job "+running.Name, "Normal SuccessfulCreate Created job "+name)
	if opts := fakeapi.Sent[api.DeleteOptions](t, f.server, "delete jobs "+running.Name); opts.PropagationPolicy == nil ||
		*opts.PropagationPolicy != api.DeletePropagationBackground {
		t.Errorf("delete options %+v, want Background propagation", opts)
	}
	if got := fakeapi.Result[*api.CronJob](t, f.server, "update cronjobs/status hello").Status.Active; len(got) != 1 || got[0].Name != name {
		t.Errorf("status.active %+v, want only the new Job", got)
	}
}

// A Job that finished leaves status.active and sets lastSuccessfulTime;
// of the successful Jobs only successfulJobsHistoryLimit stay, the oldest
// go.
func TestSyncFinishedJobLeavesActiveAndHistoryIsTrimmed(t *testing.T) {
	cj := cronJob(api.AllowConcurrent)
	cj.Spec.SuccessfulJobsHistoryLimit = i32(1)
	var jobs []*api.Job
	for i, minute := range []time.Duration{-2 * time.Minute, -time.Minute, 0} {
		scheduled := base.Add(minute)
		var job *api.Job
		cj, job = ranAt(cj, scheduled)
		if i < 2 {
			removeActive(cj, job.UID) // seen finished by earlier syncs
		}
		jobs = append(jobs, finished(job, scheduled, scheduled.Add(20*time.Second)))
	}
	f := newFixture(t, cj, jobs[0], jobs[1], jobs[2])
	if err := f.sync(); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t, "delete jobs "+jobs[0].Name, "delete jobs "+jobs[1].Name, "update cronjobs/status hello")
	f.recorder.ExpectEvents(t,
		"Normal SawCompletedJob Saw completed job: "+jobs[2].Name+", condition: Complete",
		"Normal SuccessfulDelete Deleted job "+jobs[0].Name,
		"Normal SuccessfulDelete Deleted job "+jobs[1].Name)
	status := fakeapi.Result[*api.CronJob](t, f.server, "update cronjobs/status hello").Status
	if len(status.Active) != 0 {
		t.Errorf("status.active %+v, want none", status.Active)
	}
	if got := status.LastSuccessfulTime; got == nil || !got.Equal(base.Add(20*time.Second)) {
		t.Errorf("lastSuccessfulTime %v, want the newest completion, 10:00:20", got)
	}
}

// An active Job that neither the cache nor the apiserver has any more
// leaves status.active.
func TestSyncMissingActiveJobLeavesActive(t *testing.T) {
	cj, gone := ranAt(cronJob(api.AllowConcurrent), base)
	f := newFixture(t, cj)
	if err := f.sync(); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t, "update cronjobs/status hello")
	f.recorder.ExpectEvents(t, "Normal MissingJob Active job went missing: "+gone.Name)
	if !slices.ContainsFunc(f.server.Actions(), func(a fakeapi.Action) bool { return a.String() == "get jobs "+gone.Name }) {
		t.Errorf("the apiserver was not asked for %s before it was dropped; requests: %s", gone.Name, f.server)
	}
	if got := fakeapi.Result[*api.CronJob](t, f.server, "update cronjobs/status hello").Status.Active; len(got) != 0 {
		t.Errorf("status.active %+v, want none", got)
	}
}

// A running Job the CronJob controls but does not list in status.active is
// first checked against the apiserver's copy of the CronJob (the cache may
// be behind its own status write); when that does not list it either, it
// is an UnexpectedJob.
func TestSyncWarnsAboutAnUnexpectedJob(t *testing.T) {
	cj, stranger := ranAt(cronJob(api.AllowConcurrent), base)
	cj.Status.Active = nil
	f := newFixture(t, cj, stranger)
	if err := f.sync(); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t)
	f.recorder.ExpectEvents(t, "Warning UnexpectedJob Saw a job that the controller did not create or forgot: "+stranger.Name)
	if !slices.ContainsFunc(f.server.Actions(), func(a fakeapi.Action) bool { return a.String() == "get cronjobs hello" }) {
		t.Errorf("the CronJob was not re-read from the apiserver; requests: %s", f.server)
	}
}

// A create that finds the Job already there (another leader, or this one
// before a crash) takes it as its own if the CronJob controls it.
func TestSyncAdoptsItsJobThatAlreadyExists(t *testing.T) {
	cj := cronJob(api.AllowConcurrent)
	_, existing := ranAt(api.DeepCopy(cj), base)
	f := newFixture(t, cj)
	f.server.Add(t, existing) // in the apiserver, not yet in the cache
	if err := f.sync(); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t, "create jobs "+existing.Name, "update cronjobs/status hello")
	f.recorder.ExpectEvents(t)
	if got := fakeapi.Result[*api.CronJob](t, f.server, "update cronjobs/status hello").Status.Active; len(got) != 1 || got[0].UID != existing.UID {
		t.Errorf("status.active %+v, want the existing Job", got)
	}
}

// A create that fails is an Event and an error, so the key is retried;
// nothing is recorded in status.
func TestSyncCreateFailureIsRetried(t *testing.T) {
	f := newFixture(t, cronJob(api.AllowConcurrent))
	f.server.FailOn(fakeapi.VerbCreate, "jobs", "", apierrors.NewInternalError(errors.New("etcd is down")))
	if err := f.sync(); err == nil {
		t.Fatal("sync succeeded although the Job could not be created")
	}
	f.server.ExpectActions(t, "create jobs "+jobName("hello", base))
	f.recorder.ExpectEvents(t, "Warning FailedCreate Error creating job: Internal error occurred: etcd is down")
}

// A suspended CronJob starts nothing and waits for the update that
// resumes it.
func TestSyncSuspendedCreatesNothing(t *testing.T) {
	cj := cronJob(api.AllowConcurrent)
	cj.Spec.Suspend = ptr(true)
	f := newFixture(t, cj)
	if err := f.sync(); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t)
	f.recorder.ExpectEvents(t)
	if got := f.ctrl.queue.Waiting(); len(got) != 0 {
		t.Errorf("waiting keys %v, want none", got)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("default/hello"),
		"CronJob */1 * * * *: concurrencyPolicy Allow, 0 active → suspended: no run starts", map[string]string{"active": "0"})
}

// A schedule that does not parse is a warning, not a retry: only a new
// spec can fix it.
func TestSyncUnparseableScheduleIsAWarning(t *testing.T) {
	cj := cronJob(api.AllowConcurrent)
	cj.Spec.Schedule, cj.Spec.TimeZone = "not a schedule", nil
	f := newFixture(t, cj)
	if err := f.sync(); err != nil {
		t.Fatalf("sync: %v", err)
	}
	f.server.ExpectActions(t)
	if got := f.recorder.Events(); len(got) != 1 || !strings.HasPrefix(got[0], "Warning UnparseableSchedule unparseable schedule \"not a schedule\"") {
		t.Errorf("events %q, want one UnparseableSchedule warning", got)
	}
}

// The handlers queue the CronJob a change concerns: its own key (from a
// tombstone too, even one that lost the CronJob's last state), or, for a
// Job, the CronJob that controls it — and nothing for a Job of anyone
// else.
func TestHandlersEnqueueTheCronJobOfAChange(t *testing.T) {
	cj, job := ranAt(cronJob(api.AllowConcurrent), base)
	f := newFixture(t, cj, job)
	queued := func() []string {
		var keys []string
		for f.ctrl.queue.Len() > 0 {
			key, _ := f.ctrl.queue.Get()
			f.ctrl.queue.Done(key)
			keys = append(keys, key)
		}
		return keys
	}

	f.ctrl.deleteCronJob(informer.DeletedFinalStateUnknown{Key: "default/lost"})
	if got := queued(); !slices.Equal(got, []string{"default/lost"}) {
		t.Errorf("a tombstone without its last state queued %v, want [default/lost]", got)
	}
	f.ctrl.updateJob(job, finished(api.DeepCopy(job), base, base.Add(20*time.Second)))
	if got := queued(); !slices.Equal(got, []string{"default/hello"}) {
		t.Errorf("a Job's update queued %v, want its CronJob", got)
	}
	f.ctrl.deleteJob(informer.DeletedFinalStateUnknown{Key: "default/" + job.Name, Obj: job})
	if got := queued(); !slices.Equal(got, []string{"default/hello"}) {
		t.Errorf("a Job's tombstone queued %v, want its CronJob", got)
	}
	stranger := api.DeepCopy(job)
	stranger.OwnerReferences[0].UID = "uid-of-another-hello"
	f.ctrl.addJob(stranger)
	if got := queued(); len(got) != 0 {
		t.Errorf("a Job another CronJob controls queued %v, want nothing", got)
	}
}
