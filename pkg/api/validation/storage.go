package validation

import (
	"path"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// supportedAccessModes are the ways a volume can be mounted, sorted as
// upstream lists them.
var supportedAccessModes = []string{
	string(api.ReadOnlyMany), string(api.ReadWriteMany), string(api.ReadWriteOnce), string(api.ReadWriteOncePod),
}

var supportedVolumeModes = []string{string(api.PersistentVolumeBlock), string(api.PersistentVolumeFilesystem)}

// validateAccessModes checks a list of access modes. ReadWriteOncePod (one
// pod on one node) cannot be combined with looser modes.
func validateAccessModes(modes []api.PersistentVolumeAccessMode, fldPath, requiredDetail string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if len(modes) == 0 {
		allErrs = append(allErrs, errors.Required(fldPath, requiredDetail))
	}
	oncePod := false
	for _, mode := range modes {
		switch mode {
		case api.ReadWriteOnce, api.ReadOnlyMany, api.ReadWriteMany:
		case api.ReadWriteOncePod:
			oncePod = true
		default:
			allErrs = append(allErrs, errors.NotSupported(fldPath, string(mode), supportedAccessModes))
		}
	}
	if oncePod && len(modes) > 1 {
		allErrs = append(allErrs, errors.Forbidden(fldPath, "may not use ReadWriteOncePod with other access modes"))
	}
	return allErrs
}

func validateVolumeMode(mode *api.PersistentVolumeMode, fldPath string) errors.FieldErrorList {
	if mode == nil || *mode == api.PersistentVolumeBlock || *mode == api.PersistentVolumeFilesystem {
		return nil
	}
	return errors.FieldErrorList{errors.NotSupported(fldPath, string(*mode), supportedVolumeModes)}
}

// validatePersistentVolume checks a PersistentVolume: a storage capacity
// (and nothing else), at least one access mode, and exactly one source.
func validatePersistentVolume(pv *api.PersistentVolume) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&pv.ObjectMeta, false, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validatePersistentVolumeSpec(&pv.Spec)...)
}

func validatePersistentVolumeSpec(spec *api.PersistentVolumeSpec) errors.FieldErrorList {
	allErrs := validateAccessModes(spec.AccessModes, "spec.accessModes", "")

	if len(spec.Capacity) == 0 {
		allErrs = append(allErrs, errors.Required("spec.capacity", ""))
	} else if _, ok := spec.Capacity[api.ResourceStorage]; !ok || len(spec.Capacity) > 1 {
		allErrs = append(allErrs, errors.NotSupported("spec.capacity", spec.Capacity, []string{api.ResourceStorage}))
	}
	for _, name := range sortedKeys(spec.Capacity) {
		allErrs = append(allErrs, validatePositiveQuantity(spec.Capacity[name], key("spec.capacity", name))...)
	}

	allErrs = append(allErrs, validatePersistentVolumeSource(&spec.PersistentVolumeSource, spec.NodeAffinity != nil, "spec")...)

	switch spec.PersistentVolumeReclaimPolicy {
	case "", api.PersistentVolumeReclaimDelete, api.PersistentVolumeReclaimRecycle, api.PersistentVolumeReclaimRetain:
	default:
		allErrs = append(allErrs, errors.NotSupported("spec.persistentVolumeReclaimPolicy", string(spec.PersistentVolumeReclaimPolicy),
			[]string{string(api.PersistentVolumeReclaimDelete), string(api.PersistentVolumeReclaimRecycle), string(api.PersistentVolumeReclaimRetain)}))
	}
	// Recycling scrubs the volume's files: never on the node's root.
	if spec.HostPath != nil && path.Clean(spec.HostPath.Path) == "/" && spec.PersistentVolumeReclaimPolicy == api.PersistentVolumeReclaimRecycle {
		allErrs = append(allErrs, errors.Forbidden("spec.persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'"))
	}
	allErrs = append(allErrs, validateDNS1123SubdomainIfSet(spec.StorageClassName, "spec.storageClassName")...)
	allErrs = append(allErrs, validateVolumeMode(spec.VolumeMode, "spec.volumeMode")...)
	if spec.NodeAffinity != nil && spec.NodeAffinity.Required != nil {
		allErrs = append(allErrs, validateNodeSelector(spec.NodeAffinity.Required, "spec.nodeAffinity.required")...)
	}
	return allErrs
}

// validatePersistentVolumeSource checks that exactly one source is set.
func validatePersistentVolumeSource(src *api.PersistentVolumeSource, hasNodeAffinity bool, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	set := 0
	claim := func(name string) bool {
		set++
		if set > 1 {
			allErrs = append(allErrs, errors.Forbidden(child(fldPath, name), "may not specify more than 1 volume type"))
			return false
		}
		return true
	}
	if s := src.HostPath; s != nil && claim("hostPath") {
		allErrs = append(allErrs, validateHostPath(s, child(fldPath, "hostPath"))...)
	}
	if s := src.NFS; s != nil && claim("nfs") {
		allErrs = append(allErrs, validateVolumeSource(&api.VolumeSource{NFS: s}, fldPath)...)
	}
	if s := src.ISCSI; s != nil && claim("iscsi") {
		allErrs = append(allErrs, validateVolumeSource(&api.VolumeSource{ISCSI: s}, fldPath)...)
	}
	if src.FC != nil {
		claim("fc")
	}
	if s := src.Local; s != nil && claim("local") {
		if s.Path == "" {
			allErrs = append(allErrs, errors.Required(child(fldPath, "local", "path"), ""))
		}
		// A local volume exists on one node only; the scheduler learns which
		// from the node affinity.
		if !hasNodeAffinity {
			allErrs = append(allErrs, errors.Required(child(fldPath, "nodeAffinity"), "Local volume requires node affinity"))
		}
	}
	if s := src.CSI; s != nil && claim("csi") {
		if s.Driver == "" {
			allErrs = append(allErrs, errors.Required(child(fldPath, "csi", "driver"), ""))
		}
		if s.VolumeHandle == "" {
			allErrs = append(allErrs, errors.Required(child(fldPath, "csi", "volumeHandle"), ""))
		}
	}
	if set == 0 {
		allErrs = append(allErrs, errors.Required(fldPath, "must specify a volume type"))
	}
	return allErrs
}

