package cronjob

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

// ScheduledTimestampAnnotation records on each Job the start time it was
// created for, in the CronJob's time zone (upstream's annotation).
const ScheduledTimestampAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp"

// sync reconciles the CronJob under key: it brings status.active up to
// date with its Jobs, creates the Job that is due (if any, and if the
// concurrency policy allows it), deletes finished Jobs beyond the history
// limits, writes the status, and requeues the key for the next start time.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(err)
	}
	cached, err := c.cronJobs.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.decisions.Forget(key)
		return nil // its Jobs go with it, through the garbage collector
	}
	if err != nil {
		return fmt.Errorf("get cronjob %s from the cache: %w", key, err)
	}
	cj := api.DeepCopy(cached)
	all, err := c.jobs.Namespace(namespace).List(nil)
	if err != nil {
		return fmt.Errorf("list jobs in %s: %w", namespace, err)
	}
	var jobs []*api.Job
	for _, j := range all {
		if controllerutil.IsControlledBy(&j.ObjectMeta, cj.UID) {
			jobs = append(jobs, j)
		}
	}

	requeue, syncErr := c.syncCronJob(ctx, cj, jobs)
	cleanErr := c.cleanupFinishedJobs(ctx, cj, jobs)
	if !reflect.DeepEqual(cj.Status, cached.Status) {
		if _, err := c.client.CronJobs(cj.Namespace).UpdateStatus(ctx, cj, client.UpdateOptions{}); err != nil {
			return errors.Join(syncErr, fmt.Errorf("update status of cronjob %s: %w", key, err))
		}
	}
	if requeue > 0 {
		c.queue.AddAfter(key, requeue)
	}
	return errors.Join(syncErr, cleanErr)
}

// syncCronJob does the scheduling on cj (a copy whose status it edits) and
// returns when to look again (0: only when something changes).
func (c *Controller) syncCronJob(ctx context.Context, cj *api.CronJob, jobs []*api.Job) (time.Duration, error) {
	now := c.clock.Now()
	if err := c.reconcileActive(ctx, cj, jobs); err != nil {
		return 0, err
	}
	if cj.DeletionTimestamp != nil {
		return 0, nil
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		// Nothing starts while suspended; unsuspending is an update, which
		// enqueues the CronJob again.
		c.recordRun(cj, nil, missedRuns{}, now, "suspended: no run starts")
		return 0, nil
	}
	sched, err := parseSchedule(&cj.Spec)
	if err != nil {
		// Only a new spec can fix it, and its update enqueues the key.
		c.recorder.Eventf(cj, api.EventTypeWarning, "UnparseableSchedule", "%v", err)
		c.log.Info("unparseable schedule", "key", keyOf(cj), "err", err)
		c.recordRun(cj, nil, missedRuns{}, now, "no run: %v", err)
		return 0, nil
	}
	next, ok := nextScheduleDelay(sched, now)
	if !ok {
		next = 0
	}

	earliest := cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		earliest = cj.Status.LastScheduleTime.Time
	}
	runs := mostRecentScheduleTime(sched, earliest, now, cj.Spec.StartingDeadlineSeconds)
	if runs.missed > tooManyMissed {
		c.recorder.Eventf(cj, api.EventTypeWarning, "TooManyMissedTimes",
			"too many missed start times: %d. Set or decrease .spec.startingDeadlineSeconds or check clock skew", runs.missed)
	}
	if runs.mostRecent == nil {
		if cj.Status.LastScheduleTime == nil {
			// Only before the first run: later, the last run's decision
			// already says when the next one is due.
			c.recordRun(cj, sched, runs, now, "nothing due yet: wait for the first run")
		}
		return next, nil // nothing due yet
	}
	scheduled := *runs.mostRecent
	name := jobName(cj.Name, scheduled)
	for _, ref := range cj.Status.Active {
		if ref.Name == name {
			return next, nil // this start time already has its Job
		}
	}
	if cj.Spec.ConcurrencyPolicy == api.ForbidConcurrent && len(cj.Status.Active) > 0 {
		// Upstream skips the run rather than queueing it: the start time
		// counts as missed, and the next one is tried when it comes.
		c.recordRun(cj, sched, runs, now, "skip the %s run", clockTime(scheduled))
		c.recorder.Event(cj, api.EventTypeNormal, "JobAlreadyActive",
			"Not starting job because prior execution is running and concurrency policy is Forbid")
		return next, nil
	}
	if cj.Spec.ConcurrencyPolicy == api.ReplaceConcurrent && len(cj.Status.Active) > 0 {
		c.recordRun(cj, sched, runs, now, "delete the %d active Jobs, then create Job %s for the %s run", len(cj.Status.Active), name, clockTime(scheduled))
	} else {
		c.recordRun(cj, sched, runs, now, "create Job %s for the %s run", name, clockTime(scheduled))
	}
	if cj.Spec.ConcurrencyPolicy == api.ReplaceConcurrent {
		for _, ref := range append([]api.ObjectReference(nil), cj.Status.Active...) {
			if err := c.deleteJobInBackground(ctx, ref.Namespace, ref.Name); err != nil && !apierrors.IsNotFound(err) {
				c.recorder.Eventf(cj, api.EventTypeWarning, "FailedDelete", "Deleted job: %v", err)
				return 0, fmt.Errorf("replace job %s: %w", ref.Name, err)
			}
			c.recorder.Eventf(cj, api.EventTypeNormal, "SuccessfulDelete", "Deleted job %v", ref.Name)
			removeActive(cj, ref.UID)
		}
	}

	job := jobFromTemplate(cj, name, scheduled)
	created, err := c.client.Jobs(job.Namespace).Create(ctx, job, client.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		// Another leader (or this one before a crash) created it; adopt the
		// outcome if the Job is ours.
		existing, getErr := c.client.Jobs(cj.Namespace).Get(ctx, name, client.GetOptions{})
		if getErr != nil {
			return 0, fmt.Errorf("get existing job %s: %w", name, getErr)
		}
		if !controllerutil.IsControlledBy(&existing.ObjectMeta, cj.UID) {
			return 0, fmt.Errorf("job %s exists and is not controlled by cronjob %s", name, cj.Name)
		}
		created = existing
	case err != nil:
		c.recorder.Eventf(cj, api.EventTypeWarning, "FailedCreate", "Error creating job: %v", err)
		return 0, fmt.Errorf("create job %s: %w", name, err)
	default:
		c.recorder.Eventf(cj, api.EventTypeNormal, "SuccessfulCreate", "Created job %v", created.Name)
		c.log.Info("created job", "key", keyOf(cj), "job", created.Name, "scheduledTime", scheduled)
	}
	if finishedCondition(created) == "" {
		cj.Status.Active = append(cj.Status.Active, jobReference(created))
	}
	last := api.NewTime(scheduled.UTC())
	cj.Status.LastScheduleTime = &last
	return next, nil
}

