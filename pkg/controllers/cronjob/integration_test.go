package cronjob

// These tests run the CronJob controller in-process against a real
// apiserver on a temp etcd, on a fake clock: the test moves time forward
// minute by minute and plays the Job controller's part by marking Jobs
// complete. (An internal test, to reach the controller's queue and see
// that a requeue for the next start time is waiting before time moves.)

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 20 * time.Second

// harness is an apiserver, a CronJob controller on a fake clock, and a
// client.
type harness struct {
	t     *testing.T
	c     *client.Client
	clock *clock.Fake
	ctrl  *Controller
}

func startHarness(t *testing.T) *harness {
	t.Helper()
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	// The apiserver stamps creationTimestamp with the wall clock, so the
	// fake clock starts at the wall clock and only moves forward.
	fake := clock.NewFake(time.Now())
	ctrl := controllertest.RunController(t, c, "cronjob-controller", 2, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*Controller, error) {
		return New(c, f, rec, Options{Logger: logger, Clock: fake})
	})
	return &harness{t: t, c: c, clock: fake, ctrl: ctrl}
}

func (h *harness) create(name, schedule string, policy api.ConcurrencyPolicy, successfulLimit int32, mutate ...func(*api.CronJob)) *api.CronJob {
	h.t.Helper()
	cj := &api.CronJob{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.CronJobSpec{Schedule: schedule, ConcurrencyPolicy: policy, SuccessfulJobsHistoryLimit: &successfulLimit,
			JobTemplate: api.JobTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: api.JobSpec{Template: api.PodTemplateSpec{Spec: api.PodSpec{RestartPolicy: api.RestartPolicyOnFailure,
					Containers: []api.Container{{Name: "hello", Image: "busybox", Command: []string{"date"}}}}}}}},
	}
	for _, m := range mutate {
		m(cj)
	}
	created, err := h.c.CronJobs("default").Create(context.Background(), cj, client.CreateOptions{})
	if err != nil {
		h.t.Fatalf("create cronjob: %v", err)
	}
	return created
}

// nextMinute moves the fake clock 5 s past the next whole minute, once the
// controller has queued its wake-up for that minute, and returns the
// minute.
func (h *harness) nextMinute(key string) time.Time {
	h.t.Helper()
	h.wait(func() (bool, string) {
		return slices.Contains(h.ctrl.Queue().Waiting(), key), fmt.Sprintf("%s not waiting for its next start time; waiting: %v", key, h.ctrl.Queue().Waiting())
	})
	minute := h.clock.Now().Truncate(time.Minute).Add(time.Minute)
	h.clock.SetTime(minute.Add(5 * time.Second))
	return minute
}

// wait polls cond; each poll moves the fake clock by 10 ms so that a
// rate-limited retry (a conflict) is not stuck on frozen time.
func (h *harness) wait(cond func() (bool, string)) {
	h.t.Helper()
	framework.Eventually(h.t, waitTimeout, func() (bool, string) {
		h.clock.Step(10 * time.Millisecond)
		return cond()
	})
}

// jobs lists the Jobs the CronJob controls, by name.
func (h *harness) jobs(cj *api.CronJob) []*api.Job {
	list, err := h.c.Jobs("default").List(context.Background(), client.ListOptions{})
	if err != nil {
		h.t.Fatalf("list jobs: %v", err)
	}
	var out []*api.Job
	for _, j := range list.Items {
		if controllerutil.IsControlledBy(&j.ObjectMeta, cj.UID) && j.DeletionTimestamp == nil {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Name < out[k].Name })
	return out
}

func jobNames(jobs []*api.Job) []string {
	var names []string
	for _, j := range jobs {
		names = append(names, j.Name)
	}
	return names
}

// waitJobs waits until the CronJob's Jobs are exactly names.
func (h *harness) waitJobs(cj *api.CronJob, names ...string) {
	h.t.Helper()
	sort.Strings(names)
	h.wait(func() (bool, string) {
		got := jobNames(h.jobs(cj))
		return slices.Equal(got, names), fmt.Sprintf("jobs %v, want %v", got, names)
	})
}

