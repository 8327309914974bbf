package job

// This file turns a sync's step into a decision record for the debug
// journal (what `ctl why job/x` shows). It records only a step that acts
// or waits: pods to create or delete, a back-off or expectations to wait
// for, a condition that changes. A resync that finds the Job as it
// should be records nothing.

import (
	"fmt"
	"strconv"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose syncJob the step mirrors.
const decisionSource = "pkg/controller/job/job_controller.go"

// recordStep records the step st that nextStep chose from in, e.g. "Job
// wants 3 completions, parallelism 2: 1 succeeded, 0 failed, 1 active →
// create 1".
func (c *Controller) recordStep(in stepInput, st step) {
	if !c.decisions.Enabled() {
		return
	}
	job := in.job
	parallelism := int32(1)
	if job.Spec.Parallelism != nil {
		parallelism = *job.Spec.Parallelism
	}
	limit := int32(DefaultBackoffLimit)
	if job.Spec.BackoffLimit != nil {
		limit = *job.Spec.BackoffLimit
	}
	active := int32(len(in.counts.active))
	succeeded, failed := st.status.Succeeded, st.status.Failed
	want := wantActive(parallelism, job.Spec.Completions, succeeded, active)
	create, deleteCount := st.create, len(st.delete)
	if !in.satisfied {
		create, deleteCount = 0, 0 // sync holds them back until the cache catches up
	}

	var action string
	switch {
	case !in.satisfied && (st.create > 0 || len(st.delete) > 0):
		action = "wait: earlier creates/deletes not yet seen in the cache"
	case st.failDeleted && hasTrueCondition(&st.status, api.JobFailureTarget):
		cond := findCondition(&st.status, api.JobFailureTarget)
		action = fmt.Sprintf("failed (%s) → stop %d active pods", cond.Reason, len(st.delete))
		if hasTrueCondition(&st.status, api.JobFailed) {
			action = fmt.Sprintf("failed (%s), no pod left running → condition Failed", cond.Reason)
		}
	case st.failDeleted:
		action = fmt.Sprintf("success criteria met → stop %d active pods", len(st.delete))
		if hasTrueCondition(&st.status, api.JobComplete) {
			action = "success criteria met, no pod left running → condition Complete"
		}
	case job.Spec.Suspend != nil && *job.Spec.Suspend && (len(st.delete) > 0 || len(st.events) > 0):
		action = fmt.Sprintf("suspended → delete %d active pods", len(st.delete))
	case st.create > 0:
		action = fmt.Sprintf("create %d", st.create)
	case len(st.delete) > 0:
		action = fmt.Sprintf("delete %d (more active than wanted)", len(st.delete))
	case want > active && st.requeueAfter > 0:
		wait := backOffRemaining(in.pods, in.now, in.backOff, in.maxBackOff)
		action = fmt.Sprintf("back-off after a failure: create in %s", wait.Round(time.Second))
	case len(st.events) > 0:
		action = st.events[0].message
	default:
		return // nothing to do: a no-op resync is not a decision
	}

	completions := "no completions (work queue)"
	if job.Spec.Completions != nil {
		completions = fmt.Sprintf("%d completions", *job.Spec.Completions)
	}
	values := map[string]string{
		"parallelism":  strconv.Itoa(int(parallelism)),
		"succeeded":    strconv.Itoa(int(succeeded)),
		"failed":       strconv.Itoa(int(failed)),
		"active":       strconv.Itoa(int(active)),
		"wantActive":   strconv.Itoa(int(want)),
		"create":       strconv.Itoa(create),
		"delete":       strconv.Itoa(deleteCount),
		"backoffLimit": strconv.Itoa(int(limit)),
	}
	if job.Spec.Completions != nil {
		values["completions"] = strconv.Itoa(int(*job.Spec.Completions))
	}
	c.decisions.Record(&job.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("Job wants %s, parallelism %d: %d succeeded, %d failed (backoffLimit %d), %d active → %s",
			completions, parallelism, succeeded, failed, limit, active, action),
		Values: values,
		Source: decisionSource,
	})
}

// recordTTL records what a finished Job's ttlSecondsAfterFinished decides:
// delete it now, or wait until finished + TTL. Source: the
// ttl-after-finished controller, which kplane folds into this one.
func (c *Controller) recordTTL(key string, job *api.Job, left time.Duration) {
	if !c.decisions.Enabled() {
		return
	}
	ttl := *job.Spec.TTLSecondsAfterFinished
	finished := finishedAt(&job.Status)
	action := "delete it (background)"
	if left > 0 {
		action = fmt.Sprintf("wait %s, delete at %s", left.Round(time.Second), finished.Add(time.Duration(ttl)*time.Second).UTC().Format(time.TimeOnly))
	}
	c.decisions.Record(&job.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("Job finished at %s, ttlSecondsAfterFinished %d → %s",
			finished.UTC().Format(time.TimeOnly), ttl, action),
		Values: map[string]string{
			"ttlSecondsAfterFinished": strconv.Itoa(int(ttl)),
			"secondsLeft":             strconv.Itoa(int(left.Round(time.Second) / time.Second)),
		},
		Source: "pkg/controller/ttlafterfinished/ttlafterfinished_controller.go",
	})
}
