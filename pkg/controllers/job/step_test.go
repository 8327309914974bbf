package job

import (
	"fmt"
	"testing"
	"time"

	"kplane/pkg/api"
)

var testNow = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

func i32(v int32) *int32 { return &v }
func i64(v int64) *int64 { return &v }

func newJob(parallelism int32, completions *int32) *api.Job {
	return &api.Job{
		ObjectMeta: api.ObjectMeta{Name: "pi", Namespace: "default", UID: "uid-pi", ResourceVersion: "1"},
		Spec: api.JobSpec{
			Parallelism: &parallelism, Completions: completions, BackoffLimit: i32(6),
			Selector: &api.LabelSelector{MatchLabels: map[string]string{api.JobControllerUIDLabel: "uid-pi"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{api.JobControllerUIDLabel: "uid-pi", api.JobNameLabel: "pi"}},
				Spec: api.PodSpec{RestartPolicy: api.RestartPolicyNever,
					Containers: []api.Container{{Name: "pi", Image: "perl"}}},
			},
		},
	}
}

// pod is a pod of the Job in phase; a finished one finished at finished.
func pod(name string, phase api.PodPhase, finished time.Time) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name,
		CreationTimestamp: api.NewTime(testNow.Add(-time.Hour))},
		Status: api.PodStatus{Phase: phase}}
	if phase == api.PodSucceeded || phase == api.PodFailed {
		p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "pi",
			State: api.ContainerState{Terminated: &api.ContainerStateTerminated{FinishedAt: api.NewTime(finished)}}}}
	}
	return p
}

func pods(n int, phase api.PodPhase, finished time.Time) []*api.Pod {
	var out []*api.Pod
	for i := range n {
		out = append(out, pod(fmt.Sprintf("%s-%d", phase, i), phase, finished))
	}
	return out
}

