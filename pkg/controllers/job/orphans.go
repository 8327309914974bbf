package job

// Pods that carry the tracking finalizer but have no Job to count them:
// their Job was deleted (by a user, by the garbage collector, by its TTL),
// or their controller ownerReference was removed (a delete with
// propagationPolicy Orphan). Nobody would ever remove the finalizer, so the
// pod could never go: `kubectl delete job`, the garbage collector and a
// namespace deletion would all hang on it. Like upstream, the controller
// keeps a second queue of such pods' keys ("job_orphan_pod") and removes
// their finalizer.
//
// The rule for who releases a pod: while its Job is in the cache, the
// Job's own sync does (sync.go: a finished Job releases what is left, a Job
// being deleted releases everything); once there is no Job, this queue
// does.

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

// enqueueOrphanPod queues the pod for syncOrphanPod if it carries the
// tracking finalizer.
func (c *Controller) enqueueOrphanPod(pod *api.Pod) {
	if hasTrackingFinalizer(pod) {
		c.orphans.Add(keyOf(pod))
	}
}

// enqueueDeletedJobPods queues the cached pods the deleted Job controlled
// that still carry the finalizer (upstream's cleanupPodFinalizers).
func (c *Controller) enqueueDeletedJobPods(job *api.Job) {
	for _, p := range c.controlledPods(job) {
		c.enqueueOrphanPod(p)
	}
}

// syncOrphanPod removes the tracking finalizer from the pod under key
// ("namespace/name") unless a Job still looks after it. A pod controlled
// by something other than a Job is left alone: the finalizer is not ours
// to take off there.
func (c *Controller) syncOrphanPod(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(err)
	}
	pod, err := c.pods.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get pod %s from the cache: %w", key, err)
	}
	if !hasTrackingFinalizer(pod) {
		return nil
	}
	if ref := controllerutil.GetControllerOf(&pod.ObjectMeta); ref != nil {
		if ref.Kind != "Job" || ref.APIVersion != "batch/v1" {
			return nil
		}
		if c.resolveControllerRef(namespace, ref) != nil {
			return nil // its Job's sync looks after it
		}
	}
	err = c.podControl.PatchPod(ctx, namespace, name, removeFinalizerPatch())
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("remove the tracking finalizer of orphan pod %s: %w", key, err)
	}
	c.log.Debug("removed the tracking finalizer of a pod without a Job", "pod", key)
	return nil
}

// releaseFinishedJobPods removes the finalizer from the pods a finished
// Job still tracks. Normally there are none — the Job is only marked
// Complete or Failed once every finished pod is counted and none runs —
// but a pod may turn up late (upstream does the same clean-up as a backup).
// Nothing is counted any more.
func (c *Controller) releaseFinishedJobPods(ctx context.Context, key string, job *api.Job) error {
	pending := c.removals.pendingFor(key)
	var tracked []*api.Pod
	for _, p := range c.controlledPods(job) {
		if hasTrackingFinalizer(p) && !pending[p.UID] {
			tracked = append(tracked, p)
		}
	}
	_, err := c.removeFinalizers(ctx, key, tracked)
	return err
}

// controlledPods returns the cached pods whose controller is the Job, in
// name order, without adopting or releasing any (for a Job that is
// finished or being deleted).
func (c *Controller) controlledPods(job *api.Job) []*api.Pod {
	all, err := c.listPods(job.Namespace)
	if err != nil {
		return nil
	}
	var pods []*api.Pod
	for _, p := range all {
		if controllerutil.IsControlledBy(&p.ObjectMeta, job.UID) {
			pods = append(pods, p)
		}
	}
	return pods
}
