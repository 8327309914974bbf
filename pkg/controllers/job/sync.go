package job

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

// sync reconciles the Job under key ("namespace/name"): it claims the
// Job's pods, counts the ones that finished (tracking.go), asks nextStep
// what to do, creates or deletes pods (only if its expectations are met,
// so a slow cache never doubles a create), writes the status and records
// the events. A finished Job only lets go of any pod it still tracks and
// waits for its TTL; a Job being deleted counts what finished and lets go
// of all its pods. Running sync again with nothing changed writes nothing.
//
// This is upstream's syncJob.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(err)
	}
	job, err := c.jobs.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		// Its pods' finalizers are the orphan queue's (deleteJob).
		c.expectations.Delete(key)
		c.removals.forget(key)
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get job %s from the cache: %w", key, err)
	}
	if isFinished(&job.Status) {
		if err := c.releaseFinishedJobPods(ctx, key, job); err != nil {
			return err
		}
		return c.syncTTL(ctx, key, job)
	}
	if job.DeletionTimestamp != nil {
		return c.syncDeleting(ctx, key, job)
	}
	selector, err := jobSelector(job)
	if err != nil {
		return controllerutil.DoNotRetry(fmt.Errorf("job %s: %w", key, err))
	}

	// Ask before listing: if the expectations are met now, every pod event
	// they waited for is already in the cache the list reads; a finalizer
	// removal no longer pending now is already in it too.
	satisfied := c.expectations.Satisfied(key)
	released := c.removals.pendingFor(key)
	all, err := c.listPods(namespace)
	if err != nil {
		return err
	}
	pods, err := c.claimPods(ctx, job, selector, all)
	if err != nil {
		return err
	}
	// Steps 1 and 2 of counting the finished pods: record their UIDs, then
	// remove their finalizers. job is now the Job as stored.
	job, err = c.trackFinishedPods(ctx, key, job, pods, released, false)
	if err != nil {
		return err
	}
	// Step 3, in memory: what nextStep sees and this sync writes.
	counted := api.DeepCopy(job)
	countReleased(&counted.Status, trackedUIDs(pods, released))

	counts := countPods(pods)
	in := stepInput{
		job: counted, pods: pods, counts: counts, now: c.clock.Now(), satisfied: satisfied,
		backOff: c.backOff, maxBackOff: c.maxBackOff,
	}
	st := nextStep(in)
	c.recordStep(in, st)

	var created, deleted int
	var manageErr error
	if satisfied {
		deleted, manageErr = c.deletePods(ctx, key, job, st.delete, st.failDeleted)
		if st.create > 0 && manageErr == nil {
			created, manageErr = c.createPods(ctx, key, job, st.create)
		}
	}

	status := st.status
	status.Active = int32(len(counts.active) + created - deleted)
	status.Ready = ptr(counts.ready)
	status.Terminating = ptr(counts.terminating + int32(deleted))
	if !reflect.DeepEqual(status, job.Status) {
		updated := api.DeepCopy(job)
		updated.Status = status
		if _, err := c.client.Jobs(updated.Namespace).UpdateStatus(ctx, updated, client.UpdateOptions{}); err != nil {
			// A conflict means the cache was behind our own last write;
			// the worker requeues, and the events wait for a write that
			// lands, so none is recorded twice. Released pods stay in
			// uncountedTerminatedPods until a write counts them.
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

// syncDeleting handles a Job that is being deleted (a foreground deletion,
// or a finalizer of someone else's holding it): no pod is created or
// deleted any more, its finished pods are still counted (as upstream), and
// every pod loses the tracking finalizer, so the garbage collector can
// remove them and the Job can go.
func (c *Controller) syncDeleting(ctx context.Context, key string, job *api.Job) error {
	released := c.removals.pendingFor(key) // before listing, as in sync
	pods := c.controlledPods(job)
	job, err := c.trackFinishedPods(ctx, key, job, pods, released, true)
	if err != nil {
		return err
	}
	status := api.DeepCopyValue(job.Status)
	countReleased(&status, trackedUIDs(pods, released))
	if reflect.DeepEqual(status, job.Status) {
		return nil
	}
	updated := api.DeepCopy(job)
	updated.Status = status
	if _, err := c.client.Jobs(updated.Namespace).UpdateStatus(ctx, updated, client.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update status of job %s being deleted: %w", key, err)
	}
	return nil
}

// createPods creates n pods from the Job's template in slow-start batches
// (1, 2, 4, …), expecting them first so the next sync waits for them. Each
// pod carries the tracking finalizer from the start, so it cannot vanish
// before it is counted.
func (c *Controller) createPods(ctx context.Context, key string, job *api.Job, n int) (int, error) {
	c.expectations.ExpectCreations(key, n)
	ref := controllerutil.NewControllerRef(job, "batch/v1", "Job")
	template := api.DeepCopyValue(job.Spec.Template)
	if !slices.Contains(template.Finalizers, api.JobTrackingFinalizer) {
		template.Finalizers = append(template.Finalizers, api.JobTrackingFinalizer)
	}
	ok, err := controllerutil.SlowStartBatch(n, controllerutil.SlowStartInitialBatchSize, func() error {
		return c.podControl.CreatePod(ctx, job.Namespace, &template, job, ref)
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
// gone counts as deleted. Unless countAsFailed, each pod first loses its
// tracking finalizer: a pod the Job no longer wants (suspended,
// parallelism lowered) is not a failure. With countAsFailed (the Job is
// ending) the finalizer stays, and the next sync counts the deleted pod as
// failed — upstream's deleteJobPods and deleteActivePods.
func (c *Controller) deletePods(ctx context.Context, key string, job *api.Job, pods []*api.Pod, countAsFailed bool) (int, error) {
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
		err := c.stopPod(ctx, job, p, countAsFailed)
		if err != nil && !apierrors.IsNotFound(err) {
			c.expectations.DeletionObserved(key, podKeys[i])
			errs = append(errs, err)
			continue
		}
		deleted++
	}
	return deleted, errors.Join(errs...)
}

// stopPod deletes one pod of the Job, removing its tracking finalizer
// first unless countAsFailed (see deletePods).
func (c *Controller) stopPod(ctx context.Context, job *api.Job, p *api.Pod, countAsFailed bool) error {
	if !countAsFailed && hasTrackingFinalizer(p) {
		if err := c.podControl.PatchPod(ctx, p.Namespace, p.Name, removeFinalizerPatch()); err != nil {
			return fmt.Errorf("remove the tracking finalizer of pod %s/%s before deleting it: %w", p.Namespace, p.Name, err)
		}
	}
	return c.podControl.DeletePod(ctx, p.Namespace, p.Name, job)
}

// listPods returns the cached pods in namespace in name order. The cache
// lists them in no particular order; a fixed one makes the writes of a
// sync (and its log lines) come in the same order every time.
func (c *Controller) listPods(namespace string) ([]*api.Pod, error) {
	pods, err := c.pods.Namespace(namespace).List(nil)
	if err != nil {
		return nil, fmt.Errorf("list pods in %s: %w", namespace, err)
	}
	slices.SortFunc(pods, func(a, b *api.Pod) int { return strings.Compare(a.Name, b.Name) })
	return pods, nil
}

// claimPods adopts the orphans that match the Job's selector and releases
// its pods that no longer do, and returns the pods the Job controls.
func (c *Controller) claimPods(ctx context.Context, job *api.Job, selector labels.Selector, pods []*api.Pod) ([]*api.Pod, error) {
	refs := &controllerutil.RefManager{
		Owner:      job,
		APIVersion: "batch/v1",
		Kind:       "Job",
		Selector:   selector,
		CanAdopt: controllerutil.RecheckDeletionTimestamp(job.UID, func(ctx context.Context) (*api.ObjectMeta, error) {
			fresh, err := c.client.Jobs(job.Namespace).Get(ctx, job.Name, client.GetOptions{})
			if err != nil {
				return nil, err
			}
			return &fresh.ObjectMeta, nil
		}),
		Patch: func(ctx context.Context, name string, patch []byte) error {
			return c.podControl.PatchPod(ctx, job.Namespace, name, patch)
		},
	}
	claimed, err := controllerutil.Claim(ctx, refs, pods)
	if err != nil {
		return claimed, fmt.Errorf("claim pods for job %s/%s: %w", job.Namespace, job.Name, err)
	}
	return c.trackAdopted(ctx, job, claimed)
}

// trackAdopted gives the pods adopted just now the tracking finalizer (as
// upstream's adoption patch does), so that how they end is counted like
// the Job's own pods. The cached copies are replaced by copies that carry
// it, for the rest of this sync.
func (c *Controller) trackAdopted(ctx context.Context, job *api.Job, claimed []*api.Pod) ([]*api.Pod, error) {
	var errs []error
	pods := make([]*api.Pod, 0, len(claimed))
	for _, p := range claimed {
		adopted := !controllerutil.IsControlledBy(&p.ObjectMeta, job.UID)
		if !adopted || hasTrackingFinalizer(p) {
			pods = append(pods, p)
			continue
		}
		err := c.podControl.PatchPod(ctx, p.Namespace, p.Name, addFinalizerPatch())
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("add the tracking finalizer to adopted pod %s/%s: %w", p.Namespace, p.Name, err))
			continue
		}
		tracked := api.DeepCopy(p)
		tracked.Finalizers = append(tracked.Finalizers, api.JobTrackingFinalizer)
		pods = append(pods, tracked)
	}
	return pods, errors.Join(errs...)
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
