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
// This is upstream's syncReplicaSet.
func (m *Manager[T]) Sync(ctx context.Context, key string) error {
	start := m.clock.Now()
	defer func() { m.log.Debug("finished syncing", "key", key, "duration", m.clock.Since(start)) }()

	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(err)
	}
	owner, err := m.kind.Informer.Lister().Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		// Deleted: its pods are the garbage collector's business now.
		m.log.Debug("owner has been deleted", "key", key)
		m.expectations.Delete(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get %s %s from the cache: %w", m.kind.Kind, key, err)
	}
	view, err := m.kind.View(owner)
	if err != nil {
		// Only a new version of the owner can fix its selector, and that
		// version's update event enqueues it again.
		return controllerutil.DoNotRetry(fmt.Errorf("%s %s: %w", m.kind.Kind, key, err))
	}

	// Ask before listing the pods: if the expectations are met now, every
	// pod event they waited for has already reached the cache the list
	// reads from.
	needsSync := m.expectations.Satisfied(key)

	// List the whole namespace, not just the selector's matches: pods that
	// were relabelled out of the selector still carry our controllerRef
	// and must be released.
	allPods, err := m.podLister.Namespace(namespace).List(nil)
	if err != nil {
		return fmt.Errorf("list pods in %s: %w", namespace, err)
	}
	// Pods that finished or are being deleted are not replicas any more.
	active := controllerutil.FilterActivePods(allPods)
	pods, err := m.claimPods(ctx, owner, view, active)
	if err != nil {
		return err
	}

	var manageErr error
	if needsSync && owner.GetObjectMeta().DeletionTimestamp == nil {
		manageErr = m.manageReplicas(ctx, key, owner, view, pods)
	} else if !needsSync {
		adds, deletes := m.expectations.Pending(key)
		m.log.Debug("waiting for the cache to catch up; only updating status", "key", key, "pendingCreates", adds, "pendingDeletes", deletes)
	}

	status := calculateStatus(view, owner.GetObjectMeta().Generation, pods, manageErr, m.clock.Now())
	if err := m.updateStatus(ctx, owner, view, status); err != nil {
		return err
	}
	// No event marks the moment a ready pod has been ready for
	// minReadySeconds; come back then to count it as available.
	if manageErr == nil && view.MinReadySeconds > 0 && status.ReadyReplicas > status.AvailableReplicas {
		m.queue.AddAfter(key, time.Duration(view.MinReadySeconds)*time.Second)
	}
	return manageErr
}

// claimPods adopts the orphans among pods that match the owner's selector
// and releases the owner's pods that no longer match, and returns the pods
// the owner controls afterwards.
func (m *Manager[T]) claimPods(ctx context.Context, owner T, view Owner, pods []*api.Pod) ([]*api.Pod, error) {
	meta := owner.GetObjectMeta()
	namespace, name := meta.Namespace, meta.Name
	refs := &controllerutil.RefManager{
		Owner:      owner,
		APIVersion: m.kind.APIVersion,
		Kind:       m.kind.Kind,
		Selector:   view.Selector,
		// Before the first adoption, read the owner from the apiserver
		// rather than the cache: an owner deleted since the pods were
		// listed must not adopt anything (upstream issue 42639).
		CanAdopt: controllerutil.RecheckDeletionTimestamp(meta.UID, func(ctx context.Context) (*api.ObjectMeta, error) {
			fresh, err := m.kind.Get(ctx, namespace, name)
			if err != nil {
				return nil, err
			}
			return fresh.GetObjectMeta(), nil
		}),
		Patch: func(ctx context.Context, podName string, patch []byte) error {
			return m.podControl.PatchPod(ctx, namespace, podName, patch)
		},
	}
	claimed, err := controllerutil.Claim(ctx, refs, pods)
	if err != nil {
		return claimed, fmt.Errorf("claim pods for %s %s/%s: %w", m.kind.Kind, namespace, name, err)
	}
	return claimed, nil
}
