package job

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/controller"
	"kplane/pkg/informer"
)

// sync reconciles the Job under key ("namespace/name"): it claims the
// Job's pods, asks nextStep what to do, creates or deletes pods (only if
// its expectations are met, so a slow cache never doubles a create), writes
// the status and records the events. A finished Job only waits for its
// TTL. Running sync again with nothing changed writes nothing.
//
// This is upstream's syncJob.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controller.DoNotRetry(err)
	}
	job, err := c.jobs.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.expectations.Delete(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get job %s from the cache: %w", key, err)
	}
	if isFinished(&job.Status) {
		return c.syncTTL(ctx, key, job)
	}
	if job.DeletionTimestamp != nil {
		return nil // being deleted: its pods are the garbage collector's
	}
	selector, err := jobSelector(job)
	if err != nil {
		return controller.DoNotRetry(fmt.Errorf("job %s: %w", key, err))
	}

	// Ask before listing: if the expectations are met now, every pod event
	// they waited for is already in the cache the list reads.
	satisfied := c.expectations.Satisfied(key)
	all, err := c.pods.Namespace(namespace).List(nil)
	if err != nil {
		return fmt.Errorf("list pods in %s: %w", namespace, err)
	}
	pods, err := c.claimPods(ctx, job, selector, all)
	if err != nil {
		return err
	}
	counts := countPods(pods)
	st := nextStep(stepInput{
		job: job, pods: pods, counts: counts, now: c.clock.Now(), satisfied: satisfied,
		backOff: c.backOff, maxBackOff: c.maxBackOff,
	})

	var created, deleted int
	var manageErr error
	if satisfied {
		deleted, manageErr = c.deletePods(ctx, key, job, st.delete)
		if st.create > 0 && manageErr == nil {
			created, manageErr = c.createPods(ctx, key, job, st.create)
		}
	}

	status := st.status
	status.Active = int32(len(counts.active) + created - deleted)
	status.Ready = ptr(counts.ready)
	status.Terminating = ptr(counts.terminating + int32(deleted))
	status.Succeeded = max(job.Status.Succeeded, counts.succeeded)
	status.Failed = max(job.Status.Failed, counts.failed)
	if !reflect.DeepEqual(status, job.Status) {
		updated := api.DeepCopy(job)
		updated.Status = status
		if _, err := c.jobControl.UpdateStatus(ctx, updated); err != nil {
			// A conflict means the cache was behind our own last write;
			// the worker requeues, and the events wait for a write that
			// lands, so none is recorded twice.
			return errors.Join(manageErr, fmt.Errorf("update status of job %s: %w", key, err))
		}
		for _, e := range st.events {
			c.recorder.Event(job, e.eventType, e.reason, e.message)
		}
		c.log.Debug("job status updated", "key", key, "active", status.Active, "succeeded", status.Succeeded, "failed", status.Failed)
	}
	if st.requeueAfter > 0 {
		c.queue.AddAfter(key, st.requeueAfter)
	}
	if isFinished(&status) {
		// The status write's echo through the informer brings the Job back
		// to sync, now finished, for its TTL.
		c.log.Info("job finished", "key", key, "succeeded", status.Succeeded, "failed", status.Failed)
	}
	return manageErr
}

// createPods creates n pods from the Job's template in slow-start batches
// (1, 2, 4, …), expecting them first so the next sync waits for them.
func (c *Controller) createPods(ctx context.Context, key string, job *api.Job, n int) (int, error) {
	c.expectations.ExpectCreations(key, n)
	ref := controller.NewControllerRef(job, "batch/v1", "Job")
	ok, err := controller.SlowStartBatch(n, controller.SlowStartInitialBatchSize, func() error {
		return c.podControl.CreatePod(ctx, job.Namespace, &job.Spec.Template, job, ref)
	})
	// The creates that failed or never ran will never be seen.
	for range n - ok {
		c.expectations.CreationObserved(key)
	}
	if err != nil {
		return ok, fmt.Errorf("create pods for job %s: %w", key, err)
	}
	c.log.Debug("created pods", "key", key, "count", ok)
	return ok, nil
}

// deletePods deletes pods, expecting their deletions first. A pod already
// gone counts as deleted.
func (c *Controller) deletePods(ctx context.Context, key string, job *api.Job, pods []*api.Pod) (int, error) {
	if len(pods) == 0 {
		return 0, nil
	}
	podKeys := make([]string, len(pods))
	for i, p := range pods {
		podKeys[i] = keyOf(p)
	}
	c.expectations.ExpectDeletions(key, podKeys)
	var errs []error
	deleted := 0
	for i, p := range pods {
		err := c.podControl.DeletePod(ctx, p.Namespace, p.Name, job)
		if err != nil && !apierrors.IsNotFound(err) {
			c.expectations.DeletionObserved(key, podKeys[i])
			errs = append(errs, err)
			continue
		}
		deleted++
	}
	return deleted, errors.Join(errs...)
}

// claimPods adopts the orphans that match the Job's selector and releases
// its pods that no longer do, and returns the pods the Job controls.
func (c *Controller) claimPods(ctx context.Context, job *api.Job, selector labels.Selector, pods []*api.Pod) ([]*api.Pod, error) {
	refs := &controller.RefManager{
		Owner:      job,
		APIVersion: "batch/v1",
		Kind:       "Job",
		Selector:   selector,
		CanAdopt: controller.RecheckDeletionTimestamp(job.UID, func(ctx context.Context) (*api.ObjectMeta, error) {
			fresh, err := c.jobControl.Get(ctx, job.Namespace, job.Name)
			if err != nil {
				return nil, err
			}
			return &fresh.ObjectMeta, nil
		}),
		Patch: func(ctx context.Context, name string, patch []byte) error {
			return c.podControl.PatchPod(ctx, job.Namespace, name, patch)
		},
	}
	claimed, err := controller.Claim(ctx, refs, pods)
	if err != nil {
		return claimed, fmt.Errorf("claim pods for job %s/%s: %w", job.Namespace, job.Name, err)
	}
	return claimed, nil
}

// jobSelector is the Job's spec.selector as a Selector. The apiserver
// generates it from the Job's UID (batch.kubernetes.io/controller-uid)
// unless manualSelector is set.
func jobSelector(job *api.Job) (labels.Selector, error) {
	if job.Spec.Selector == nil {
		return nil, errors.New("job has no selector")
	}
	selector, err := labels.FromLabelSelector(job.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("invalid selector: %w", err)
	}
	return selector, nil
}

func ptr[T any](v T) *T { return &v }
