package persistentvolume

import (
	"cmp"
	"fmt"
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
)

// This file holds the pure part of binding: which volume fits which claim.
// It is upstream's findMatchingVolume (index.go and
// component-helpers/storage/volume) without the scheduler's node checks,
// written over a plain list instead of an index by access modes.

// The annotations upstream's binder writes and reads.
const (
	// annBindCompleted on a claim says its binding finished once; from
	// then on the claim is synced as bound (a missing volume makes it
	// Lost instead of Pending). Its value does not matter; upstream
	// writes "yes".
	annBindCompleted = "pv.kubernetes.io/bind-completed"
	// annBoundByController on a volume or a claim says the controller,
	// not the user, wrote the link (claimRef, volumeName). A link the
	// controller made it may undo; a user's pre-binding it only waits on.
	annBoundByController = "pv.kubernetes.io/bound-by-controller"
	// annBetaStorageClass named a class before spec.storageClassName
	// existed; upstream still reads it first, and so does kplane.
	annBetaStorageClass = "volume.beta.kubernetes.io/storage-class"
)

// claimClass is the storage class a claim asks for: the beta annotation if
// present, else spec.storageClassName, where unset means "" — no class.
// An unset class has already been replaced by the default StorageClass's
// name, if there is one, by the apiserver's DefaultStorageClass admission.
func claimClass(claim *api.PersistentVolumeClaim) string {
	if class, ok := claim.Annotations[annBetaStorageClass]; ok {
		return class
	}
	if claim.Spec.StorageClassName != nil {
		return *claim.Spec.StorageClassName
	}
	return ""
}

// volumeClass is the storage class a volume belongs to, read the same way.
func volumeClass(pv *api.PersistentVolume) string {
	if class, ok := pv.Annotations[annBetaStorageClass]; ok {
		return class
	}
	return pv.Spec.StorageClassName
}

// volumeModeOf treats an unset volumeMode as Filesystem, the API default.
func volumeModeOf(mode *api.PersistentVolumeMode) api.PersistentVolumeMode {
	if mode == nil {
		return api.PersistentVolumeFilesystem
	}
	return *mode
}

// claimKey is a claim's workqueue key, "namespace/name".
func claimKey(claim *api.PersistentVolumeClaim) string {
	return claim.Namespace + "/" + claim.Name
}

// claimRefKey is the key of the claim a volume's claimRef points at.
func claimRefKey(ref *api.ObjectReference) string {
	return ref.Namespace + "/" + ref.Name
}

// isVolumeBoundToClaim reports whether pv's claimRef names claim: same
// namespace and name, and, if the claimRef carries a UID, the same UID.
// A claimRef without a UID is a pre-binding (an admin reserving the volume
// for a claim by name, perhaps before it exists); one whose UID differs
// points at an earlier claim of the same name, which was deleted.
func isVolumeBoundToClaim(pv *api.PersistentVolume, claim *api.PersistentVolumeClaim) bool {
	ref := pv.Spec.ClaimRef
	if ref == nil || ref.Namespace != claim.Namespace || ref.Name != claim.Name {
		return false
	}
	return ref.UID == "" || ref.UID == claim.UID
}

// hasAccessModes reports whether pv offers every access mode claim asks
// for (it may offer more: a ReadWriteOnce claim fits a RWO+ROX volume).
func hasAccessModes(pv *api.PersistentVolume, claim *api.PersistentVolumeClaim) bool {
	for _, mode := range claim.Spec.AccessModes {
		if !slices.Contains(pv.Spec.AccessModes, mode) {
			return false
		}
	}
	return true
}

// volumeMismatch says why pv cannot serve claim, or "" when it can. It is
// the check for a volume the claim asked for by name (spec.volumeName):
// upstream's checkVolumeSatisfyClaim, whose reasons it reuses. The label
// selector is not checked there, as upstream does not either: naming the
// volume overrides it.
func volumeMismatch(pv *api.PersistentVolume, claim *api.PersistentVolumeClaim) string {
	if reason := volumeShortfall(pv, claim); reason != "" {
		return reason
	}
	if volumeClass(pv) != claimClass(claim) {
		return "storageClassName does not match"
	}
	return ""
}

