package apiserver

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/store"
)

// The finalizing step of the CRD controller (upstream's
// CRDFinalizer): a CRD marked for deletion has its objects deleted, and
// loses the customresourcecleanup finalizer once none is left.

// finalize is the finalizer controller's step for a CRD marked for
// deletion: delete every object of it (each goes when its own finalizers
// allow), and once none is left take off the cleanup finalizer, which
// lets the CRD go.
func (c *crdController) finalize(ctx context.Context, crd *api.CustomResourceDefinition) error {
	res := c.s.storageResourceOf(crd)
	if res != nil && api.IsCRDConditionTrue(crd, api.Established) {
		// As upstream, the condition says so before the first delete, so
		// a client that sees an object being deleted sees it too.
		if err := c.setTerminating(ctx, crd, api.ConditionTrue, "InstanceDeletionInProgress", "CustomResource deletion is in progress"); err != nil {
			return err
		}
		remaining, err := c.deleteInstances(ctx, res)
		if err != nil {
			_ = c.setTerminating(ctx, crd, api.ConditionTrue, "InstanceDeletionFailed", fmt.Sprintf("could not issue all deletes: %v", err))
			return err
		}
		if remaining > 0 {
			c.queue.AddAfter(crd.Name, crdResyncDelay)
			return nil
		}
	}
	if err := c.setTerminating(ctx, crd, api.ConditionFalse, "InstanceDeletionCompleted", "removed all instances"); err != nil {
		return err
	}
	_, err := c.s.guaranteedUpdate(ctx, c.crds, "", crd.Name, updateMain, false, func(current *storedObject) (api.Object, error) {
		next, err := copyOf(c.crds, current)
		if err != nil {
			return nil, err
		}
		meta := next.GetObjectMeta()
		meta.Finalizers = slices.DeleteFunc(meta.Finalizers, func(f string) bool { return f == api.CustomResourceCleanupFinalizer })
		meta.ResourceVersion = ""
		return next, nil
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// setTerminating sets the Terminating condition unless it already reads so.
func (c *crdController) setTerminating(ctx context.Context, crd *api.CustomResourceDefinition, status api.ConditionStatus, reason, message string) error {
	cond := api.CustomResourceDefinitionCondition{Type: api.Terminating, Status: status, Reason: reason, Message: message}
	if sameCondition(crd, cond) {
		return nil
	}
	err := c.updateStatus(ctx, crd.Name, func(next *api.CustomResourceDefinition, now api.Time) { api.SetCRDCondition(next, cond, now) })
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// deleteInstances deletes every object of res that is not yet being
// deleted, through the same delete as a client's, and returns how many
// objects are left.
func (c *crdController) deleteInstances(ctx context.Context, res *resource) (remaining int, err error) {
	page, err := c.s.store.List(ctx, res.keyPrefix(""), store.ListOptions{})
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, kv := range page.Items {
		so, err := c.s.decodeStored(res, kv)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		meta := so.obj.GetObjectMeta()
		if meta.DeletionTimestamp != nil {
			remaining++
			continue
		}
		_, removed, err := c.s.delete(ctx, res, meta.Namespace, meta.Name, api.DeleteOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			errs = append(errs, err)
			remaining++
		case !removed:
			remaining++
		}
	}
	if page.More {
		remaining++ // more than one page: look again
	}
	return remaining, errors.Join(errs...)
}

// storageResourceOf is the served resource of crd's storage version, or
// of any served version (they share the stored objects), or nil when
// none is served.
func (s *Server) storageResourceOf(crd *api.CustomResourceDefinition) *resource {
	served := s.custom.set().byCRD[crd.Name]
	if served == nil || len(served.resources) == 0 {
		return nil
	}
	for _, res := range served.resources {
		if res.groupVersion() == res.custom.storageAPIVersion {
			return res
		}
	}
	return served.resources[0]
}
