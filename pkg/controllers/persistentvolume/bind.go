package persistentvolume

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// This file holds the writes. Each one compares first and writes only what
// differs, so a sync that finds everything in place makes no request, and
// each passes on the object the apiserver returned, so that the next write
// carries its fresh resourceVersion. Objects from the caches are never
// modified: every write starts from a copy.

// bind links pv and claim in upstream's order — the volume's claimRef, the
// volume's phase, the claim's volumeName, the claim's status — and returns
// at the first error; the next sync of either object picks up from there,
// because the volume already points at the claim (isVolumeBoundToClaim).
func (c *Controller) bind(ctx context.Context, pv *api.PersistentVolume, claim *api.PersistentVolumeClaim) error {
	pv, err := c.bindVolumeToClaim(ctx, pv, claim)
	if err != nil {
		return err
	}
	if pv, err = c.updateVolumePhase(ctx, pv, api.VolumeBound, ""); err != nil {
		return err
	}
	if claim, err = c.bindClaimToVolume(ctx, claim, pv); err != nil {
		return err
	}
	_, err = c.updateClaimStatus(ctx, claim, api.ClaimBound, pv)
	return err
}

// claimReference is the claimRef a bound volume carries: the claim's kind,
// namespace, name, UID and the resourceVersion it was bound at.
func claimReference(claim *api.PersistentVolumeClaim) *api.ObjectReference {
	return &api.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
		Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID, ResourceVersion: claim.ResourceVersion}
}

// bindVolumeToClaim points pv's claimRef at claim. A volume that did not
// already name the claim also gets bound-by-controller: the controller
// chose it, so the controller may undo it.
func (c *Controller) bindVolumeToClaim(ctx context.Context, pv *api.PersistentVolume, claim *api.PersistentVolumeClaim) (*api.PersistentVolume, error) {
	chosenByController := !isVolumeBoundToClaim(pv, claim)
	ref := pv.Spec.ClaimRef
	setRef := ref == nil || ref.Namespace != claim.Namespace || ref.Name != claim.Name || ref.UID != claim.UID
	_, annotated := pv.Annotations[annBoundByController]
	setAnnotation := chosenByController && !annotated
	if !setRef && !setAnnotation {
		return pv, nil
	}
	updated := api.DeepCopy(pv)
	if setRef {
		updated.Spec.ClaimRef = claimReference(claim)
	}
	if setAnnotation {
		updated.Annotations = withAnnotation(updated.Annotations, annBoundByController)
	}
	out, err := c.client.PersistentVolumes().Update(ctx, updated, client.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("bind volume %s to claim %s: %w", pv.Name, claimKey(claim), err)
	}
	c.log.Info("volume bound to claim", "volume", pv.Name, "claim", claimKey(claim))
	return out, nil
}

// bindClaimToVolume sets claim's volumeName to pv and marks the binding
// completed; bound-by-controller too when the claim had not named the
// volume itself.
func (c *Controller) bindClaimToVolume(ctx context.Context, claim *api.PersistentVolumeClaim, pv *api.PersistentVolume) (*api.PersistentVolumeClaim, error) {
	chosenByController := claim.Spec.VolumeName != pv.Name
	_, annotated := claim.Annotations[annBoundByController]
	_, completed := claim.Annotations[annBindCompleted]
	setAnnotation := chosenByController && !annotated
	if !chosenByController && completed {
		return claim, nil
	}
	updated := api.DeepCopy(claim)
	updated.Spec.VolumeName = pv.Name
	if setAnnotation {
		updated.Annotations = withAnnotation(updated.Annotations, annBoundByController)
	}
	updated.Annotations = withAnnotation(updated.Annotations, annBindCompleted)
	out, err := c.client.PersistentVolumeClaims(claim.Namespace).Update(ctx, updated, client.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("bind claim %s to volume %s: %w", claimKey(claim), pv.Name, err)
	}
	c.log.Info("claim bound to volume", "claim", claimKey(claim), "volume", pv.Name)
	return out, nil
}

// withAnnotation returns annotations with key set to "yes", the value
// upstream writes (only the key's presence is ever read).
func withAnnotation(annotations map[string]string, key string) map[string]string {
	out := maps.Clone(annotations)
	if out == nil {
		out = map[string]string{}
	}
	out[key] = "yes"
	return out
}

