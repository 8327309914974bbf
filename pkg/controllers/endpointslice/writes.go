package endpointslice

// This file carries a plan out: the API writes, recorded in the tracker as
// the apiserver returns them.

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// apply creates, updates and deletes the slices of plan p, in that order:
// new endpoints become visible before old ones vanish. Creates are skipped
// for a Service being deleted, which would race the garbage collector
// deleting its slices. The first failure stops the sync; the retry plans
// again from what was written.
func (c *Controller) apply(ctx context.Context, svc *api.Service, p plan) error {
	svcKey := svc.Namespace + "/" + svc.Name
	slices := c.client.EndpointSlices(svc.Namespace)
	if svc.DeletionTimestamp == nil {
		for _, slice := range p.create {
			created, err := slices.Create(ctx, slice, client.CreateOptions{})
			if apierrors.HasStatusCause(err, apierrors.NamespaceTerminatingCause) {
				// The namespace refuses new objects while it is deleted:
				// retrying cannot help, and the Service goes with it.
				return nil
			}
			if err != nil {
				return fmt.Errorf("create EndpointSlice for service %s: %w", svcKey, err)
			}
			c.tracker.wrote(created)
			c.log.Info("created endpointslice", "service", svcKey, "slice", created.Name, "endpoints", len(created.Endpoints))
		}
	}
	for _, slice := range p.update {
		updated, err := slices.Update(ctx, slice, client.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("update EndpointSlice %s for service %s: %w", slice.Name, svcKey, err)
		}
		c.tracker.wrote(updated)
		c.log.Info("updated endpointslice", "service", svcKey, "slice", updated.Name, "endpoints", len(updated.Endpoints))
	}
	for _, slice := range p.delete {
		err := slices.Delete(ctx, slice.Name, client.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			continue // gone already: what the plan wanted
		}
		if err != nil {
			return fmt.Errorf("delete EndpointSlice %s for service %s: %w", slice.Name, svcKey, err)
		}
		c.tracker.expectDeletion(slice)
		c.log.Info("deleted endpointslice", "service", svcKey, "slice", slice.Name)
	}
	return nil
}