// reconcileActive brings status.active in line with the Jobs: a finished
// Job leaves it (SawCompletedJob), a Job that went missing leaves it
// (checked against the apiserver, since the cache may just be slow), and
// lastSuccessfulTime follows the newest completion.
func (c *Controller) reconcileActive(ctx context.Context, cj *api.CronJob, jobs []*api.Job) error {
	if err := c.refreshIfBehind(ctx, cj, jobs); err != nil {
		return err
	}
	children := map[string]bool{}
	for _, j := range jobs {
		children[j.UID] = true
		active := isActive(cj, j.UID)
		condition := finishedCondition(j)
		switch {
		case active && condition != "":
			removeActive(cj, j.UID)
			c.recorder.Eventf(cj, api.EventTypeNormal, "SawCompletedJob", "Saw completed job: %s, condition: %v", j.Name, condition)
		case !active && condition == "":
			c.recorder.Eventf(cj, api.EventTypeWarning, "UnexpectedJob", "Saw a job that the controller did not create or forgot: %s", j.Name)
		}
		if condition == api.JobComplete && j.Status.CompletionTime != nil {
			if t := cj.Status.LastSuccessfulTime; t == nil || j.Status.CompletionTime.After(t.Time) {
				done := *j.Status.CompletionTime
				cj.Status.LastSuccessfulTime = &done
			}
		}
	}
	for _, ref := range append([]api.ObjectReference(nil), cj.Status.Active...) {
		if children[ref.UID] {
			continue
		}
		_, err := c.client.Jobs(ref.Namespace).Get(ctx, ref.Name, client.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			c.recorder.Eventf(cj, api.EventTypeNormal, "MissingJob", "Active job went missing: %v", ref.Name)
			removeActive(cj, ref.UID)
		case err != nil:
			return fmt.Errorf("get active job %s: %w", ref.Name, err)
		}
	}
	return nil
}

