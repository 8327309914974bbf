package persistentvolume

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/controllers/controllerutil"
)

// This file is the claim side: upstream's syncClaim, split as upstream
// splits it into the claim that has never been bound and the claim that
// has.

// The messages of the claim events, upstream's wording.
const (
	messageNoVolumeNoClass     = "no persistent volumes available for this claim and no storage class is set"
	messageLostReference       = "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!"
	messageLostVolume          = "Bound claim has lost its PersistentVolume. Data on the volume is lost!"
	messageMisbound            = "Two claims are bound to the same volume, this one is bound incorrectly"
	messageStorageClassMissing = "storageclass.storage.k8s.io %q not found"
)

// syncClaim makes one step for a claim. The bind-completed annotation
// tells the two cases apart: before it a missing volume means "wait"
// (Pending), after it "lost" (Lost).
func (c *Controller) syncClaim(ctx context.Context, claim *api.PersistentVolumeClaim) error {
	if _, bound := claim.Annotations[annBindCompleted]; bound {
		return c.syncBoundClaim(ctx, claim)
	}
	return c.syncUnboundClaim(ctx, claim)
}

// syncUnboundClaim binds a claim that has never been bound. Without a
// volumeName it binds to the closest fitting volume (findBestVolume), or
// stays Pending with an event saying why. With a volumeName it binds to
// that volume if the volume fits and is not claimed by another claim.
func (c *Controller) syncUnboundClaim(ctx context.Context, claim *api.PersistentVolumeClaim) error {
	if claim.Spec.VolumeName == "" {
		volumes, err := c.volumeLister.List(labels.Everything())
		if err != nil {
			return fmt.Errorf("list volumes from cache: %w", err)
		}
		pv, err := findBestVolume(claim, volumes)
		if err != nil {
			return controllerutil.DoNotRetry(err) // a bad selector; validation should have refused it
		}
		if pv != nil {
			c.recordClaim(claim, "bind to %s (the closest fit: fewest access modes, then least storage, then name)", pv.Name)
			return c.bind(ctx, pv, claim)
		}
		if class := claimClass(claim); class != "" {
			// A class's provisioner may make a volume (provision.go).
			return c.provisionClaim(ctx, claim, class)
		}
		c.recordClaim(claim, "no storage class to provision one → stay Pending")
		c.recorder.Event(claim, api.EventTypeNormal, ReasonFailedBinding, messageNoVolumeNoClass)
		_, err = c.updateClaimStatus(ctx, claim, api.ClaimPending, nil)
		return err
	}

	// The user asked for a volume by name.
	pv, err := c.volumeLister.Get(claim.Spec.VolumeName)
	if apierrors.IsNotFound(err) {
		// Not there (yet): wait, Pending, for the volume's creation or a
		// resync.
		c.log.Debug("claim asks for a volume that does not exist", "claim", claimKey(claim), "volume", claim.Spec.VolumeName)
		c.recordClaim(claim, "it asks for volume %s by name, which does not exist (yet) → stay Pending", claim.Spec.VolumeName)
		_, err = c.updateClaimStatus(ctx, claim, api.ClaimPending, nil)
		return err
	}
	if err != nil {
		return fmt.Errorf("get volume %s from cache: %w", claim.Spec.VolumeName, err)
	}
	if pv.Spec.ClaimRef == nil || isVolumeBoundToClaim(pv, claim) {
		// Free, or reserved for this very claim: bind if it fits.
		if reason := volumeMismatch(pv, claim); reason != "" {
			c.recordClaim(claim, "it asks for volume %s by name, which does not fit (%s) → stay Pending", pv.Name, reason)
			c.recorder.Eventf(claim, api.EventTypeWarning, ReasonVolumeMismatch, "Cannot bind to requested volume %q: %s", pv.Name, reason)
			_, err = c.updateClaimStatus(ctx, claim, api.ClaimPending, nil)
			return err
		}
		c.recordClaim(claim, "bind to %s, the volume it asks for by name", pv.Name)
		return c.bind(ctx, pv, claim)
	}
	// The volume belongs to another claim.
	if _, byController := claim.Annotations[annBoundByController]; !byController {
		// The user pre-bound the claim to a busy volume: wait until it is
		// free, as upstream does.
		c.recordClaim(claim, "it asks for volume %s by name, which %s holds → wait, Pending", pv.Name, claimRefKey(pv.Spec.ClaimRef))
		_, err = c.updateClaimStatus(ctx, claim, api.ClaimPending, nil)
		return err
	}
	// The controller wrote this volumeName, yet the volume names another
	// claim and the binding never completed. Upstream calls this
	// impossible and retries; so does kplane.
	return fmt.Errorf("invalid binding of claim %s to volume %s: volume already claimed by %s",
		claimKey(claim), pv.Name, claimRefKey(pv.Spec.ClaimRef))
}

// syncBoundClaim keeps a claim that was bound once: Bound while its volume
// points back at it (re-asserting both ends, which finishes a binding that
// stopped half-way), Lost when the volume is gone or belongs to another
// claim. Lost is final: upstream never binds a lost claim again.
func (c *Controller) syncBoundClaim(ctx context.Context, claim *api.PersistentVolumeClaim) error {
	if claim.Spec.VolumeName == "" {
		_, err := c.updateClaimStatusWithEvent(ctx, claim, api.ClaimLost, nil, api.EventTypeWarning, ReasonClaimLost, messageLostReference)
		return err
	}
	pv, err := c.volumeLister.Get(claim.Spec.VolumeName)
	if apierrors.IsNotFound(err) {
		_, err = c.updateClaimStatusWithEvent(ctx, claim, api.ClaimLost, nil, api.EventTypeWarning, ReasonClaimLost, messageLostVolume)
		return err
	}
	if err != nil {
		return fmt.Errorf("get volume %s from cache: %w", claim.Spec.VolumeName, err)
	}
	if pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID == claim.UID {
		// Either the volume came unbound (or its update is not in the cache
		// yet — the two look the same), or all is well; bind writes only
		// what differs.
		return c.bind(ctx, pv, claim)
	}
	_, err = c.updateClaimStatusWithEvent(ctx, claim, api.ClaimLost, nil, api.EventTypeWarning, ReasonClaimMisbound, messageMisbound)
	return err
}
