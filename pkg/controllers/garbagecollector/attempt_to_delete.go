package garbagecollector

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// syncAttemptToDelete handles one uid of the attemptToDelete queue. It is
// upstream's attemptToDeleteItem:
//
//  1. An object already being deleted (and not waiting for dependents) is
//     left alone: deletion is a one-way trip; its informer's delete event
//     will queue its dependents.
//  2. The object is read from the apiserver. If it does not exist (or the
//     name now holds another uid) and the node is virtual, the node leaves
//     the graph and its dependents are queued.
//  3. An owner in foreground deletion: see processDeletingDependents.
//  4. A dependent: each ownerReference is checked against the apiserver
//     (isDangling) and decideDependentAction says whether to keep it,
//     patch dangling references away, or delete it.
func (c *Controller) syncAttemptToDelete(ctx context.Context, uid string) error {
	item, ok := c.graph.view(uid)
	if !ok {
		return nil // left the graph: its deletion was observed
	}
	if item.beingDeleted && !item.deletingDependents {
		return nil
	}

	latest, err := c.getObject(ctx, item.identity)
	switch {
	case isUnknownKind(err):
		// As upstream: retried with back-off, because the kind may be a
		// custom resource the next discovery learns about (its CRD was
		// just created), or a reference that will never resolve; the
		// two cannot be told apart.
		return fmt.Errorf("check %s: %w", item.identity, err)
	case apierrors.IsNotFound(err) || (err == nil && latest.UID != item.identity.UID):
		if item.virtual {
			c.log.Info("owner does not exist; removing it from the graph", "object", item.identity)
			c.graph.removeVirtual(uid)
		}
		return nil
	case err != nil:
		return fmt.Errorf("check %s: %w", item.identity, err)
	}
	if item.virtual {
		// It exists but no informer has reported it yet: look again
		// later, so that the node leaves the graph if the object goes
		// before an informer ever sees it.
		defer c.attemptToDelete.AddAfter(uid, virtualNodeRecheckPeriod)
	}

	if item.deletingDependents {
		return c.processDeletingDependents(ctx, item)
	}
	if len(latest.OwnerReferences) == 0 {
		return nil // no owner, nothing to collect
	}

	var refs classifiedReferences
	for _, ref := range latest.OwnerReferences {
		state, err := c.isDangling(ctx, item.identity, ref)
		if err != nil {
			// An owner of a kind discovery does not know is not taken
			// as gone: the object is kept and judged again with
			// back-off, once discovery may know the kind (upstream
			// does the same).
			return err
		}
		refs.add(ref, state)
	}

	action := decideDependentAction(refs, item, latest.Finalizers)
	c.recordDependentAction(item, latest, refs, action)
	switch action.kind {
	case removeReferences:
		c.log.Info("removing dangling ownerReferences", "object", item.identity, "owners", action.removeUIDs)
		patch, err := deleteOwnerRefsPatch(uid, action.removeUIDs...)
		if err != nil {
			return err
		}
		return ignoreNotFound(c.patchOwnerReferences(ctx, item.identity, patch, func(live *api.ObjectMeta) ([]byte, error) {
			return deleteOwnerRefsMergePatch(live, action.removeUIDs...)
		}))
	case deleteObject:
		if action.unblockFirst {
			if err := c.unblockOwnerReferences(ctx, item.identity, latest.OwnerReferences); err != nil {
				return err
			}
		}
		return c.deleteObject(ctx, item.identity, latest, action.policy)
	}
	return nil
}

// processDeletingDependents handles an owner in foreground deletion: once no
// dependent blocks it, the foregroundDeletion finalizer comes off and the
// apiserver deletes the owner. Until then its blocking dependents are
// queued (each is deleted when it has no owner left alive); the owner is
// queued again by the graph when one of them leaves or stops blocking.
func (c *Controller) processDeletingDependents(ctx context.Context, owner nodeView) error {
	blocking := blockingDependents(owner.dependents)
	c.recordForeground(owner, blocking)
	if len(blocking) == 0 {
		return c.removeFinalizer(ctx, owner.identity, api.FinalizerDeleteDependents)
	}
	for _, dep := range blocking {
		if !dep.deletingDependents {
			c.attemptToDelete.Add(dep.identity.UID)
		}
	}
	return nil
}

// unblockOwnerReferences turns off blockOwnerDeletion on every reference
// of the object, so that owners waiting for it stop waiting.
func (c *Controller) unblockOwnerReferences(ctx context.Context, ref objectReference, owners []api.OwnerReference) error {
	patch, err := unblockOwnerRefsPatch(ref.UID, owners)
	if err != nil || patch == nil {
		return err
	}
	c.log.Info("a dependent also waits for its dependents; unblocking the owners to avoid a cycle", "object", ref)
	return ignoreNotFound(c.patchOwnerReferences(ctx, ref, patch, unblockOwnerRefsMergePatch))
}

// ignoreNotFound treats an object that is already gone as done.
func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
