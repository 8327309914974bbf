package job_test

// These tests run the Job controller in-process against a real apiserver
// on a temp etcd, with no scheduler and no kubelet: the tests play the
// kubelet's part by writing pod phases themselves.

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/controllers/job"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 20 * time.Second

func ptr[T any](v T) *T { return &v }

// piJob is the seeds' Job (examples/job.yaml) with the given counts.
func piJob(name string, parallelism, completions int32) *api.Job {
	return &api.Job{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.JobSpec{
			Parallelism: &parallelism, Completions: &completions,
			Template: api.PodTemplateSpec{Spec: api.PodSpec{RestartPolicy: api.RestartPolicyNever,
				Containers: []api.Container{{Name: "pi", Image: "perl",
					Command: []string{"perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"}}}}},
		},
	}
}

// startController runs a Job controller on c until the test ends; the
// pod-failure back-off is 200 ms so retries are quick.
func startController(t *testing.T, c *client.Client) {
	t.Helper()
	controllertest.RunController(t, c, "job-controller", 2, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*job.Controller, error) {
		return job.New(c, f, rec, job.Options{Logger: logger, PodFailureBackOff: 200 * time.Millisecond})
	})
}

// jobPods lists the pods the Job controls, split into active and finished.
func jobPods(t *testing.T, c *client.Client, j *api.Job) (active, finished []*api.Pod) {
	t.Helper()
	list, err := c.Pods(j.Namespace).List(context.Background(), client.ListOptions{})
	if err != nil {
		t.Fatalf("list pods: %v", err)
	}
	for _, p := range list.Items {
		if !controllerutil.IsControlledBy(&p.ObjectMeta, j.UID) {
			continue
		}
		if controllerutil.IsPodActive(p) {
			active = append(active, p)
		} else if p.DeletionTimestamp == nil {
			finished = append(finished, p)
		}
	}
	sort.Slice(active, func(i, k int) bool { return active[i].Name < active[k].Name })
	return active, finished
}

// finish plays the kubelet: the pod's container exited, the pod is in phase.
func finish(t *testing.T, c *client.Client, name string, phase api.PodPhase) {
	t.Helper()
	ctx := context.Background()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		p, err := c.Pods("default").Get(ctx, name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		code := int32(0)
		if phase == api.PodFailed {
			code = 255
		}
		p.Status.Phase = phase
		p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "pi", Image: "perl",
			State: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: code, FinishedAt: api.Now()}}}}
		_, err = c.Pods("default").UpdateStatus(ctx, p, client.UpdateOptions{})
		if apierrors.IsConflict(err) {
			return false, err.Error()
		}
		if err != nil {
			t.Fatalf("update status of pod %s: %v", name, err)
		}
		return true, ""
	})
}

// waitJob waits until the Job satisfies ok and returns it.
func waitJob(t *testing.T, c *client.Client, name string, ok func(*api.Job) bool) *api.Job {
	t.Helper()
	var j *api.Job
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		var err error
		j, err = c.Jobs("default").Get(context.Background(), name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return ok(j), fmt.Sprintf("status %+v", j.Status)
	})
	return j
}

func condition(j *api.Job, t api.JobConditionType) *api.JobCondition {
	for i := range j.Status.Conditions {
		if j.Status.Conditions[i].Type == t {
			return &j.Status.Conditions[i]
		}
	}
	return nil
}

func isTrue(j *api.Job, t api.JobConditionType) bool {
	c := condition(j, t)
	return c != nil && c.Status == api.ConditionTrue
}

// waitEvent waits for an event about the Job from the job-controller with
// reason and a message starting with prefix.
func waitEvent(t *testing.T, c *client.Client, jobName, reason, prefix string) {
	t.Helper()
	controllertest.WaitForEvent(t, c, waitTimeout, controllertest.EventMatch{Namespace: "default", Component: "job-controller",
		Kind: "Job", Name: jobName, Reason: reason, MessagePrefix: prefix})
}

