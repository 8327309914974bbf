package replicaset

import (
	"context"
	"sync"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/controllers/controllerutil"
)

// manageReplicas creates or deletes pods so that the owner has
// spec.replicas active pods, at most burstReplicas per sync. pods are the
// active pods the owner controls; they are not modified. An error means
// some creates or deletes failed; the caller records it in the
// ReplicaFailure condition and the key is retried with back-off.
func (c *Controller[T]) manageReplicas(ctx context.Context, key string, owner T, view Owner, pods []*api.Pod, dec *replicaDecision) error {
	diff := len(pods) - int(view.Replicas)
	switch {
	case diff < 0:
		n := min(-diff, c.burstReplicas)
		successes, err := c.createPods(ctx, key, owner, view, n)
		dec.created(-diff, n, c.burstReplicas, successes, err)
		return err
	case diff > 0:
		return c.deletePods(ctx, key, owner, view, pods, min(diff, c.burstReplicas), dec)
	}
	return nil
}

// createPods creates n pods from the owner's template in slow-start
// batches (1, 2, 4, …), so that a template the apiserver rejects costs one
// request and one FailedCreate event, not n. It returns how many creates
// succeeded.
func (c *Controller[T]) createPods(ctx context.Context, key string, owner T, view Owner, n int) (int, error) {
	// Expect before creating: the informer may deliver a new pod before
	// CreatePod has even returned.
	c.expectations.ExpectCreations(key, n)
	c.log.Info("too few replicas", "key", key, "want", view.Replicas, "creating", n)

	namespace := owner.GetObjectMeta().Namespace
	ref := controllerutil.NewControllerRef(owner, c.kind.APIVersion, c.kind.Kind)
	successes, err := controllerutil.SlowStartBatch(n, controllerutil.SlowStartInitialBatchSize, func() error {
		return c.podControl.CreatePod(ctx, namespace, view.Template, owner, ref)
	})
	// Pods whose create failed, or was never tried, will never be seen by
	// the informer: stop waiting for them, or the owner would stall until
	// the expectations time out. The next sync tries again.
	if skipped := n - successes; skipped > 0 {
		c.log.Info("slow start stopped after a failed create; not expecting the pods it skipped",
			"key", key, "created", successes, "skipped", skipped, "err", err)
		for range skipped {
			c.expectations.CreationObserved(key)
		}
	}
	if apierrors.HasStatusCause(err, apierrors.NamespaceTerminatingCause) {
		// The namespace is being deleted and refuses new pods; retrying
		// cannot help, and the owner is about to go with it (upstream
		// ignores this error too).
		return successes, nil
	}
	return successes, err
}

// deletePods deletes the n pods that matter least (controllerutil.PodsToDelete:
// unscheduled, pending, not ready, on crowded nodes, newest …), in
// parallel.
func (c *Controller[T]) deletePods(ctx context.Context, key string, owner T, view Owner, pods []*api.Pod, n int, dec *replicaDecision) error {
	victims, reasons := controllerutil.PodsToDeleteWithReasons(pods, c.relatedPods(owner, pods), n, c.clock.Now(), dec != nil)
	dec.deleted(len(pods)-int(view.Replicas), c.burstReplicas, victims, reasons)
	podKeys := make([]string, len(victims))
	names := make([]string, len(victims))
	for i, pod := range victims {
		podKeys[i], names[i] = keyOf(pod), pod.Name
	}
	// Deletions are expected by pod key, so that a pod seen first with a
	// deletionTimestamp and later gone counts once.
	c.expectations.ExpectDeletions(key, podKeys)
	c.log.Info("too many replicas", "key", key, "want", view.Replicas, "deleting", n, "pods", names)

	namespace := owner.GetObjectMeta().Namespace
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for _, pod := range victims {
		wg.Go(func() {
			err := c.podControl.DeletePod(ctx, namespace, pod.Name, owner)
			if err == nil {
				return
			}
			// The informer will not report this deletion (it failed, or
			// the pod was already gone): stop waiting for it.
			c.expectations.DeletionObserved(key, keyOf(pod))
			if apierrors.IsNotFound(err) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if firstErr == nil {
				// The failures are likely all alike; one is enough.
				firstErr = err
			}
		})
	}
	wg.Wait()
	return firstErr
}

// relatedPods returns the pods that count when ranking pods by node
// crowding: for an owner under a controller (a Deployment's ReplicaSet),
// the active pods of every sibling with the same controller, as upstream's
// getIndirectlyRelatedPods; for a standalone owner, its own pods, so that
// scale down also thins the nodes that hold most of them (upstream ranks
// all of a standalone ReplicaSet's pods equally here).
func (c *Controller[T]) relatedPods(owner T, own []*api.Pod) []*api.Pod {
	meta := owner.GetObjectMeta()
	ref := controllerutil.GetControllerOf(meta)
	if ref == nil {
		return own
	}
	siblings, err := c.kind.Informer.Lister().Namespace(meta.Namespace).List(nil)
	if err != nil {
		c.log.Error("list sibling owners; ranking without them", "key", keyOf(owner), "err", err)
		return own
	}
	seen := map[string]bool{}
	var related []*api.Pod
	for _, sibling := range siblings {
		if !controllerutil.IsControlledBy(sibling.GetObjectMeta(), ref.UID) {
			continue
		}
		view, err := c.kind.View(sibling)
		if err != nil {
			continue // an invalid selector matches no pods
		}
		pods, err := c.podLister.Namespace(meta.Namespace).List(view.Selector)
		if err != nil {
			c.log.Error("list pods of a sibling; ranking without them", "key", keyOf(sibling), "err", err)
			continue
		}
		for _, pod := range pods {
			if !seen[pod.UID] {
				seen[pod.UID] = true
				related = append(related, pod)
			}
		}
	}
	return related
}
