package replicaset

import (
	"context"
	"fmt"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

// Sync reconciles the owner under key ("namespace/name"): it claims the
// owner's pods, creates or deletes pods until spec.replicas are active
// (only if its expectations are met), and writes the status. It returns
// an error to be retried with back-off; running it again with nothing
// changed writes nothing.
//
// This is upstream's syncReplicaSet. It is the skeleton's sync, exported
// because the ReplicationController package runs (and tests) this same
// controller over its own kind.
func (c *Controller[T]) Sync(ctx context.Context, key string) error {
	start := c.clock.Now()
	defer func() { c.log.Debug("finished syncing", "key", key, "duration", c.clock.Since(start)) }()

	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(err)
	}
	owner, err := c.kind.Informer.Lister().Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		// Deleted: its pods are the garbage collector's business now.
		c.log.Debug("owner has been deleted", "key", key)
		c.expectations.Delete(key)
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get %s %s from the cache: %w", c.kind.Kind, key, err)
	}
	view, err := c.kind.View(owner)
	if err != nil {
		// Only a new version of the owner can fix its selector, and that
		// version's update event enqueues it again.
		return controllerutil.DoNotRetry(fmt.Errorf("%s %s: %w", c.kind.Kind, key, err))
	}

	// Ask before listing the pods: if the expectations are met now, every
	// pod event they waited for has already reached the cache the list
	// reads from.
	needsSync := c.expectations.Satisfied(key)

	// List the whole namespace, not just the selector's matches: pods that
	// were relabelled out of the selector still carry our controllerRef
	// and must be released.
	allPods, err := c.podLister.Namespace(namespace).List(nil)
	if err != nil {
		return fmt.Errorf("list pods in %s: %w", namespace, err)
	}
	// Pods that finished or are being deleted are not replicas any more.
	active := controllerutil.FilterActivePods(allPods)
	pods, err := c.claimPods(ctx, owner, view, active)
	if err != nil {
		return err
	}

	dec := c.startDecision(owner, view, pods, allPods)
	var manageErr error
	if needsSync && owner.GetObjectMeta().DeletionTimestamp == nil {
		manageErr = c.manageReplicas(ctx, key, owner, view, pods, dec)
	} else if !needsSync {
		adds, deletes := c.expectations.Pending(key)
		c.log.Debug("waiting for the cache to catch up; only updating status", "key", key, "pendingCreates", adds, "pendingDeletes", deletes)
		dec.waiting(adds, deletes)
	}
	c.record(owner, dec)

	status := calculateStatus(view, owner.GetObjectMeta().Generation, pods, manageErr, c.clock.Now())
	if err := c.updateStatus(ctx, owner, view, status); err != nil {
		return err
	}
	// No event marks the moment a ready pod has been ready for
	// minReadySeconds; come back then to count it as available.
	if manageErr == nil && view.MinReadySeconds > 0 && status.ReadyReplicas > status.AvailableReplicas {
		c.queue.AddAfter(key, time.Duration(view.MinReadySeconds)*time.Second)
	}
	return manageErr
}

// claimPods adopts the orphans among pods that match the owner's selector
// and releases the owner's pods that no longer match, and returns the pods
// the owner controls afterwards.
func (c *Controller[T]) claimPods(ctx context.Context, owner T, view Owner, pods []*api.Pod) ([]*api.Pod, error) {
	meta := owner.GetObjectMeta()
	namespace, name := meta.Namespace, meta.Name
	refs := &controllerutil.RefManager{
		Owner:      owner,
		APIVersion: c.kind.APIVersion,
		Kind:       c.kind.Kind,
		Selector:   view.Selector,
		// Before the first adoption, read the owner from the apiserver
		// rather than the cache: an owner deleted since the pods were
		// listed must not adopt anything (upstream issue 42639).
		CanAdopt: controllerutil.RecheckDeletionTimestamp(meta.UID, func(ctx context.Context) (*api.ObjectMeta, error) {
			fresh, err := c.kind.Get(ctx, namespace, name)
			if err != nil {
				return nil, err
			}
			return fresh.GetObjectMeta(), nil
		}),
		Patch: func(ctx context.Context, podName string, patch []byte) error {
			return c.podControl.PatchPod(ctx, namespace, podName, patch)
		},
	}
	claimed, err := controllerutil.Claim(ctx, refs, pods)
	if err != nil {
		return claimed, fmt.Errorf("claim pods for %s %s/%s: %w", c.kind.Kind, namespace, name, err)
	}
	return claimed, nil
}
