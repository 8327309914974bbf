package disruption

// Stale DisruptionTarget conditions. An eviction (and the taint manager,
// and preemption) marks a pod DisruptionTarget=True just before deleting
// it, so that a Job's podFailurePolicy can tell a disruption from a
// failure. If the delete never comes — it failed, or a precondition no
// longer held — the pod would carry the mark for ever. Two minutes after
// the condition was set on a pod that is still not being deleted, the
// controller sets it back to False, as upstream's stalePodDisruption
// worker does.
//
// Upstream uses a second workqueue for these pod keys; kplane keeps the one
// queue of the controller and tells the keys apart by a prefix, "pod:",
// so the controllerutil worker loop serves both.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/informer"
)

// stalePodDisruptionTimeout is how long a DisruptionTarget=True condition
// may stay on a pod that is not being deleted (upstream's 2 minutes).
const stalePodDisruptionTimeout = 2 * time.Minute

// stalePodKeyPrefix marks a queue key as a pod to check for a stale
// condition, "pod:namespace/name", rather than a budget.
const stalePodKeyPrefix = "pod:"

// staleDisruptionCondition reports whether pod carries a DisruptionTarget
// condition that will be stale, and how long until it is (0: now). A
// condition the kubelet set (it takes as long as it takes), one on a pod
// being deleted and one on a finished pod are never stale.
func staleDisruptionCondition(pod *api.Pod, now time.Time) (bool, time.Duration) {
	if pod.DeletionTimestamp != nil || pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
		return false, 0
	}
	for _, c := range pod.Status.Conditions {
		if c.Type != api.DisruptionTarget || c.Status != api.ConditionTrue || c.Reason == api.PodReasonTerminationByKubelet {
			continue
		}
		return true, max(0, stalePodDisruptionTimeout-now.Sub(c.LastTransitionTime.Time))
	}
	return false, 0
}

// enqueueIfStaleCondition parks pod's key until its DisruptionTarget
// condition turns stale.
func (c *Controller) enqueueIfStaleCondition(pod *api.Pod) {
	if stale, after := staleDisruptionCondition(pod, c.clock.Now()); stale {
		c.queue.AddAfter(stalePodKeyPrefix+keyOf(pod), after)
	}
}

// syncStalePod sets a pod's stale DisruptionTarget condition to False, or
// parks the key again if the time is not up yet.
func (c *Controller) syncStalePod(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	pod, err := c.pods.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get pod %s from cache: %w", key, err)
	}
	stale, after := staleDisruptionCondition(pod, c.clock.Now())
	if !stale {
		return nil
	}
	if after > 0 {
		c.queue.AddAfter(stalePodKeyPrefix+key, after)
		return nil
	}
	updated := api.DeepCopy(pod)
	for i, cond := range updated.Status.Conditions {
		if cond.Type == api.DisruptionTarget {
			updated.Status.Conditions[i] = api.PodCondition{Type: api.DisruptionTarget, Status: api.ConditionFalse, LastTransitionTime: c.now()}
		}
	}
	if _, err := c.client.Pods(namespace).UpdateStatus(ctx, updated, client.UpdateOptions{}); err != nil {
		return fmt.Errorf("reset the stale DisruptionTarget condition of pod %s: %w", key, err)
	}
	c.log.Info("reset stale DisruptionTarget condition to False", "pod", key)
	return nil
}

// isStalePodKey splits a queue key into a pod key and true, or returns the
// budget key and false.
func isStalePodKey(key string) (string, bool) {
	return strings.CutPrefix(key, stalePodKeyPrefix)
}