// validatePersistentVolumeUpdate lets everything but the storage itself
// change: the binder writes claimRef, admins change the reclaim policy.
func validatePersistentVolumeUpdate(pv, old *api.PersistentVolume) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&pv.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validatePersistentVolumeSpec(&pv.Spec)...)
	if !semanticEqual(pv.Spec.PersistentVolumeSource, old.Spec.PersistentVolumeSource) {
		allErrs = append(allErrs, errors.Forbidden("spec.persistentvolumesource", "spec.persistentvolumesource is immutable after creation"+
			changedFields(old.Spec.PersistentVolumeSource, pv.Spec.PersistentVolumeSource, "spec")))
	}
	allErrs = append(allErrs, ValidateImmutableField(pv.Spec.VolumeMode, old.Spec.VolumeMode, "spec.volumeMode")...)
	if old.Spec.NodeAffinity != nil {
		allErrs = append(allErrs, ValidateImmutableField(pv.Spec.NodeAffinity, old.Spec.NodeAffinity, "spec.nodeAffinity")...)
	}
	return allErrs
}

// validatePersistentVolumeClaim checks a claim being created.
func validatePersistentVolumeClaim(pvc *api.PersistentVolumeClaim) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&pvc.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validatePersistentVolumeClaimSpec(&pvc.Spec, "spec")...)
}

// validatePersistentVolumeClaimSpec checks what a claim asks for: at least
// one access mode and a positive storage request.
func validatePersistentVolumeClaimSpec(spec *api.PersistentVolumeClaimSpec, fldPath string) errors.FieldErrorList {
	allErrs := validateAccessModes(spec.AccessModes, child(fldPath, "accessModes"), "at least 1 access mode is required")
	allErrs = append(allErrs, ValidateLabelSelector(spec.Selector, child(fldPath, "selector"))...)
	storagePath := key(child(fldPath, "resources", "requests"), api.ResourceStorage)
	if storage, ok := spec.Resources.Requests[api.ResourceStorage]; !ok {
		allErrs = append(allErrs, errors.Required(storagePath, ""))
	} else {
		allErrs = append(allErrs, validatePositiveQuantity(storage, storagePath)...)
	}
	if spec.StorageClassName != nil {
		allErrs = append(allErrs, validateDNS1123SubdomainIfSet(*spec.StorageClassName, child(fldPath, "storageClassName"))...)
	}
	allErrs = append(allErrs, validateVolumeMode(spec.VolumeMode, child(fldPath, "volumeMode"))...)
	return allErrs
}

// validatePersistentVolumeClaimUpdate keeps a claim's spec fixed, as quota
// and limits were checked against it, with the exceptions upstream makes:
// the binder may set volumeName once, a missing storageClassName may be
// filled in, and a bound claim may grow (never shrink) its storage request.
func validatePersistentVolumeClaimUpdate(pvc, old *api.PersistentVolumeClaim) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&pvc.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validatePersistentVolumeClaimSpec(&pvc.Spec, "spec")...)

	oldSpec, newSpec := old.Spec, pvc.Spec
	if oldSpec.VolumeName == "" {
		oldSpec.VolumeName = newSpec.VolumeName
	}
	if oldSpec.StorageClassName == nil {
		oldSpec.StorageClassName = newSpec.StorageClassName
	}
	oldSpec.VolumeAttributesClassName = newSpec.VolumeAttributesClassName
	oldSize := old.Spec.Resources.Requests[api.ResourceStorage]
	newSize := pvc.Spec.Resources.Requests[api.ResourceStorage]
	if old.Status.Phase == api.ClaimBound {
		oldSpec.Resources.Requests = copyResourceList(oldSpec.Resources.Requests)
		if _, ok := newSpec.Resources.Requests[api.ResourceStorage]; ok {
			oldSpec.Resources.Requests[api.ResourceStorage] = newSize
		}
	}
	if !semanticEqual(newSpec, oldSpec) {
		allErrs = append(allErrs, errors.Forbidden("spec", "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"+
			changedFields(oldSpec, newSpec, "spec")))
	}
	if newSize.Cmp(oldSize) < 0 {
		allErrs = append(allErrs, errors.Forbidden("spec.resources.requests.storage", "field can not be less than previous value"))
	}
	return allErrs
}

func copyResourceList(list api.ResourceList) api.ResourceList {
	out := make(api.ResourceList, len(list))
	for k, v := range list {
		out[k] = v
	}
	return out
}
