package cronjob

// This file reads a CronJob's schedule and works out which start times are
// due. It is pure (the time is a parameter), so missed runs, deadlines and
// time zones are tested by table (schedule_test.go).

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"kplane/pkg/api"
)

// tooManyMissed is upstream's threshold: a CronJob that missed more start
// times than this (the controller was down, the clock jumped) gets a
// warning suggesting startingDeadlineSeconds. Only the most recent missed
// time is run either way.
const tooManyMissed = 100

// parseSchedule parses spec.schedule, a standard 5-field cron line or a
// descriptor (@hourly, @daily, @every 5m…), in spec.timeZone if set, else
// in the controller's local time zone, with robfig/cron as upstream does.
// A schedule may carry its own "CRON_TZ=Europe/Paris " prefix.
func parseSchedule(spec *api.CronJobSpec) (cron.Schedule, error) {
	schedule := spec.Schedule
	if tz := spec.TimeZone; tz != nil && *tz != "" {
		if strings.Contains(schedule, "TZ=") {
			return nil, fmt.Errorf("schedule %q names a time zone and spec.timeZone is %q: use one", schedule, *tz)
		}
		if _, err := time.LoadLocation(*tz); err != nil {
			return nil, fmt.Errorf("unknown time zone %q: %w", *tz, err)
		}
		schedule = "CRON_TZ=" + *tz + " " + schedule
	}
	sched, err := cron.ParseStandard(schedule)
	if err != nil {
		return nil, fmt.Errorf("unparseable schedule %q: %w", spec.Schedule, err)
	}
	return sched, nil
}

// missedRuns is the outcome of looking at the start times due since the
// last one that ran.
type missedRuns struct {
	// mostRecent is the latest start time not after now that is due, or
	// nil if none is.
	mostRecent *time.Time
	// missed counts the due start times (the one to run included). Past
	// tooManyMissed it is a lower bound: counting stops there.
	missed int
}

// mostRecentScheduleTime finds the start times in (earliest, now]. earliest
// is the CronJob's lastScheduleTime, or its creation time before its first
// run; with startingDeadlineSeconds, times older than now − deadline are
// not due any more (they are skipped, not run late), so earliest moves up
// to that bound. This is upstream's mostRecentScheduleTime.
func mostRecentScheduleTime(sched cron.Schedule, earliest, now time.Time, startingDeadlineSeconds *int64) missedRuns {
	if startingDeadlineSeconds != nil {
		if bound := now.Add(-time.Duration(*startingDeadlineSeconds) * time.Second); bound.After(earliest) {
			earliest = bound
		}
	}
	var runs missedRuns
	for t := sched.Next(earliest); !t.IsZero() && !t.After(now); t = sched.Next(t) {
		runs.missed++
		if runs.missed > tooManyMissed {
			// Jump to the last start time before now instead of walking
			// a year of minutes: the count is enough to warn.
			last := lastBefore(sched, t, now)
			runs.mostRecent = &last
			return runs
		}
		tt := t
		runs.mostRecent = &tt
	}
	return runs
}

// lastBefore returns the last start time in [from, now], from being one.
// It steps back from now by growing windows until a start time appears.
func lastBefore(sched cron.Schedule, from, now time.Time) time.Time {
	for window := time.Minute; ; window *= 2 {
		start := now.Add(-window)
		if !start.After(from) {
			start = from
		}
		last := time.Time{}
		for t := sched.Next(start.Add(-time.Second)); !t.IsZero() && !t.After(now); t = sched.Next(t) {
			last = t
		}
		if !last.IsZero() {
			return last
		}
		if start.Equal(from) {
			return from
		}
	}
}

// nextScheduleDelay is how long until the first start time after now,
// plus a little (upstream's nextScheduleDelta, 100 ms) so the sync lands
// after it, not a hair before. ok is false for a schedule that never fires.
func nextScheduleDelay(sched cron.Schedule, now time.Time) (time.Duration, bool) {
	next := sched.Next(now)
	if next.IsZero() {
		return 0, false
	}
	return next.Sub(now) + 100*time.Millisecond, true
}

// jobName is the name of the Job for the start time t:
// "<cronjob>-<minutes since the epoch>", upstream's getJobName. The same
// start time always gives the same name, so a second controller (or a
// retry) that tries to create it again gets AlreadyExists.
func jobName(cronJobName string, t time.Time) string {
	return fmt.Sprintf("%s-%d", cronJobName, t.Unix()/60)
}
