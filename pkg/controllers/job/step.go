package job

// This file decides a sync's next step from the Job and its pods: which
// conditions to set, how many pods to create, which to delete, and when to
// look again. It does no I/O, so every transition is tested by table
// (step_test.go); sync.go carries the step out.

import (
	"time"

	"kplane/pkg/api"
)

// DefaultBackoffLimit is spec.backoffLimit when unset (upstream's 6; the
// apiserver defaults it too, this covers a Job read before defaulting).
const DefaultBackoffLimit = 6

// MaxPodCreateDeletePerSync caps the pods one sync creates (upstream's
// MaxPodCreateDeletePerSync, 500): a Job with parallelism 5000 gets there
// over several syncs, each waiting for the cache to see the last one's pods.
const MaxPodCreateDeletePerSync = 500

// stepInput is what nextStep decides from.
type stepInput struct {
	job    *api.Job
	pods   []*api.Pod // the pods the Job controls, finished ones included
	counts podCounts  // pods, sorted
	now    time.Time
	// satisfied is whether the expectations are met: only then may the
	// step add Complete or Failed, which end the Job for good (a pod
	// created but not yet in the cache would be left running).
	satisfied bool
	// backOff and maxBackOff are the pod-failure back-off's base and cap.
	backOff, maxBackOff time.Duration
}

// event is an Event to record once the status write has succeeded.
type event struct {
	eventType, reason, message string
}

// step is what one sync does.
type step struct {
	// status is the Job's new status; sync fills in the pod counts.
	status api.JobStatus
	// create is how many pods to create; delete lists the pods to delete.
	create int
	delete []*api.Pod
	// failDeleted says the deleted pods count as failed: the Job is ending
	// (FailureTarget, SuccessCriteriaMet) and stops what still runs, so the
	// pods keep their tracking finalizer and the next sync counts them.
	// Otherwise (suspended, parallelism lowered) the Job just wants fewer
	// pods: their finalizer is removed first and they are not counted.
	failDeleted bool
	// requeueAfter, if positive, is when to sync again even if nothing
	// changes: the end of a back-off or the active deadline.
	requeueAfter time.Duration
	// want is how many pods should be active (wantActive), and backOff,
	// if positive, how long the creation of the missing ones waits after
	// a failure: what the decision record reports.
	want    int32
	backOff time.Duration
	// events are recorded after the status is written.
	events []event
}

// nextStep works out a Job's next step. The order of the checks is
// upstream's syncJob: a Job that failed (too many failures, past its
// deadline) stops all its pods and fails; one that met its success
// criteria stops what still runs and completes; a suspended one stops its
// pods; otherwise it runs the pods it should.
//
// Since Kubernetes 1.31 the terminal condition waits for the Job's pods
// to be gone: first FailureTarget (or SuccessCriteriaMet) is set and the
// active pods are deleted; Failed (or Complete) follows when no pod is
// active or terminating any more and every finished pod is counted
// (status.uncountedTerminatedPods is empty).
//
// The counts are the Job's status.succeeded and status.failed, which the
// sync has just brought up to date (tracking.go); the pods are only looked
// at for what is still running.
func nextStep(in stepInput) step {
	job, counts, now := in.job, in.counts, in.now
	st := step{status: api.DeepCopyValue(job.Status)}
	status := &st.status
	suspended := job.Spec.Suspend != nil && *job.Spec.Suspend
	if status.StartTime == nil && !suspended {
		start := stamp(now)
		status.StartTime = &start
	}
	succeeded, failed := status.Succeeded, status.Failed
	active := int32(len(counts.active))
	st.want = wantActive(parallelismOf(job), job.Spec.Completions, succeeded, active)
	quiet := active == 0 && counts.terminating == 0 && in.satisfied && !hasUncounted(status)

	if reason, message, ok := failure(in, status, failed); ok {
		setCondition(status, api.JobFailureTarget, api.ConditionTrue, reason, message, now)
		st.delete, st.failDeleted = counts.active, true
		if quiet && setCondition(status, api.JobFailed, api.ConditionTrue, reason, message, now) {
			st.events = append(st.events, event{api.EventTypeWarning, reason, message})
		}
		return st
	}
	if succeededEnough(job, status, succeeded, active) {
		setCondition(status, api.JobSuccessCriteriaMet, api.ConditionTrue, ReasonCompletionsReached, MessageCompletionsReached, now)
		st.delete, st.failDeleted = counts.active, true
		if quiet && setCondition(status, api.JobComplete, api.ConditionTrue, ReasonCompletionsReached, MessageCompletionsReached, now) {
			done := stamp(now)
			status.CompletionTime = &done
			st.events = append(st.events, event{api.EventTypeNormal, EventCompleted, "Job completed"})
		}
		return st
	}
	if suspended {
		st.delete = counts.active
		if setCondition(status, api.JobSuspended, api.ConditionTrue, ReasonSuspended, MessageSuspended, now) {
			st.events = append(st.events, event{api.EventTypeNormal, EventSuspended, MessageSuspended})
		}
		return st
	}
	if hasTrueCondition(status, api.JobSuspended) {
		// Resumed: the active deadline counts from now, not from the
		// Job's first start (upstream resets startTime here).
		setCondition(status, api.JobSuspended, api.ConditionFalse, ReasonResumed, MessageResumed, now)
		start := stamp(now)
		status.StartTime = &start
		st.events = append(st.events, event{api.EventTypeNormal, EventResumed, MessageResumed})
	}

	switch {
	case active > st.want:
		st.delete = podsToDelete(counts.active, int(active-st.want))
	case active < st.want:
		if wait := backOffRemaining(in.pods, now, in.backOff, in.maxBackOff); wait > 0 {
			st.requeueAfter, st.backOff = wait, wait
		} else {
			st.create = min(int(st.want-active), MaxPodCreateDeletePerSync)
		}
	}
	if d := job.Spec.ActiveDeadlineSeconds; d != nil && status.StartTime != nil {
		left := status.StartTime.Add(time.Duration(*d) * time.Second).Sub(now)
		if st.requeueAfter == 0 || left < st.requeueAfter {
			st.requeueAfter = max(left, time.Millisecond)
		}
	}
	return st
}

