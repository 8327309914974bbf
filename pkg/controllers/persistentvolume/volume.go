package persistentvolume

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// This file is the volume side: upstream's syncVolume and reclaimVolume.
// A volume sync never chooses a claim; it keeps the volume's phase true and
// carries out the reclaim policy once its claim is gone.

// syncVolume makes one step for a volume:
//
//   - no claimRef, or a claimRef without a UID (reserved for a claim that
//     has not bound yet): Available;
//   - its claim exists with the claimRef's UID and names the volume back:
//     Bound;
//   - its claim exists but has no volumeName yet: a binding is under way,
//     the claim is queued to finish it;
//   - its claim names another volume: the link is undone (the controller's
//     own) or just its UID cleared (a user's pre-binding), and the volume is
//     Available again;
//   - its claim is gone (or replaced by a new claim of the same name):
//     Released, and the reclaim policy runs.
func (c *Controller) syncVolume(ctx context.Context, pv *api.PersistentVolume) error {
	ref := pv.Spec.ClaimRef
	if ref == nil || ref.UID == "" {
		_, err := c.updateVolumePhase(ctx, pv, api.VolumeAvailable, "")
		return err
	}
	claim, err := c.claimOf(ctx, ref)
	if err != nil {
		return err
	}
	if claim != nil && claim.UID != ref.UID {
		// The claim the volume was bound to was deleted and another of the
		// same name created: that one is a stranger to this volume.
		claim = nil
	}
	switch {
	case claim == nil:
		if pv.Status.Phase != api.VolumeReleased && pv.Status.Phase != api.VolumeFailed {
			// Failed is kept, so that the user sees what went wrong.
			c.log.Info("volume released; running its reclaim policy", "volume", pv.Name,
				"claim", claimRefKey(ref), "reclaimPolicy", pv.Spec.PersistentVolumeReclaimPolicy)
			if pv, err = c.updateVolumePhase(ctx, pv, api.VolumeReleased, ""); err != nil {
				return err
			}
		}
		return c.reclaimVolume(ctx, pv)
	case claim.Spec.VolumeName == "":
		// The volume points at the claim, the claim not yet back: the claim
		// sync finishes the binding (or re-establishes one a user cut).
		c.claimQueue.Add(claimKey(claim))
		return nil
	case claim.Spec.VolumeName == pv.Name:
		_, err := c.updateVolumePhase(ctx, pv, api.VolumeBound, "")
		return err
	default:
		// The claim got bound to another volume (two binders raced, or the
		// user pointed it elsewhere): give this one back.
		c.log.Info("claim is bound to another volume; unbinding", "volume", pv.Name,
			"claim", claimKey(claim), "claimVolume", claim.Spec.VolumeName)
		return c.unbindVolume(ctx, pv)
	}
}

// claimOf returns the claim ref points at, or nil if there is none. A
// claim missing from the cache is looked up on the apiserver before the
// volume is declared Released: a cache that lags behind (a claim created a
// moment ago, a controller that just started) must not release — and with
// policy Delete, delete — a volume whose claim exists.
func (c *Controller) claimOf(ctx context.Context, ref *api.ObjectReference) (*api.PersistentVolumeClaim, error) {
	claim, err := c.claimLister.Namespace(ref.Namespace).Get(ref.Name)
	if err == nil {
		return claim, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("get claim %s from cache: %w", claimRefKey(ref), err)
	}
	claim, err = c.client.PersistentVolumeClaims(ref.Namespace).Get(ctx, ref.Name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get claim %s: %w", claimRefKey(ref), err)
	}
	return claim, nil
}

// reclaimVolume carries out a released volume's reclaim policy.
//
//   - Retain: nothing. The volume stays Released, with its claimRef, until
//     an admin deletes it or removes the claimRef to offer it again; its
//     data is kept for whoever needs it.
//   - Delete: the PersistentVolume object is deleted. Upstream first asks
//     the volume plugin to delete the storage; kplane's volumes have none
//     (containers are simulated), so only the object goes.
//   - Recycle: deprecated upstream (it scrubs the files with a helper pod
//     and offers the volume again); kplane treats it as Retain.
func (c *Controller) reclaimVolume(ctx context.Context, pv *api.PersistentVolume) error {
	switch pv.Spec.PersistentVolumeReclaimPolicy {
	case api.PersistentVolumeReclaimRetain, api.PersistentVolumeReclaimRecycle:
		c.recordReclaim(pv, "keep it and its data, Released, until an admin deletes it or frees its claimRef")
		return nil
	case api.PersistentVolumeReclaimDelete:
		// The UID precondition keeps a new volume of the same name safe.
		c.recordReclaim(pv, "delete the PersistentVolume")
		uid := pv.UID
		err := c.client.PersistentVolumes().Delete(ctx, pv.Name, client.DeleteOptions{Preconditions: &api.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete released volume %s: %w", pv.Name, err)
		}
		if err == nil {
			c.log.Info("deleted released volume", "volume", pv.Name)
		}
		return nil
	default:
		_, err := c.updateVolumePhaseWithEvent(ctx, pv, api.VolumeFailed, api.EventTypeWarning,
			ReasonVolumeUnknownReclaimPolicy, "Volume has unrecognized PersistentVolumeReclaimPolicy")
		return err
	}
}
