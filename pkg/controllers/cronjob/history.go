package cronjob

import (
	"sort"

	"kplane/pkg/api"
)

// finishedCondition returns the Job's Complete or Failed condition type if
// it is True, or "" while the Job runs.
func finishedCondition(job *api.Job) api.JobConditionType {
	for _, c := range job.Status.Conditions {
		if (c.Type == api.JobComplete || c.Type == api.JobFailed) && c.Status == api.ConditionTrue {
			return c.Type
		}
	}
	return ""
}

// jobsToDelete picks the finished Jobs beyond the history limits: of the
// successful ones all but the newest successfulLimit, of the failed ones
// all but the newest failedLimit (upstream's cleanupFinishedJobs). A nil
// limit keeps everything of that kind. Running Jobs are never picked.
func jobsToDelete(jobs []*api.Job, successfulLimit, failedLimit *int32) []*api.Job {
	var succeeded, failed []*api.Job
	for _, j := range jobs {
		switch finishedCondition(j) {
		case api.JobComplete:
			succeeded = append(succeeded, j)
		case api.JobFailed:
			failed = append(failed, j)
		}
	}
	return append(oldestBeyond(succeeded, successfulLimit), oldestBeyond(failed, failedLimit)...)
}

// oldestBeyond sorts jobs oldest first (by status.startTime, a Job that
// never started last, then by name) and returns all but the last limit.
func oldestBeyond(jobs []*api.Job, limit *int32) []*api.Job {
	if limit == nil || len(jobs) <= int(*limit) {
		return nil
	}
	sorted := append([]*api.Job(nil), jobs...)
	sort.SliceStable(sorted, func(i, k int) bool {
		a, b := sorted[i].Status.StartTime, sorted[k].Status.StartTime
		switch {
		case a == nil && b != nil:
			return false
		case a != nil && b == nil:
			return true
		case a == nil && b == nil, a.Equal(b.Time):
			return sorted[i].Name < sorted[k].Name
		}
		return a.Before(b.Time)
	})
	return sorted[:len(sorted)-max(0, int(*limit))]
}