// parallelismOf is the Job's spec.parallelism, 1 when unset (the API's
// default).
func parallelismOf(job *api.Job) int32 {
	if job.Spec.Parallelism == nil {
		return 1
	}
	return *job.Spec.Parallelism
}

// backoffLimitOf is spec.backoffLimit, DefaultBackoffLimit when unset.
func backoffLimitOf(spec api.JobSpec) int32 {
	if spec.BackoffLimit == nil {
		return DefaultBackoffLimit
	}
	return *spec.BackoffLimit
}

// failure reports whether the Job has failed, and why: it already has a
// FailureTarget; more pods failed than backoffLimit allows (restartPolicy
// Never); its containers restarted backoffLimit times (OnFailure, where
// the kubelet restarts them in place); or it has been active longer than
// activeDeadlineSeconds. A Job that already met its success criteria does
// not fail any more.
func failure(in stepInput, status *api.JobStatus, failed int32) (reason, message string, ok bool) {
	if c := findCondition(status, api.JobFailureTarget); c != nil && c.Status == api.ConditionTrue {
		return c.Reason, c.Message, true
	}
	if hasTrueCondition(status, api.JobSuccessCriteriaMet) {
		return "", "", false
	}
	spec := in.job.Spec
	limit := backoffLimitOf(spec)
	if failed > limit {
		return ReasonBackoffLimitExceeded, MessageBackoffLimit, true
	}
	if spec.Template.Spec.RestartPolicy == api.RestartPolicyOnFailure {
		restarts := restartCount(in.counts.active)
		if (limit == 0 && restarts > 0) || (limit > 0 && restarts >= limit) {
			return ReasonBackoffLimitExceeded, MessageBackoffLimit, true
		}
	}
	suspended := spec.Suspend != nil && *spec.Suspend
	if d := spec.ActiveDeadlineSeconds; d != nil && !suspended && status.StartTime != nil &&
		!in.now.Before(status.StartTime.Add(time.Duration(*d)*time.Second)) {
		return ReasonDeadlineExceeded, MessageDeadline, true
	}
	return "", "", false
}

// succeededEnough reports whether the Job met its success criteria:
// completions pods succeeded, or, for a work queue (no completions), one
// pod succeeded and none is still running.
func succeededEnough(job *api.Job, status *api.JobStatus, succeeded, active int32) bool {
	if hasTrueCondition(status, api.JobSuccessCriteriaMet) {
		return true
	}
	if job.Spec.Completions == nil {
		return succeeded > 0 && active == 0
	}
	return succeeded >= *job.Spec.Completions
}

// stamp is now as the API stores it: UTC, whole seconds.
func stamp(now time.Time) api.Time { return api.NewTime(now.UTC().Truncate(time.Second)) }
