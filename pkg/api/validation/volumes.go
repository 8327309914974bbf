package validation

import (
	"fmt"
	"path"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// validateVolumes checks a pod's volumes and returns the set of their names,
// which containers' volumeMounts must come from. Each volume needs a unique
// DNS-label name and at most one source; a volume with none becomes an
// emptyDir when defaulted, as upstream.
func validateVolumes(volumes []api.Volume, fldPath string) (map[string]bool, errors.FieldErrorList) {
	var allErrs errors.FieldErrorList
	names := map[string]bool{}
	for i := range volumes {
		vol := &volumes[i]
		volPath := index(fldPath, i)
		namePath := child(volPath, "name")
		allErrs = append(allErrs, validateVolumeSource(&vol.VolumeSource, volPath)...)
		if vol.Name == "" {
			allErrs = append(allErrs, errors.Required(namePath, ""))
		} else {
			allErrs = append(allErrs, validateDNS1123Label(vol.Name, namePath)...)
		}
		if names[vol.Name] {
			allErrs = append(allErrs, errors.Duplicate(namePath, vol.Name))
		} else if vol.Name != "" {
			names[vol.Name] = true
		}
	}
	return names, allErrs
}

// validateVolumeSource checks that at most one source is set and that the
// one set is complete.
func validateVolumeSource(src *api.VolumeSource, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	set := 0
	// claim counts a source and reports every one after the first.
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
	if s := src.EmptyDir; s != nil && claim("emptyDir") {
		if s.Medium != api.StorageMediumDefault && s.Medium != api.StorageMediumMemory && s.Medium != "HugePages" {
			allErrs = append(allErrs, errors.NotSupported(child(fldPath, "emptyDir", "medium"), string(s.Medium), []string{"", "HugePages", "Memory"}))
		}
		if s.SizeLimit != nil {
			allErrs = append(allErrs, validateNonnegativeQuantity(*s.SizeLimit, child(fldPath, "emptyDir", "sizeLimit"))...)
		}
	}
	if s := src.Secret; s != nil && claim("secret") {
		p := child(fldPath, "secret")
		if s.SecretName == "" {
			allErrs = append(allErrs, errors.Required(child(p, "secretName"), ""))
		}
		allErrs = append(allErrs, validateKeyToPaths(s.Items, child(p, "items"))...)
		allErrs = append(allErrs, validateFileMode(s.DefaultMode, child(p, "defaultMode"))...)
	}
	if s := src.ConfigMap; s != nil && claim("configMap") {
		p := child(fldPath, "configMap")
		if s.Name == "" {
			allErrs = append(allErrs, errors.Required(child(p, "name"), ""))
		}
		allErrs = append(allErrs, validateKeyToPaths(s.Items, child(p, "items"))...)
		allErrs = append(allErrs, validateFileMode(s.DefaultMode, child(p, "defaultMode"))...)
	}
	if s := src.NFS; s != nil && claim("nfs") {
		p := child(fldPath, "nfs")
		if s.Server == "" {
			allErrs = append(allErrs, errors.Required(child(p, "server"), ""))
		}
		if s.Path == "" {
			allErrs = append(allErrs, errors.Required(child(p, "path"), ""))
		} else if !path.IsAbs(s.Path) {
			allErrs = append(allErrs, errors.Invalid(child(p, "path"), s.Path, "must be an absolute path"))
		}
	}
	if s := src.ISCSI; s != nil && claim("iscsi") {
		p := child(fldPath, "iscsi")
		if s.TargetPortal == "" {
			allErrs = append(allErrs, errors.Required(child(p, "targetPortal"), ""))
		}
		if s.IQN == "" {
			allErrs = append(allErrs, errors.Required(child(p, "iqn"), ""))
		}
	}
	if s := src.PersistentVolumeClaim; s != nil && claim("persistentVolumeClaim") {
		if s.ClaimName == "" {
			allErrs = append(allErrs, errors.Required(child(fldPath, "persistentVolumeClaim", "claimName"), ""))
		}
	}
	if s := src.DownwardAPI; s != nil && claim("downwardAPI") {
		allErrs = append(allErrs, validateDownwardAPIFiles(s.Items, child(fldPath, "downwardAPI", "items"))...)
		allErrs = append(allErrs, validateFileMode(s.DefaultMode, child(fldPath, "downwardAPI", "defaultMode"))...)
	}
	if src.FC != nil {
		claim("fc")
	}
	if s := src.Projected; s != nil && claim("projected") {
		allErrs = append(allErrs, validateProjectedSources(s.Sources, child(fldPath, "projected", "sources"))...)
	}
	if s := src.CSI; s != nil && claim("csi") {
		if s.Driver == "" {
			allErrs = append(allErrs, errors.Required(child(fldPath, "csi", "driver"), ""))
		}
	}
	if s := src.Ephemeral; s != nil && claim("ephemeral") {
		p := child(fldPath, "ephemeral", "volumeClaimTemplate")
		if s.VolumeClaimTemplate == nil {
			allErrs = append(allErrs, errors.Required(p, ""))
		} else {
			allErrs = append(allErrs, validatePersistentVolumeClaimSpec(&s.VolumeClaimTemplate.Spec, child(p, "spec"))...)
		}
	}
	if s := src.Image; s != nil && claim("image") {
		if s.Reference == "" {
			allErrs = append(allErrs, errors.Required(child(fldPath, "image", "reference"), ""))
		}
	}
	return allErrs
}

// validHostPathTypes are the checks a hostPath volume may ask for.
var validHostPathTypes = []string{
	string(api.HostPathUnset), string(api.HostPathBlockDev), string(api.HostPathCharDev), string(api.HostPathDirectory),
	string(api.HostPathDirectoryOrCreate), string(api.HostPathFile), string(api.HostPathFileOrCreate), string(api.HostPathSocket),
}

func validateHostPath(s *api.HostPathVolumeSource, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if s.Path == "" {
		allErrs = append(allErrs, errors.Required(child(fldPath, "path"), ""))
	}
	if s.Type != nil {
		valid := false
		for _, t := range validHostPathTypes {
			valid = valid || string(*s.Type) == t
		}
		if !valid {
			allErrs = append(allErrs, errors.NotSupported(child(fldPath, "type"), string(*s.Type), validHostPathTypes))
		}
	}
	return allErrs
}

// validateKeyToPaths checks the items of a ConfigMap or Secret volume: a key
// to read and a relative path to write it to.
func validateKeyToPaths(items []api.KeyToPath, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, item := range items {
		itemPath := index(fldPath, i)
		if item.Key == "" {
			allErrs = append(allErrs, errors.Required(child(itemPath, "key"), ""))
		}
		if item.Path == "" {
			allErrs = append(allErrs, errors.Required(child(itemPath, "path"), ""))
		} else {
			allErrs = append(allErrs, validateLocalDescendingPath(item.Path, child(itemPath, "path"))...)
		}
		allErrs = append(allErrs, validateFileMode(item.Mode, child(itemPath, "mode"))...)
	}
	return allErrs
}

func validateDownwardAPIFiles(files []api.DownwardAPIVolumeFile, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, file := range files {
		filePath := index(fldPath, i)
		if file.Path == "" {
			allErrs = append(allErrs, errors.Required(child(filePath, "path"), ""))
		} else {
			allErrs = append(allErrs, validateLocalDescendingPath(file.Path, child(filePath, "path"))...)
		}
		if (file.FieldRef == nil) == (file.ResourceFieldRef == nil) {
			allErrs = append(allErrs, errors.Invalid(filePath, "", "must specify one of: `fieldRef` or `resourceFieldRef`"))
		}
		allErrs = append(allErrs, validateFileMode(file.Mode, child(filePath, "mode"))...)
	}
	return allErrs
}

func validateProjectedSources(sources []api.VolumeProjection, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, src := range sources {
		srcPath := index(fldPath, i)
		count := 0
		if src.Secret != nil {
			count++
			allErrs = append(allErrs, validateKeyToPaths(src.Secret.Items, child(srcPath, "secret", "items"))...)
		}
		if src.ConfigMap != nil {
			count++
			allErrs = append(allErrs, validateKeyToPaths(src.ConfigMap.Items, child(srcPath, "configMap", "items"))...)
		}
		if src.DownwardAPI != nil {
			count++
			allErrs = append(allErrs, validateDownwardAPIFiles(src.DownwardAPI.Items, child(srcPath, "downwardAPI", "items"))...)
		}
		if t := src.ServiceAccountToken; t != nil {
			count++
			if t.Path == "" {
				allErrs = append(allErrs, errors.Required(child(srcPath, "serviceAccountToken", "path"), ""))
			}
			// A token must live at least 10 minutes: the kubelet refreshes it
			// at 80% of its lifetime.
			if t.ExpirationSeconds != nil && *t.ExpirationSeconds < 600 {
				allErrs = append(allErrs, errors.Invalid(child(srcPath, "serviceAccountToken", "expirationSeconds"), *t.ExpirationSeconds,
					"may not specify a duration less than 10 minutes"))
			}
		}
		if src.ClusterTrustBundle != nil {
			count++
		}
		if count > 1 {
			allErrs = append(allErrs, errors.Forbidden(srcPath, "may not specify more than 1 volume type per source"))
		}
	}
	return allErrs
}

// validateFileMode checks a file permission: 0 to 0777 octal.
func validateFileMode(mode *int32, fldPath string) errors.FieldErrorList {
	if mode == nil || (*mode >= 0 && *mode <= 0o777) {
		return nil
	}
	return errors.FieldErrorList{errors.Invalid(fldPath, *mode, fmt.Sprintf("must be a number between 0 and 0%o (octal), both inclusive", 0o777))}
}
