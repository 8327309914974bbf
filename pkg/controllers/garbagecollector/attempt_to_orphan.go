package garbagecollector

import (
	"context"
	"errors"
	"fmt"

	"kplane/pkg/api"
)

// syncAttemptToOrphan handles one uid of the attemptToOrphan queue: an
// owner being deleted with the orphan finalizer (kubectl delete
// --cascade=orphan). Its ownerReference is removed from every dependent the
// graph knows, then the orphan finalizer comes off the owner, and the
// apiserver deletes it. If any dependent cannot be patched the finalizer
// stays and the owner is retried with back-off: removing it first would let
// the owner go and its dependents be collected in the background. This is
// upstream's attemptToOrphanWorker.
func (c *Controller) syncAttemptToOrphan(ctx context.Context, uid string) error {
	owner, ok := c.graph.view(uid)
	if !ok {
		return nil // already gone
	}
	c.recordOrphan(owner)
	var errs []error
	for _, dep := range owner.dependents {
		patch, err := deleteOwnerRefsPatch(dep.identity.UID, uid)
		if err != nil {
			return err
		}
		// A dependent that is gone needs no orphaning; a patch naming a
		// reference the dependent no longer has changes nothing.
		err = ignoreNotFound(c.patchOwnerReferences(ctx, dep.identity, patch, func(live *api.ObjectMeta) ([]byte, error) {
			return deleteOwnerRefsMergePatch(live, uid)
		}))
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("orphan the dependents of %s: %w", owner.identity, err)
	}
	if len(owner.dependents) > 0 {
		c.log.Info("orphaned dependents", "owner", owner.identity, "dependents", len(owner.dependents))
	}
	return c.removeFinalizer(ctx, owner.identity, api.FinalizerOrphanDependents)
}