// complete plays the Job controller: the Job succeeded.
func (h *harness) complete(name string) {
	h.t.Helper()
	ctx := context.Background()
	h.wait(func() (bool, string) {
		j, err := h.c.Jobs("default").Get(ctx, name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		now := api.NewTime(h.clock.Now().UTC().Truncate(time.Second))
		j.Status.StartTime, j.Status.CompletionTime, j.Status.Succeeded = &now, &now, 1
		j.Status.Conditions = []api.JobCondition{{Type: api.JobComplete, Status: api.ConditionTrue, LastTransitionTime: now}}
		if _, err := h.c.Jobs("default").UpdateStatus(ctx, j, client.UpdateOptions{}); err != nil {
			if apierrors.IsConflict(err) {
				return false, err.Error()
			}
			h.t.Fatalf("complete job %s: %v", name, err)
		}
		return true, ""
	})
}

// waitStatus waits until the CronJob's status satisfies ok.
func (h *harness) waitStatus(name string, ok func(api.CronJobStatus) bool) api.CronJobStatus {
	h.t.Helper()
	var status api.CronJobStatus
	h.wait(func() (bool, string) {
		cj, err := h.c.CronJobs("default").Get(context.Background(), name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		status = cj.Status
		return ok(status), fmt.Sprintf("status %+v", status)
	})
	return status
}

// waitEvent waits for an event about the CronJob with reason and a message
// starting with prefix.
func (h *harness) waitEvent(name, reason, prefix string) {
	h.t.Helper()
	h.wait(controllertest.EventSeen(h.c, controllertest.EventMatch{Namespace: "default", Component: "cronjob-controller",
		Kind: "CronJob", Name: name, Reason: reason, MessagePrefix: prefix}))
}

func activeNames(s api.CronJobStatus) []string {
	var names []string
	for _, r := range s.Active {
		names = append(names, r.Name)
	}
	return names
}

// Every minute a Job named <cronjob>-<minutes since the epoch>; finished
// ones leave status.active and only the newest two successful stay.
func TestCronJobCreatesJobsOnSchedule(t *testing.T) {
	h := startHarness(t)
	cj := h.create("hello", "*/1 * * * *", api.AllowConcurrent, 2)
	var names []string
	for i := range 4 {
		minute := h.nextMinute("default/hello")
		name := fmt.Sprintf("hello-%d", minute.Unix()/60)
		names = append(names, name)
		st := h.waitStatus("hello", func(s api.CronJobStatus) bool { return slices.Contains(activeNames(s), name) })
		if st.LastScheduleTime == nil || !st.LastScheduleTime.Equal(minute) {
			t.Errorf("lastScheduleTime %v, want %v", st.LastScheduleTime, minute)
		}
		j, err := h.c.Jobs("default").Get(context.Background(), name, client.GetOptions{})
		if err != nil {
			t.Fatalf("get job %s: %v", name, err)
		}
		if j.Labels["app"] != "hello" || j.Annotations[ScheduledTimestampAnnotation] == "" {
			t.Errorf("job %s labels %v annotations %v", name, j.Labels, j.Annotations)
		}
		h.complete(name)
		h.waitStatus("hello", func(s api.CronJobStatus) bool { return len(s.Active) == 0 && s.LastSuccessfulTime != nil })
		if i == 0 {
			h.waitEvent("hello", "SuccessfulCreate", "Created job "+name)
			h.waitEvent("hello", "SawCompletedJob", "Saw completed job: "+name+", condition: Complete")
		}
	}
	// successfulJobsHistoryLimit 2: the two oldest were deleted.
	h.waitJobs(cj, names[2:]...)
	h.waitEvent("hello", "SuccessfulDelete", "Deleted job "+names[0])
}

// Forbid: while a Job runs, the next start time is skipped; once it ends
// the missed start runs (upstream starts the most recent missed time).
func TestCronJobForbidSkipsWhileRunning(t *testing.T) {
	h := startHarness(t)
	cj := h.create("forbid", "*/1 * * * *", api.ForbidConcurrent, 3)
	first := h.nextMinute("default/forbid")
	firstName := fmt.Sprintf("forbid-%d", first.Unix()/60)
	h.waitJobs(cj, firstName)
	second := h.nextMinute("default/forbid")
	h.waitEvent("forbid", "JobAlreadyActive", "Not starting job because prior execution is running")
	h.waitJobs(cj, firstName)
	if st := h.waitStatus("forbid", func(api.CronJobStatus) bool { return true }); !slices.Equal(activeNames(st), []string{firstName}) {
		t.Errorf("active %v, want only %s", activeNames(st), firstName)
	}
	h.complete(firstName)
	h.waitJobs(cj, firstName, fmt.Sprintf("forbid-%d", second.Unix()/60))
}

// Replace: the running Job is deleted and the new one takes its place.
func TestCronJobReplace(t *testing.T) {
	h := startHarness(t)
	cj := h.create("replace", "*/1 * * * *", api.ReplaceConcurrent, 3)
	first := h.nextMinute("default/replace")
	firstName := fmt.Sprintf("replace-%d", first.Unix()/60)
	h.waitJobs(cj, firstName)
	second := h.nextMinute("default/replace")
	secondName := fmt.Sprintf("replace-%d", second.Unix()/60)
	h.waitJobs(cj, secondName)
	h.waitStatus("replace", func(s api.CronJobStatus) bool { return slices.Equal(activeNames(s), []string{secondName}) })
	h.waitEvent("replace", "SuccessfulDelete", "Deleted job "+firstName)
}

// A suspended CronJob starts nothing.
func TestCronJobSuspend(t *testing.T) {
	h := startHarness(t)
	yes := true
	cj := h.create("paused", "*/1 * * * *", api.AllowConcurrent, 3, func(cj *api.CronJob) { cj.Spec.Suspend = &yes })
	h.clock.SetTime(h.clock.Now().Add(3 * time.Minute))
	// Give the controller a few syncs' worth of time to (not) act.
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if jobs := h.jobs(cj); len(jobs) > 0 {
			t.Fatalf("a suspended cronjob created %v", jobNames(jobs))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := h.c.CronJobs("default").Patch(context.Background(), "paused", client.MergePatchType,
		[]byte(`{"spec":{"suspend":false}}`), client.PatchOptions{}); err != nil {
		t.Fatalf("resume: %v", err)
	}
	// Resumed: the most recent missed start time runs.
	h.waitStatus("paused", func(s api.CronJobStatus) bool { return len(s.Active) == 1 })
}
