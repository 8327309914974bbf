package persistentvolume

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// This file is upstream's provisionClaim for external provisioners: a
// claim of a class that no existing volume satisfies is handed to the
// class's provisioner, which makes a volume pre-bound to it (kplane's own
// is pkg/controllers/hostpathprovisioner); the binder then binds the two
// like any pre-bound pair.

// The reasons and messages of the provisioning events, upstream's.
const (
	ReasonWaitForFirstConsumer = "WaitForFirstConsumer"
	ReasonExternalProvisioning = "ExternalProvisioning"

	messageWaitForFirstConsumer = "waiting for first consumer to be created before binding"
	messageExternalProvisioning = "Waiting for a volume to be created either by the external provisioner '%s' " +
		"or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered."
)

// provisionClaim moves an unbound claim of className, for which no volume
// fits, one step toward a volume, and leaves it Pending:
//
//   - the class does not exist: a ProvisioningFailed warning (upstream's);
//   - the class binds WaitForFirstConsumer and no pod using the claim has
//     been scheduled (no selected-node annotation): a WaitForFirstConsumer
//     event, and nothing else until the scheduler picks a node;
//   - otherwise the claim is marked with the class's provisioner, which
//     watches for such claims, and an ExternalProvisioning event says
//     whom it waits for.
func (c *Controller) provisionClaim(ctx context.Context, claim *api.PersistentVolumeClaim, className string) error {
	class, err := c.classLister.Get(className)
	if apierrors.IsNotFound(err) {
		c.recordClaim(claim, "storage class %q does not exist → stay Pending", className)
		c.recorder.Eventf(claim, api.EventTypeWarning, ReasonProvisioningFailed, messageStorageClassMissing, className)
		_, err = c.updateClaimStatus(ctx, claim, api.ClaimPending, nil)
		return err
	}
	if err != nil {
		return fmt.Errorf("get storage class %s from cache: %w", className, err)
	}
	waits := class.VolumeBindingMode != nil && *class.VolumeBindingMode == api.VolumeBindingWaitForFirstConsumer
	if _, placed := claim.Annotations[api.AnnSelectedNode]; waits && !placed {
		c.recordClaim(claim, "class %q binds WaitForFirstConsumer and no pod using the claim is scheduled yet → wait, Pending", className)
		c.recorder.Event(claim, api.EventTypeNormal, ReasonWaitForFirstConsumer, messageWaitForFirstConsumer)
		_, err = c.updateClaimStatus(ctx, claim, api.ClaimPending, nil)
		return err
	}
	c.recordClaim(claim, "class %q: hand the claim to provisioner %s (annotation %s) → Pending until it makes a volume",
		className, class.Provisioner, api.AnnStorageProvisioner)
	if claim.Annotations[api.AnnStorageProvisioner] != class.Provisioner || claim.Annotations[api.AnnBetaStorageProvisioner] != class.Provisioner {
		updated := api.DeepCopy(claim)
		if updated.Annotations == nil {
			updated.Annotations = map[string]string{}
		}
		updated.Annotations[api.AnnStorageProvisioner] = class.Provisioner
		updated.Annotations[api.AnnBetaStorageProvisioner] = class.Provisioner
		claim, err = c.client.PersistentVolumeClaims(claim.Namespace).Update(ctx, updated, client.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("hand claim %s to provisioner %s: %w", claimKey(updated), class.Provisioner, err)
		}
	}
	c.recorder.Eventf(claim, api.EventTypeNormal, ReasonExternalProvisioning, messageExternalProvisioning, class.Provisioner)
	_, err = c.updateClaimStatus(ctx, claim, api.ClaimPending, nil)
	return err
}