// cleanupFinishedJobs deletes the finished Jobs beyond the history limits.
func (c *Controller) cleanupFinishedJobs(ctx context.Context, cj *api.CronJob, jobs []*api.Job) error {
	var errs []error
	for _, j := range jobsToDelete(jobs, cj.Spec.SuccessfulJobsHistoryLimit, cj.Spec.FailedJobsHistoryLimit) {
		if err := c.deleteJobInBackground(ctx, j.Namespace, j.Name); err != nil && !apierrors.IsNotFound(err) {
			c.recorder.Eventf(cj, api.EventTypeWarning, "FailedDelete", "Deleted job: %v", err)
			errs = append(errs, fmt.Errorf("delete old job %s: %w", j.Name, err))
			continue
		}
		c.recorder.Eventf(cj, api.EventTypeNormal, "SuccessfulDelete", "Deleted job %v", j.Name)
		removeActive(cj, j.UID)
	}
	return errors.Join(errs...)
}

// deleteJobInBackground deletes a Job with Background propagation: the
// Job goes now, its pods after it through the garbage collector.
func (c *Controller) deleteJobInBackground(ctx context.Context, namespace, name string) error {
	background := api.DeletePropagationBackground
	return c.client.Jobs(namespace).Delete(ctx, name, client.DeleteOptions{PropagationPolicy: &background})
}

// jobFromTemplate builds the Job for start time scheduled: the template's
// labels, annotations and spec, the scheduled-timestamp annotation and the
// CronJob as its controller.
func jobFromTemplate(cj *api.CronJob, name string, scheduled time.Time) *api.Job {
	template := api.DeepCopyValue(cj.Spec.JobTemplate)
	annotations := maps.Clone(template.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	loc := time.Local
	if tz := cj.Spec.TimeZone; tz != nil {
		if l, err := time.LoadLocation(*tz); err == nil {
			loc = l
		}
	}
	annotations[ScheduledTimestampAnnotation] = scheduled.In(loc).Format(time.RFC3339)
	return &api.Job{
		TypeMeta: api.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: api.ObjectMeta{
			Name:            name,
			Namespace:       cj.Namespace,
			Labels:          template.Labels,
			Annotations:     annotations,
			OwnerReferences: []api.OwnerReference{controllerutil.NewControllerRef(cj, "batch/v1", "CronJob")},
		},
		Spec: template.Spec,
	}
}

// jobReference is a status.active entry for job.
func jobReference(job *api.Job) api.ObjectReference {
	return api.ObjectReference{Kind: "Job", APIVersion: "batch/v1", Namespace: job.Namespace, Name: job.Name,
		UID: job.UID, ResourceVersion: job.ResourceVersion}
}

func isActive(cj *api.CronJob, uid string) bool {
	for _, ref := range cj.Status.Active {
		if ref.UID == uid {
			return true
		}
	}
	return false
}

func removeActive(cj *api.CronJob, uid string) {
	kept := cj.Status.Active[:0]
	for _, ref := range cj.Status.Active {
		if ref.UID != uid {
			kept = append(kept, ref)
		}
	}
	cj.Status.Active = kept
	if len(kept) == 0 {
		cj.Status.Active = nil
	}
}

// refreshIfBehind re-reads cj from the apiserver when one of its running
// Jobs is missing from status.active. That is usually not an unexpected Job
// but this controller's own: the Job was created and status.active written
// right after, and the Job's informer event arrived before the CronJob's.
// Upstream re-reads the same way before it warns about an UnexpectedJob.
func (c *Controller) refreshIfBehind(ctx context.Context, cj *api.CronJob, jobs []*api.Job) error {
	behind := false
	for _, j := range jobs {
		if !isActive(cj, j.UID) && finishedCondition(j) == "" {
			behind = true
			break
		}
	}
	if !behind {
		return nil
	}
	fresh, err := c.client.CronJobs(cj.Namespace).Get(ctx, cj.Name, client.GetOptions{})
	if err != nil {
		return fmt.Errorf("re-read cronjob %s/%s: %w", cj.Namespace, cj.Name, err)
	}
	if fresh.UID == cj.UID {
		*cj = *fresh // go on from the fresh copy, status and resourceVersion included
	}
	return nil
}