// unbindVolume undoes pv's binding and makes it Available. A binding the
// controller made is removed entirely; a user's pre-binding keeps its
// claim name and loses only the UID, so the volume stays reserved for a
// claim of that name.
func (c *Controller) unbindVolume(ctx context.Context, pv *api.PersistentVolume) error {
	updated := api.DeepCopy(pv)
	if _, byController := pv.Annotations[annBoundByController]; byController {
		updated.Spec.ClaimRef = nil
		delete(updated.Annotations, annBoundByController)
		if len(updated.Annotations) == 0 {
			updated.Annotations = nil
		}
	} else {
		updated.Spec.ClaimRef.UID = ""
	}
	out, err := c.client.PersistentVolumes().Update(ctx, updated, client.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("unbind volume %s: %w", pv.Name, err)
	}
	_, err = c.updateVolumePhase(ctx, out, api.VolumeAvailable, "")
	return err
}

// updateVolumePhase writes pv's status.phase (and message) when it
// differs, stamping lastPhaseTransitionTime as upstream does since 1.29.
func (c *Controller) updateVolumePhase(ctx context.Context, pv *api.PersistentVolume, phase api.PersistentVolumePhase, message string) (*api.PersistentVolume, error) {
	if pv.Status.Phase == phase {
		return pv, nil
	}
	updated := api.DeepCopy(pv)
	updated.Status.Phase = phase
	updated.Status.Message = message
	now := api.NewTime(c.clock.Now().UTC().Truncate(time.Second))
	updated.Status.LastPhaseTransitionTime = &now
	out, err := c.client.PersistentVolumes().UpdateStatus(ctx, updated, client.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("set phase of volume %s to %s: %w", pv.Name, phase, err)
	}
	c.log.Info("volume entered phase", "volume", pv.Name, "phase", phase)
	return out, nil
}

// updateVolumePhaseWithEvent is updateVolumePhase plus an event on the
// volume, recorded only when the phase actually changes.
func (c *Controller) updateVolumePhaseWithEvent(ctx context.Context, pv *api.PersistentVolume, phase api.PersistentVolumePhase,
	eventType, reason, message string) (*api.PersistentVolume, error) {
	if pv.Status.Phase == phase {
		return pv, nil
	}
	out, err := c.updateVolumePhase(ctx, pv, phase, message)
	if err != nil {
		return nil, err
	}
	c.recorder.Event(out, eventType, reason, message)
	return out, nil
}

// updateClaimStatus writes claim's phase, and the access modes and
// capacity it got: pv's when bound, none without a volume. It writes only
// when something differs.
func (c *Controller) updateClaimStatus(ctx context.Context, claim *api.PersistentVolumeClaim, phase api.PersistentVolumeClaimPhase, pv *api.PersistentVolume) (*api.PersistentVolumeClaim, error) {
	var modes []api.PersistentVolumeAccessMode
	var capacity api.ResourceList
	if pv != nil {
		modes = pv.Spec.AccessModes
		capacity = pv.Spec.Capacity
	}
	if claim.Status.Phase == phase && slices.Equal(claim.Status.AccessModes, modes) && sameCapacity(claim.Status.Capacity, capacity) {
		return claim, nil
	}
	updated := api.DeepCopy(claim)
	updated.Status.Phase = phase
	updated.Status.AccessModes = slices.Clone(modes)
	updated.Status.Capacity = maps.Clone(capacity)
	out, err := c.client.PersistentVolumeClaims(claim.Namespace).UpdateStatus(ctx, updated, client.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("set phase of claim %s to %s: %w", claimKey(claim), phase, err)
	}
	if claim.Status.Phase != phase {
		c.log.Info("claim entered phase", "claim", claimKey(claim), "phase", phase)
	}
	return out, nil
}

// sameCapacity compares two resource lists by quantity, so that "1Gi" and
// "1073741824" are equal.
func sameCapacity(a, b api.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, qa := range a {
		qb, ok := b[name]
		if !ok || qa.Cmp(qb) != 0 {
			return false
		}
	}
	return true
}

// updateClaimStatusWithEvent is updateClaimStatus plus an event on the
// claim, both only when the phase changes (a Lost claim is told once).
func (c *Controller) updateClaimStatusWithEvent(ctx context.Context, claim *api.PersistentVolumeClaim, phase api.PersistentVolumeClaimPhase,
	pv *api.PersistentVolume, eventType, reason, message string) (*api.PersistentVolumeClaim, error) {
	if claim.Status.Phase == phase {
		return claim, nil
	}
	out, err := c.updateClaimStatus(ctx, claim, phase, pv)
	if err != nil {
		return nil, err
	}
	c.recorder.Event(out, eventType, reason, message)
	return out, nil
}