// The seeds' pi Job: parallelism 2, completions 5. Never more than two
// pods run; after five successes the Job is Complete with 5 succeeded.
func TestJobRunsToCompletion(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startController(t, c)
	ctx := context.Background()

	created, err := c.Jobs("default").Create(ctx, piJob("pi", 2, 5), client.CreateOptions{})
	if err != nil {
		t.Fatalf("create job: %v", err)
	}
	succeeded := 0
	for succeeded < 5 {
		var active []*api.Pod
		framework.Eventually(t, waitTimeout, func() (bool, string) {
			active, _ = jobPods(t, c, created)
			if len(active) > 2 {
				t.Fatalf("%d pods active, parallelism is 2", len(active))
			}
			want := min(2, 5-succeeded)
			return len(active) == want, fmt.Sprintf("%d active pods, want %d", len(active), want)
		})
		p := active[0]
		if !strings.HasPrefix(p.Name, "pi-") || p.Labels[api.JobControllerUIDLabel] != created.UID ||
			p.Labels[api.JobNameLabel] != "pi" || p.Labels[api.LegacyJobNameLabel] != "pi" {
			t.Errorf("pod %s labels %v", p.Name, p.Labels)
		}
		finish(t, c, p.Name, api.PodSucceeded)
		succeeded++
		// The Job counts it before the next round.
		waitJob(t, c, "pi", func(j *api.Job) bool { return int(j.Status.Succeeded) == succeeded })
	}
	j := waitJob(t, c, "pi", func(j *api.Job) bool { return isTrue(j, api.JobComplete) })
	if j.Status.Succeeded != 5 || j.Status.Active != 0 || j.Status.Failed != 0 {
		t.Errorf("status counts %+v", j.Status)
	}
	if j.Status.CompletionTime == nil || j.Status.StartTime == nil || j.Status.CompletionTime.Before(j.Status.StartTime.Time) {
		t.Errorf("startTime %v, completionTime %v", j.Status.StartTime, j.Status.CompletionTime)
	}
	if !isTrue(j, api.JobSuccessCriteriaMet) || condition(j, api.JobComplete).Reason != job.ReasonCompletionsReached {
		t.Errorf("conditions %+v", j.Status.Conditions)
	}
	_, finished := jobPods(t, c, created)
	if len(finished) != 5 {
		t.Errorf("%d finished pods, want 5", len(finished))
	}
	waitEvent(t, c, "pi", "SuccessfulCreate", "Created pod: pi-")
	waitEvent(t, c, "pi", "Completed", "Job completed")
}

// With backoffLimit 1 the second failed pod fails the Job.
func TestJobBackoffLimitExceeded(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startController(t, c)
	spec := piJob("fails", 1, 1)
	spec.Spec.BackoffLimit = ptr(int32(1))
	created, err := c.Jobs("default").Create(context.Background(), spec, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create job: %v", err)
	}
	seen := map[string]bool{}
	for range 2 {
		var active []*api.Pod
		framework.Eventually(t, waitTimeout, func() (bool, string) {
			active, _ = jobPods(t, c, created)
			return len(active) == 1 && !seen[active[0].Name], fmt.Sprintf("active pods %d", len(active))
		})
		seen[active[0].Name] = true
		finish(t, c, active[0].Name, api.PodFailed)
	}
	j := waitJob(t, c, "fails", func(j *api.Job) bool { return isTrue(j, api.JobFailed) })
	if cond := condition(j, api.JobFailed); cond.Reason != job.ReasonBackoffLimitExceeded || cond.Message != job.MessageBackoffLimit {
		t.Errorf("Failed condition %+v", cond)
	}
	if !isTrue(j, api.JobFailureTarget) || j.Status.Failed != 2 || j.Status.Active != 0 || j.Status.CompletionTime != nil {
		t.Errorf("status %+v", j.Status)
	}
	if active, _ := jobPods(t, c, created); len(active) != 0 {
		t.Errorf("%d pods still active after the job failed", len(active))
	}
	waitEvent(t, c, "fails", job.ReasonBackoffLimitExceeded, job.MessageBackoffLimit)
}

