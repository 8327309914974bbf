package cronjob

// This file turns syncCronJob's scheduling decision into a record for the
// debug journal (what `ctl why cronjob/x` shows): a run created, skipped
// or replaced, nothing due before the first start time, or no run at all
// (suspended, a schedule that does not parse). A sync that finds nothing
// new due (the due start time already has its Job, or the next one has
// not come) records nothing: the last run's record says when the next is.

import (
	"fmt"
	"strconv"
	"time"

	"github.com/robfig/cron/v3"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose syncCronJob this mirrors.
const decisionSource = "pkg/controller/cronjob/cronjob_controllerv2.go"

// recordRun records a decision about the start times of cj's schedule,
// e.g. "CronJob */5 * * * *: missed 1, next run 12:35:00,
// concurrencyPolicy Forbid, 1 active → skip the 12:30:00 run". sched is
// nil when the schedule does not parse. The action is format with args,
// formatted only when recorded.
func (c *Controller) recordRun(cj *api.CronJob, sched cron.Schedule, runs missedRuns, now time.Time, format string, args ...any) {
	if !c.decisions.Enabled() {
		return
	}
	action := fmt.Sprintf(format, args...)
	policy := cj.Spec.ConcurrencyPolicy
	if policy == "" {
		policy = api.AllowConcurrent
	}
	values := map[string]string{
		"missed":            strconv.Itoa(runs.missed),
		"active":            strconv.Itoa(len(cj.Status.Active)),
		"concurrencyPolicy": string(policy),
	}
	// Suspended or unparseable: no start time is looked at.
	message := fmt.Sprintf("CronJob %s: concurrencyPolicy %s, %d active → %s",
		cj.Spec.Schedule, policy, len(cj.Status.Active), action)
	if sched != nil {
		nextRun := "never"
		if next := sched.Next(now); !next.IsZero() {
			nextRun = clockTime(next)
			values["nextRun"] = next.UTC().Format(time.RFC3339)
		}
		message = fmt.Sprintf("CronJob %s: missed %d, next run %s, concurrencyPolicy %s, %d active → %s",
			cj.Spec.Schedule, runs.missed, nextRun, policy, len(cj.Status.Active), action)
	}
	if runs.mostRecent != nil {
		values["scheduledTime"] = runs.mostRecent.UTC().Format(time.RFC3339)
	}
	c.decisions.Record(&cj.ObjectMeta, debug.Decision{
		Message: message,
		Values:  values,
		Source:  decisionSource,
	})
}

// clockTime is t as the decisions print a start time: UTC, to the second.
func clockTime(t time.Time) string { return t.UTC().Format(time.TimeOnly) }