// volumeShortfall says why pv cannot serve claim whoever chose it, or ""
// when it can: it is being deleted, too small, of another volumeMode, or
// lacks an access mode the claim asks for.
func volumeShortfall(pv *api.PersistentVolume, claim *api.PersistentVolumeClaim) string {
	requested := claim.Spec.Resources.Requests[api.ResourceStorage]
	size := pv.Spec.Capacity[api.ResourceStorage]
	switch {
	case pv.DeletionTimestamp != nil:
		return fmt.Sprintf("the volume is marked for deletion %q", pv.Name)
	case size.Cmp(requested) < 0:
		return "requested PV is too small"
	case volumeModeOf(pv.Spec.VolumeMode) != volumeModeOf(claim.Spec.VolumeMode):
		return "incompatible volumeMode"
	case !hasAccessModes(pv, claim):
		return "incompatible accessMode"
	}
	return ""
}

// volumeUnfit says why findBestVolume does not take pv for claim, or ""
// when pv fits; selector is the claim's. A volume pre-bound to the claim
// fits whatever its class or labels: the admin chose it.
func volumeUnfit(pv *api.PersistentVolume, claim *api.PersistentVolumeClaim, selector labels.Selector) string {
	if reason := volumeShortfall(pv, claim); reason != "" {
		return reason
	}
	switch {
	case isVolumeBoundToClaim(pv, claim):
		return ""
	case pv.Spec.ClaimRef != nil:
		return "claimed by " + claimRefKey(pv.Spec.ClaimRef)
	case volumeClass(pv) != claimClass(claim):
		return "storageClassName does not match"
	case !selector.Matches(pv.Labels):
		return "labels do not match the claim's selector"
	}
	return ""
}

// selectorOf is the claim's label selector, or Everything when it has
// none.
func selectorOf(claim *api.PersistentVolumeClaim) (labels.Selector, error) {
	if claim.Spec.Selector == nil {
		return labels.Everything(), nil
	}
	s, err := labels.FromLabelSelector(claim.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("selector of claim %s: %w", claimKey(claim), err)
	}
	return s, nil
}

// findBestVolume picks the volume claim should bind to among volumes, or
// nil when none fits. A volume fits when it is not being deleted, offers
// the claim's access modes, has its volumeMode and at least the storage it
// requests, and either
//
//   - is pre-bound to the claim (its claimRef names it): such a volume is
//     taken at once, whatever its class or labels — the admin chose it; or
//   - has no claimRef, is in the claim's storage class ("" matches only
//     volumes without a class) and carries labels the claim's selector
//     matches.
//
// Of the unclaimed volumes that fit, the one with the fewest access modes
// wins, then the smallest, then the first by name: the claim gets what is
// closest to what it asked for and leaves bigger, more capable volumes to
// claims that need them. Upstream orders by access modes and size too; the
// name is kplane's tie-break, so that equal volumes are handed out in a
// predictable order (pv001 before pv002).
func findBestVolume(claim *api.PersistentVolumeClaim, volumes []*api.PersistentVolume) (*api.PersistentVolume, error) {
	selector, err := selectorOf(claim)
	if err != nil {
		return nil, err
	}
	var best *api.PersistentVolume
	for _, pv := range volumes {
		if volumeUnfit(pv, claim, selector) != "" {
			continue
		}
		if isVolumeBoundToClaim(pv, claim) {
			return pv, nil
		}
		if best == nil || closerFit(pv, best) {
			best = pv
		}
	}
	return best, nil
}

// closerFit reports whether volume a is a closer fit than b: fewer access
// modes, then less storage, then the earlier name.
func closerFit(a, b *api.PersistentVolume) bool {
	if c := cmp.Compare(len(a.Spec.AccessModes), len(b.Spec.AccessModes)); c != 0 {
		return c < 0
	}
	sizeA, sizeB := a.Spec.Capacity[api.ResourceStorage], b.Spec.Capacity[api.ResourceStorage]
	if c := sizeA.Cmp(sizeB); c != 0 {
		return c < 0
	}
	return a.Name < b.Name
}