// A Job past activeDeadlineSeconds fails with DeadlineExceeded and its
// running pods are deleted.
func TestJobActiveDeadline(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startController(t, c)
	spec := piJob("slow", 2, 5)
	spec.Spec.ActiveDeadlineSeconds = ptr(int64(1))
	created, err := c.Jobs("default").Create(context.Background(), spec, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create job: %v", err)
	}
	j := waitJob(t, c, "slow", func(j *api.Job) bool { return isTrue(j, api.JobFailed) })
	if cond := condition(j, api.JobFailed); cond.Reason != job.ReasonDeadlineExceeded || cond.Message != job.MessageDeadline {
		t.Errorf("Failed condition %+v", cond)
	}
	if active, _ := jobPods(t, c, created); len(active) != 0 {
		t.Errorf("%d pods still active", len(active))
	}
	waitEvent(t, c, "slow", job.ReasonDeadlineExceeded, job.MessageDeadline)
	waitEvent(t, c, "slow", "SuccessfulDelete", "Deleted pod: slow-")
}

// A suspended Job runs no pods; resumed, it starts them and its Suspended
// condition turns False.
func TestJobSuspendResume(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startController(t, c)
	ctx := context.Background()
	created, err := c.Jobs("default").Create(ctx, piJob("pi", 2, 5), client.CreateOptions{})
	if err != nil {
		t.Fatalf("create job: %v", err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		active, _ := jobPods(t, c, created)
		return len(active) == 2, fmt.Sprintf("%d active", len(active))
	})
	firstStart := waitJob(t, c, "pi", func(j *api.Job) bool { return j.Status.StartTime != nil }).Status.StartTime
	if _, err := c.Jobs("default").Patch(ctx, "pi", client.MergePatchType, []byte(`{"spec":{"suspend":true}}`), client.PatchOptions{}); err != nil {
		t.Fatalf("suspend: %v", err)
	}
	waitJob(t, c, "pi", func(j *api.Job) bool { return isTrue(j, api.JobSuspended) && j.Status.Active == 0 })
	if active, _ := jobPods(t, c, created); len(active) != 0 {
		t.Errorf("%d pods active while suspended", len(active))
	}
	time.Sleep(1100 * time.Millisecond) // a new startTime differs by at least a second
	if _, err := c.Jobs("default").Patch(ctx, "pi", client.MergePatchType, []byte(`{"spec":{"suspend":false}}`), client.PatchOptions{}); err != nil {
		t.Fatalf("resume: %v", err)
	}
	j := waitJob(t, c, "pi", func(j *api.Job) bool {
		cond := condition(j, api.JobSuspended)
		return cond != nil && cond.Status == api.ConditionFalse && cond.Reason == job.ReasonResumed && j.Status.Active == 2
	})
	if firstStart == nil || j.Status.StartTime == nil || !j.Status.StartTime.After(firstStart.Time) {
		t.Errorf("startTime after resume %v, before %v: want it set anew", j.Status.StartTime, firstStart)
	}
	waitEvent(t, c, "pi", "Suspended", "Job suspended")
	waitEvent(t, c, "pi", "Resumed", "Job resumed")
}

// ttlSecondsAfterFinished: 0 deletes the Job as soon as it completes.
func TestJobTTLAfterFinished(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	startController(t, c)
	spec := piJob("short", 1, 1)
	spec.Spec.TTLSecondsAfterFinished = ptr(int32(0))
	created, err := c.Jobs("default").Create(context.Background(), spec, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create job: %v", err)
	}
	var active []*api.Pod
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		active, _ = jobPods(t, c, created)
		return len(active) == 1, fmt.Sprintf("%d active", len(active))
	})
	finish(t, c, active[0].Name, api.PodSucceeded)
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		j, err := c.Jobs("default").Get(context.Background(), "short", client.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, ""
		}
		if err != nil {
			return false, err.Error()
		}
		return false, fmt.Sprintf("job still there: %+v", j.Status.Conditions)
	})
}
