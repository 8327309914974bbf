package printers

import (
	"slices"
	"strings"
	"time"

	"kplane/pkg/api"
)

// This file prints PersistentVolumes and PersistentVolumeClaims.

// betaStorageClassAnnotation is the annotation that named a volume's storage
// class before spec.storageClassName existed; upstream still prefers it.
const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"

var persistentVolumeColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Capacity", "The volume's size."),
	text("Access Modes", "How the volume can be mounted: RWO, ROX, RWX, RWOP."),
	text("Reclaim Policy", "What happens to the volume when its claim is deleted: Retain, Delete or Recycle."),
	text("Status", "Available, Bound, Released or Failed; Terminating while being deleted."),
	text("Claim", "The namespace/name of the claim bound to the volume."),
	text("StorageClass", "The volume's storage class."),
	text("VolumeAttributesClass", "The volume's attributes class, or <unset>."),
	text("Reason", "Why the volume is in its phase, e.g. why it failed."),
	ageColumn,
	wide(text("VolumeMode", "Filesystem or Block, or <unset>.")),
}

// persistentVolumeCells is upstream's printPersistentVolume.
func persistentVolumeCells(pv *api.PersistentVolume, now time.Time) []any {
	claim := ""
	if ref := pv.Spec.ClaimRef; ref != nil {
		claim = ref.Namespace + "/" + ref.Name
	}
	phase := string(pv.Status.Phase)
	if pv.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	storageClass := pv.Spec.StorageClassName
	if class, ok := pv.Annotations[betaStorageClassAnnotation]; ok {
		storageClass = class
	}
	capacity := pv.Spec.Capacity[api.ResourceStorage] // a missing size prints as "0", as upstream
	return []any{
		pv.Name,
		capacity.String(),
		accessModes(pv.Spec.AccessModes),
		string(pv.Spec.PersistentVolumeReclaimPolicy),
		phase,
		claim,
		storageClass,
		stringOrUnset(pv.Spec.VolumeAttributesClassName),
		pv.Status.Reason,
		age(pv.CreationTimestamp, now),
		volumeMode(pv.Spec.VolumeMode),
	}
}

var persistentVolumeClaimColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Status", "Pending, Bound or Lost; Terminating while being deleted."),
	text("Volume", "The persistent volume the claim is bound to."),
	text("Capacity", "The bound volume's size."),
	text("Access Modes", "How the bound volume can be mounted: RWO, ROX, RWX, RWOP."),
	text("StorageClass", "The claim's storage class."),
	text("VolumeAttributesClass", "The claim's volume attributes class, or <unset>."),
	ageColumn,
	wide(text("VolumeMode", "Filesystem or Block, or <unset>.")),
}

// persistentVolumeClaimCells is upstream's printPersistentVolumeClaim:
// CAPACITY and ACCESS MODES describe the bound volume (from status), so they
// stay empty until spec.volumeName is set.
func persistentVolumeClaimCells(pvc *api.PersistentVolumeClaim, now time.Time) []any {
	phase := string(pvc.Status.Phase)
	if pvc.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	capacity, modes := "", ""
	if pvc.Spec.VolumeName != "" {
		size := pvc.Status.Capacity[api.ResourceStorage]
		capacity = size.String()
		modes = accessModes(pvc.Status.AccessModes)
	}
	storageClass := ""
	if pvc.Spec.StorageClassName != nil {
		storageClass = *pvc.Spec.StorageClassName
	}
	if class, ok := pvc.Annotations[betaStorageClassAnnotation]; ok {
		storageClass = class
	}
	return []any{
		pvc.Name,
		phase,
		pvc.Spec.VolumeName,
		capacity,
		modes,
		storageClass,
		stringOrUnset(pvc.Spec.VolumeAttributesClassName),
		age(pvc.CreationTimestamp, now),
		volumeMode(pvc.Spec.VolumeMode),
	}
}

// accessModeAbbreviations lists the access modes in the order upstream prints
// them, whatever order the object lists them in.
var accessModeAbbreviations = []struct {
	mode  api.PersistentVolumeAccessMode
	short string
}{
	{api.ReadWriteOnce, "RWO"},
	{api.ReadOnlyMany, "ROX"},
	{api.ReadWriteMany, "RWX"},
	{api.ReadWriteOncePod, "RWOP"},
}

// accessModes renders access modes as "RWO,RWX" (upstream's
// GetAccessModesAsString).
func accessModes(modes []api.PersistentVolumeAccessMode) string {
	var short []string
	for _, a := range accessModeAbbreviations {
		if slices.Contains(modes, a.mode) {
			short = append(short, a.short)
		}
	}
	return strings.Join(short, ",")
}

func volumeMode(mode *api.PersistentVolumeMode) string {
	if mode == nil {
		return unset
	}
	return string(*mode)
}

func stringOrUnset(s *string) string {
	if s == nil {
		return unset
	}
	return *s
}
