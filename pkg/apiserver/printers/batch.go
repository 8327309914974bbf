package printers

import (
	"fmt"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/humanize"
)

// This file prints Jobs and CronJobs.

var jobColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Status", "Running, Complete, Failed, Suspended, FailureTarget or Terminating."),
	text("Completions", "Succeeded pods out of the completions the job needs."),
	text("Duration", "How long the job ran, or has been running."),
	ageColumn,
	containersColumn,
	imagesColumn,
	selectorColumn,
}

// jobCells is upstream's printJob.
func jobCells(job *api.Job, now time.Time) []any {
	names, images := containerCells(job.Spec.Template.Spec.Containers)
	return []any{
		job.Name,
		jobStatus(job),
		jobCompletions(job),
		jobDuration(job, now),
		age(job.CreationTimestamp, now),
		names, images,
		formatLabelSelector(job.Spec.Selector),
	}
}

// jobStatus names the job's state from its conditions. A finished job is
// Complete or Failed even while it is being deleted; otherwise deletion wins
// over Suspended and FailureTarget, and a job with none of these is Running.
func jobStatus(job *api.Job) string {
	switch {
	case hasJobCondition(job, api.JobComplete):
		return "Complete"
	case hasJobCondition(job, api.JobFailed):
		return "Failed"
	case job.DeletionTimestamp != nil:
		return "Terminating"
	case hasJobCondition(job, api.JobSuspended):
		return "Suspended"
	case hasJobCondition(job, api.JobFailureTarget):
		return "FailureTarget"
	}
	return "Running"
}

// hasJobCondition reports whether the job's first condition of that type is True.
func hasJobCondition(job *api.Job, conditionType api.JobConditionType) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == conditionType {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}

// jobCompletions is "succeeded/completions". A job without completions runs
// until one pod succeeds, so it shows "/1", and "/1 of N" when N pods run
// in parallel (a work queue).
func jobCompletions(job *api.Job) string {
	if job.Spec.Completions != nil {
		return fmt.Sprintf("%d/%d", job.Status.Succeeded, *job.Spec.Completions)
	}
	if p := job.Spec.Parallelism; p != nil && *p > 1 {
		return fmt.Sprintf("%d/1 of %d", job.Status.Succeeded, *p)
	}
	return fmt.Sprintf("%d/1", job.Status.Succeeded)
}

// jobDuration is empty before the job starts, the time since it started while
// it runs, and the time from start to completion once it completed.
func jobDuration(job *api.Job, now time.Time) string {
	start, end := job.Status.StartTime, job.Status.CompletionTime
	switch {
	case start == nil:
		return ""
	case end == nil:
		return humanize.Duration(now.Sub(start.Time))
	}
	return humanize.Duration(end.Sub(start.Time))
}

var cronJobColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Schedule", "The cron schedule, e.g. */5 * * * *."),
	text("Timezone", "The time zone the schedule is read in, or <none> for the controller's."),
	{Name: "Suspend", Type: "boolean", Description: "Whether new runs are suspended."},
	integer("Active", "How many of the cron job's jobs are running."),
	text("Last Schedule", "When a job was last scheduled."),
	ageColumn,
	containersColumn,
	imagesColumn,
	selectorColumn,
}

func cronJobCells(cj *api.CronJob, now time.Time) []any {
	lastSchedule := none
	if t := cj.Status.LastScheduleTime; t != nil {
		lastSchedule = age(*t, now)
	}
	timeZone := none
	if cj.Spec.TimeZone != nil {
		timeZone = *cj.Spec.TimeZone
	}
	template := cj.Spec.JobTemplate.Spec
	names, images := containerCells(template.Template.Spec.Containers)
	return []any{
		cj.Name,
		cj.Spec.Schedule,
		timeZone,
		boolPointer(cj.Spec.Suspend),
		int64(len(cj.Status.Active)),
		lastSchedule,
		age(cj.CreationTimestamp, now),
		names, images,
		formatLabelSelector(template.Selector),
	}
}