func TestWantActive(t *testing.T) {
	tests := []struct {
		name                    string
		parallelism             int32
		completions             *int32
		succeeded, active, want int32
	}{
		{"fresh job runs parallelism pods", 2, i32(5), 0, 0, 2},
		{"never more than the completions left", 2, i32(5), 4, 0, 1},
		{"done: none", 2, i32(5), 5, 0, 0},
		{"more succeeded than needed: none", 2, i32(5), 7, 1, 0},
		{"parallelism above completions", 10, i32(3), 0, 0, 3},
		{"work queue before any success", 3, nil, 0, 1, 3},
		{"work queue after a success keeps what runs", 3, nil, 1, 2, 2},
		{"parallelism 0 pauses", 0, i32(5), 0, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wantActive(tt.parallelism, tt.completions, tt.succeeded, tt.active); got != tt.want {
				t.Errorf("wantActive = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestFailureBackOff(t *testing.T) {
	tests := []struct {
		failures int32
		want     time.Duration
	}{
		{0, 0}, {1, 10 * time.Second}, {2, 20 * time.Second}, {3, 40 * time.Second},
		{6, 320 * time.Second}, {7, 10 * time.Minute}, {8, 10 * time.Minute}, {100, 10 * time.Minute},
	}
	for _, tt := range tests {
		if got := failureBackOff(tt.failures, DefaultPodFailureBackOff, MaxPodFailureBackOff); got != tt.want {
			t.Errorf("failureBackOff(%d) = %v, want %v", tt.failures, got, tt.want)
		}
	}
}

func TestBackOffRemaining(t *testing.T) {
	tests := []struct {
		name string
		pods []*api.Pod
		want time.Duration
	}{
		{"no failure", pods(2, api.PodSucceeded, testNow.Add(-time.Second)), 0},
		{"one failure 4 s ago waits 6 s more", []*api.Pod{pod("f", api.PodFailed, testNow.Add(-4*time.Second))}, 6 * time.Second},
		{"two failures: 20 s from the latest", []*api.Pod{
			pod("f1", api.PodFailed, testNow.Add(-30*time.Second)), pod("f2", api.PodFailed, testNow.Add(-5*time.Second))}, 15 * time.Second},
		{"back-off over", []*api.Pod{pod("f", api.PodFailed, testNow.Add(-time.Minute))}, 0},
		{"a success resets the count", []*api.Pod{
			pod("f1", api.PodFailed, testNow.Add(-30*time.Second)), pod("s", api.PodSucceeded, testNow.Add(-20*time.Second)),
			pod("f2", api.PodFailed, testNow.Add(-5*time.Second))}, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := backOffRemaining(tt.pods, testNow, DefaultPodFailureBackOff, MaxPodFailureBackOff); got != tt.want {
				t.Errorf("backOffRemaining = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRestartCount(t *testing.T) {
	p := pod("a", api.PodRunning, time.Time{})
	p.Status.InitContainerStatuses = []api.ContainerStatus{{RestartCount: 1}}
	p.Status.ContainerStatuses = []api.ContainerStatus{{RestartCount: 2}, {RestartCount: 3}}
	done := pod("b", api.PodFailed, testNow)
	done.Status.ContainerStatuses[0].RestartCount = 9 // finished pods do not count
	if got := restartCount([]*api.Pod{p, done}); got != 6 {
		t.Errorf("restartCount = %d, want 6", got)
	}
}

// conditionTypes lists a status's True conditions, in order.
func conditionTypes(s api.JobStatus) string {
	out := ""
	for _, c := range s.Conditions {
		if c.Status == api.ConditionTrue {
			out += string(c.Type) + ":" + c.Reason + " "
		}
	}
	return out
}

// counted is job with status.succeeded and status.failed set, as the sync
// leaves them before it asks nextStep (tracking.go).
func counted(job *api.Job, succeeded, failed int32) *api.Job {
	job.Status.Succeeded, job.Status.Failed = succeeded, failed
	return job
}

func TestNextStep(t *testing.T) {
	start := api.NewTime(testNow.Add(-time.Minute))
	tests := []struct {
		name            string
		job             func() *api.Job
		pods            []*api.Pod
		satisfied       bool
		wantCreate      int
		wantDelete      int
		wantFailDeleted bool
		wantConds       string
		wantEvents      []string
		wantRequeue     time.Duration
	}{
		{name: "new job creates parallelism pods and starts", job: func() *api.Job { return newJob(2, i32(5)) },
			satisfied: true, wantCreate: 2},
		{name: "one slot free after a success", job: func() *api.Job { return counted(newJob(2, i32(5)), 1, 0) },
			pods: append(pods(1, api.PodRunning, time.Time{}), pods(1, api.PodSucceeded, testNow)...), satisfied: true, wantCreate: 1},
		{name: "all completions: SuccessCriteriaMet then Complete", job: func() *api.Job { return counted(newJob(2, i32(5)), 5, 0) },
			pods: pods(5, api.PodSucceeded, testNow), satisfied: true,
			wantConds: "SuccessCriteriaMet:CompletionsReached Complete:CompletionsReached ", wantEvents: []string{"Completed Job completed"}},
		{name: "complete waits for the expectations", job: func() *api.Job { return counted(newJob(2, i32(5)), 5, 0) },
			pods: pods(5, api.PodSucceeded, testNow), satisfied: false,
			wantConds: "SuccessCriteriaMet:CompletionsReached "},
		{name: "complete waits for uncounted pods", job: func() *api.Job {
			j := counted(newJob(2, i32(5)), 5, 0)
			j.Status.UncountedTerminatedPods = &api.UncountedTerminatedPods{Failed: []string{"uid-x"}}
			return j
		}, satisfied: true, wantConds: "SuccessCriteriaMet:CompletionsReached "},
		{name: "completions reached with a pod still running: stop it, it counts as failed",
			job:  func() *api.Job { return counted(newJob(2, i32(5)), 5, 0) },
			pods: pods(1, api.PodRunning, time.Time{}), satisfied: true, wantDelete: 1, wantFailDeleted: true,
			wantConds: "SuccessCriteriaMet:CompletionsReached "},
		{name: "work queue completes when one succeeded and none runs", job: func() *api.Job { return counted(newJob(3, nil), 1, 0) },
			pods: pods(1, api.PodSucceeded, testNow), satisfied: true,
			wantConds: "SuccessCriteriaMet:CompletionsReached Complete:CompletionsReached ", wantEvents: []string{"Completed Job completed"}},
		{name: "work queue with a success lets the rest run", job: func() *api.Job { return counted(newJob(3, nil), 1, 0) },
			pods: append(pods(2, api.PodRunning, time.Time{}), pods(1, api.PodSucceeded, testNow)...), satisfied: true},
		{name: "failure within the limit backs off", job: func() *api.Job { j := counted(newJob(1, i32(1)), 0, 1); j.Spec.BackoffLimit = i32(1); return j },
			pods: pods(1, api.PodFailed, testNow.Add(-2*time.Second)), satisfied: true, wantRequeue: 8 * time.Second},
		{name: "failures past the limit fail the job", job: func() *api.Job { j := counted(newJob(2, i32(5)), 0, 2); j.Spec.BackoffLimit = i32(1); return j },
			pods: append(pods(2, api.PodFailed, testNow), pods(1, api.PodRunning, time.Time{})...), satisfied: true, wantDelete: 1, wantFailDeleted: true,
			wantConds: "FailureTarget:BackoffLimitExceeded "},
		{name: "failed waits for uncounted pods", job: func() *api.Job {
			j := counted(newJob(2, i32(5)), 0, 2)
			j.Spec.BackoffLimit = i32(1)
			j.Status.UncountedTerminatedPods = &api.UncountedTerminatedPods{Failed: []string{"uid-x"}}
			return j
		}, satisfied: true, wantConds: "FailureTarget:BackoffLimitExceeded "},
		{name: "failed once nothing runs", job: func() *api.Job { j := counted(newJob(2, i32(5)), 0, 2); j.Spec.BackoffLimit = i32(1); return j },
			pods: pods(2, api.PodFailed, testNow), satisfied: true,
			wantConds:  "FailureTarget:BackoffLimitExceeded Failed:BackoffLimitExceeded ",
			wantEvents: []string{"BackoffLimitExceeded Job has reached the specified backoff limit"}},
		{name: "OnFailure restarts count toward the limit", job: func() *api.Job {
			j := newJob(1, i32(1))
			j.Spec.BackoffLimit = i32(2)
			j.Spec.Template.Spec.RestartPolicy = api.RestartPolicyOnFailure
			return j
		}, pods: func() []*api.Pod {
			p := pod("r", api.PodRunning, time.Time{})
			p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "pi", RestartCount: 2}}
			return []*api.Pod{p}
		}(), satisfied: true, wantDelete: 1, wantFailDeleted: true, wantConds: "FailureTarget:BackoffLimitExceeded "},
		{name: "past the deadline", job: func() *api.Job {
			j := newJob(2, i32(5))
			j.Spec.ActiveDeadlineSeconds = i64(30)
			j.Status.StartTime = &start
			return j
		}, pods: pods(2, api.PodRunning, time.Time{}), satisfied: true, wantDelete: 2, wantFailDeleted: true, wantConds: "FailureTarget:DeadlineExceeded "},
		{name: "before the deadline: come back at it", job: func() *api.Job {
			j := newJob(2, i32(5))
			j.Spec.ActiveDeadlineSeconds = i64(90)
			j.Status.StartTime = &start
			return j
		}, pods: pods(2, api.PodRunning, time.Time{}), satisfied: true, wantRequeue: 30 * time.Second},
		{name: "suspended deletes active pods", job: func() *api.Job { j := newJob(2, i32(5)); j.Spec.Suspend = ptr(true); return j },
			pods: pods(2, api.PodRunning, time.Time{}), satisfied: true, wantDelete: 2,
			wantConds: "Suspended:JobSuspended ", wantEvents: []string{"Suspended Job suspended"}},
		{name: "resumed", job: func() *api.Job {
			j := newJob(2, i32(5))
			j.Status.Conditions = []api.JobCondition{{Type: api.JobSuspended, Status: api.ConditionTrue, Reason: ReasonSuspended}}
			j.Status.StartTime = &start
			return j
		}, satisfied: true, wantCreate: 2, wantEvents: []string{"Resumed Job resumed"}},
		{name: "parallelism lowered deletes the extra", job: func() *api.Job { return newJob(1, i32(5)) },
			pods: pods(3, api.PodRunning, time.Time{}), satisfied: true, wantDelete: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := tt.job()
			st := nextStep(stepInput{job: job, pods: tt.pods, counts: countPods(tt.pods), now: testNow,
				satisfied: tt.satisfied, backOff: DefaultPodFailureBackOff, maxBackOff: MaxPodFailureBackOff})
			if st.create != tt.wantCreate || len(st.delete) != tt.wantDelete {
				t.Errorf("create %d, delete %d; want %d, %d", st.create, len(st.delete), tt.wantCreate, tt.wantDelete)
			}
			if got := len(st.delete) > 0 && st.failDeleted; got != tt.wantFailDeleted {
				t.Errorf("deleted pods count as failed: %v, want %v", got, tt.wantFailDeleted)
			}
			if got := conditionTypes(st.status); got != tt.wantConds {
				t.Errorf("true conditions = %q, want %q", got, tt.wantConds)
			}
			var events []string
			for _, e := range st.events {
				events = append(events, e.reason+" "+e.message)
			}
			if fmt.Sprint(events) != fmt.Sprint(tt.wantEvents) {
				t.Errorf("events = %q, want %q", events, tt.wantEvents)
			}
			if st.requeueAfter != tt.wantRequeue {
				t.Errorf("requeueAfter = %v, want %v", st.requeueAfter, tt.wantRequeue)
			}
			if st.status.StartTime == nil && (job.Spec.Suspend == nil || !*job.Spec.Suspend) {
				t.Errorf("a running job has no startTime")
			}
			if tt.name == "resumed" && !st.status.StartTime.Equal(testNow) {
				t.Errorf("resume startTime = %v, want now %v", st.status.StartTime, testNow)
			}
			if hasTrueCondition(&st.status, api.JobComplete) && (st.status.CompletionTime == nil || !st.status.CompletionTime.Equal(testNow)) {
				t.Errorf("a complete job has completionTime %v", st.status.CompletionTime)
			}
		})
	}
}

// A sync repeated on its own output changes nothing: the conditions keep
// their times and no event is recorded twice.
func TestNextStepIsIdempotent(t *testing.T) {
	job := counted(newJob(2, i32(5)), 5, 0)
	done := pods(5, api.PodSucceeded, testNow)
	first := nextStep(stepInput{job: job, pods: done, counts: countPods(done), now: testNow, satisfied: true})
	job.Status = first.status
	second := nextStep(stepInput{job: job, pods: done, counts: countPods(done), now: testNow.Add(time.Minute), satisfied: true})
	if len(second.events) != 0 || fmt.Sprint(second.status) != fmt.Sprint(first.status) {
		t.Errorf("second step changed something: events %v\nfirst  %+v\nsecond %+v", second.events, first.status, second.status)
	}
}
