package job

// The TTL-after-finished clean-up: upstream runs it as its own controller
// (pkg/controller/ttlafterfinished); kplane folds it into the Job
// controller, which already watches every Job and knows when one finished.
// Its reads and deletes go through ttlClient, which under
// --use-service-account-credentials acts as upstream's
// ttl-after-finished-controller ServiceAccount: the job-controller's role
// (upstream's) has no right to delete a Job.

import (
	"context"
	"fmt"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// ttlRemaining is how long a finished Job still has before it is deleted,
// and whether it has a TTL at all.
func ttlRemaining(job *api.Job, now time.Time) (time.Duration, bool) {
	ttl := job.Spec.TTLSecondsAfterFinished
	finished := finishedAt(&job.Status)
	if ttl == nil || finished.IsZero() || job.DeletionTimestamp != nil {
		return 0, false
	}
	return finished.Add(time.Duration(*ttl) * time.Second).Sub(now), true
}

// syncTTL deletes a finished Job whose ttlSecondsAfterFinished has passed,
// or comes back when it will have. As upstream, it re-reads the Job from
// the apiserver first: the TTL may have been changed (or removed) since the
// cache saw it. The delete is Background: the Job goes now and the garbage
// collector removes its pods after it.
func (c *Controller) syncTTL(ctx context.Context, key string, job *api.Job) error {
	left, ok := ttlRemaining(job, c.clock.Now())
	if !ok {
		return nil
	}
	if left > 0 {
		c.recordTTL(job, left)
		c.queue.AddAfter(key, left)
		return nil
	}
	fresh, err := c.ttlClient.Jobs(job.Namespace).Get(ctx, job.Name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get job %s: %w", key, err)
	}
	if fresh.UID != job.UID {
		return nil
	}
	if left, ok = ttlRemaining(fresh, c.clock.Now()); !ok {
		return nil
	}
	if left > 0 {
		c.queue.AddAfter(key, left)
		return nil
	}
	c.recordTTL(fresh, left)
	c.log.Info("deleting finished job whose TTL expired", "key", key, "ttlSecondsAfterFinished", *fresh.Spec.TTLSecondsAfterFinished)
	background, uid := api.DeletePropagationBackground, job.UID
	err = c.ttlClient.Jobs(job.Namespace).Delete(ctx, job.Name, client.DeleteOptions{
		PropagationPolicy: &background,
		// The name may belong to a new Job by now; the precondition makes
		// the delete fail rather than remove a stranger.
		Preconditions: &api.Preconditions{UID: &uid},
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete job %s after its TTL: %w", key, err)
	}
	return nil
}
