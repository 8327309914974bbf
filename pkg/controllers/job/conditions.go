package job

import (
	"time"

	"kplane/pkg/api"
)

// The reasons and messages of the Job's conditions and events, as
// upstream's (pkg/apis/batch and the job controller).
const (
	ReasonBackoffLimitExceeded = "BackoffLimitExceeded"
	MessageBackoffLimit        = "Job has reached the specified backoff limit"
	ReasonDeadlineExceeded     = "DeadlineExceeded"
	MessageDeadline            = "Job was active longer than specified deadline"
	ReasonCompletionsReached   = "CompletionsReached"
	MessageCompletionsReached  = "Reached expected number of succeeded pods"
	ReasonSuspended            = "JobSuspended"
	MessageSuspended           = "Job suspended"
	ReasonResumed              = "JobResumed"
	MessageResumed             = "Job resumed"

	// Event reasons that are not condition reasons.
	EventCompleted = "Completed"
	EventSuspended = "Suspended"
	EventResumed   = "Resumed"
)

// findCondition returns the Job's condition of type t, or nil.
func findCondition(status *api.JobStatus, t api.JobConditionType) *api.JobCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			return &status.Conditions[i]
		}
	}
	return nil
}

// hasTrueCondition reports whether the Job has condition t with status True.
func hasTrueCondition(status *api.JobStatus, t api.JobConditionType) bool {
	c := findCondition(status, t)
	return c != nil && c.Status == api.ConditionTrue
}

// isFinished reports whether the Job is done for good: Complete or Failed.
// A finished Job is never touched again except by the TTL clean-up.
func isFinished(status *api.JobStatus) bool {
	return hasTrueCondition(status, api.JobComplete) || hasTrueCondition(status, api.JobFailed)
}

// finishedAt is when the Job finished: its completionTime, else the
// Complete or Failed condition's lastTransitionTime (a failed Job has no
// completionTime); zero if it has not finished. The TTL counts from here,
// as upstream's ttl-after-finished controller does.
func finishedAt(status *api.JobStatus) time.Time {
	if !isFinished(status) {
		return time.Time{}
	}
	if status.CompletionTime != nil {
		return status.CompletionTime.Time
	}
	for _, t := range []api.JobConditionType{api.JobComplete, api.JobFailed} {
		if c := findCondition(status, t); c != nil && c.Status == api.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// setCondition sets condition t on status to (s, reason, message) and
// reports whether anything changed. The lastTransitionTime moves only when
// the status flips (upstream's updateConditionsIfChanged); a new condition
// is appended, so the list reads in the order things happened.
func setCondition(status *api.JobStatus, t api.JobConditionType, s api.ConditionStatus, reason, message string, now time.Time) bool {
	stamp := api.NewTime(now.UTC().Truncate(time.Second))
	if c := findCondition(status, t); c != nil {
		if c.Status == s && c.Reason == reason && c.Message == message {
			return false
		}
		if c.Status != s {
			c.LastTransitionTime = stamp
		}
		c.Status, c.Reason, c.Message, c.LastProbeTime = s, reason, message, stamp
		return true
	}
	status.Conditions = append(status.Conditions, api.JobCondition{
		Type: t, Status: s, Reason: reason, Message: message,
		LastProbeTime: stamp, LastTransitionTime: stamp,
	})
	return true
}
