package validation

import (
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// supportedReclaimPolicies and supportedBindingModes are what a
// StorageClass may name, as upstream lists them.
var (
	supportedReclaimPolicies = []string{string(api.PersistentVolumeReclaimDelete), string(api.PersistentVolumeReclaimRetain)}
	supportedBindingModes    = []string{string(api.VolumeBindingImmediate), string(api.VolumeBindingWaitForFirstConsumer)}
)

// Upstream's limits on a class's parameters: at most 512 of them, and
// 256 kB of keys and values together.
const (
	maxProvisionerParameters    = 512
	maxProvisionerParameterSize = 256 * (1 << 10)
)

// validateStorageClass checks a StorageClass being created, with
// upstream's messages: a provisioner that is a qualified name
// ("kplane.io/hostpath"), parameters within bounds, a reclaim policy and
// binding mode from the supported lists, and well-formed allowed
// topologies.
func validateStorageClass(class *api.StorageClass) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&class.ObjectMeta, false, NameIsDNSSubdomain, "metadata")
	allErrs = append(allErrs, validateProvisioner(class.Provisioner)...)
	allErrs = append(allErrs, validateProvisionerParameters(class.Parameters)...)
	if class.ReclaimPolicy != nil && *class.ReclaimPolicy != "" &&
		*class.ReclaimPolicy != api.PersistentVolumeReclaimDelete && *class.ReclaimPolicy != api.PersistentVolumeReclaimRetain {
		allErrs = append(allErrs, errors.NotSupported("reclaimPolicy", string(*class.ReclaimPolicy), supportedReclaimPolicies))
	}
	switch {
	case class.VolumeBindingMode == nil:
		allErrs = append(allErrs, errors.Required("volumeBindingMode", ""))
	case *class.VolumeBindingMode != api.VolumeBindingImmediate && *class.VolumeBindingMode != api.VolumeBindingWaitForFirstConsumer:
		allErrs = append(allErrs, errors.NotSupported("volumeBindingMode", string(*class.VolumeBindingMode), supportedBindingModes))
	}
	return append(allErrs, validateAllowedTopologies(class.AllowedTopologies, "allowedTopologies")...)
}

// validateStorageClassUpdate lets only the metadata and
// allowVolumeExpansion change: volumes already made from the class were
// made with its provisioner, parameters, policy and mode.
func validateStorageClassUpdate(class, old *api.StorageClass) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&class.ObjectMeta, &old.ObjectMeta, "metadata")
	if !semanticEqual(class.Parameters, old.Parameters) {
		allErrs = append(allErrs, errors.Forbidden("parameters", "updates to parameters are forbidden."))
	}
	if class.Provisioner != old.Provisioner {
		allErrs = append(allErrs, errors.Forbidden("provisioner", "updates to provisioner are forbidden."))
	}
	if !semanticEqual(class.ReclaimPolicy, old.ReclaimPolicy) {
		allErrs = append(allErrs, errors.Forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
	}
	return append(allErrs, ValidateImmutableField(class.VolumeBindingMode, old.VolumeBindingMode, "volumeBindingMode")...)
}

// validateProvisioner checks that a provisioner's name is set and, in
// lower case, a qualified name.
func validateProvisioner(provisioner string) errors.FieldErrorList {
	if provisioner == "" {
		return errors.FieldErrorList{errors.Required("provisioner", "")}
	}
	var allErrs errors.FieldErrorList
	for _, msg := range IsQualifiedName(strings.ToLower(provisioner)) {
		allErrs = append(allErrs, errors.Invalid("provisioner", provisioner, msg))
	}
	return allErrs
}

// validateProvisionerParameters checks the number and total size of a
// class's parameters, and that no key is empty.
func validateProvisionerParameters(params map[string]string) errors.FieldErrorList {
	if len(params) > maxProvisionerParameters {
		return errors.FieldErrorList{errors.TooMany("parameters", len(params), maxProvisionerParameters)}
	}
	var allErrs errors.FieldErrorList
	size := 0
	for _, k := range sortedKeys(params) {
		if k == "" {
			allErrs = append(allErrs, errors.Invalid("parameters", k, "field can not be empty."))
		}
		size += len(k) + len(params[k])
	}
	if size > maxProvisionerParameterSize {
		allErrs = append(allErrs, tooLong("parameters", maxProvisionerParameterSize))
	}
	return allErrs
}

// validateAllowedTopologies checks each term of allowedTopologies: at
// least one requirement, keys that are label names, at least one value,
// no value twice, no term twice.
func validateAllowedTopologies(terms []api.TopologySelectorTerm, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, term := range terms {
		termPath := index(fldPath, i)
		if len(term.MatchLabelExpressions) == 0 {
			allErrs = append(allErrs, errors.Required(termPath, "must have at least one label requirement"))
		}
		for j, req := range term.MatchLabelExpressions {
			reqPath := index(child(termPath, "matchLabelExpressions"), j)
			allErrs = append(allErrs, ValidateLabelName(req.Key, child(reqPath, "key"))...)
			if len(req.Values) == 0 {
				allErrs = append(allErrs, errors.Required(child(reqPath, "values"), "must specify as least one value"))
			}
			seen := map[string]bool{}
			for k, v := range req.Values {
				if seen[v] {
					allErrs = append(allErrs, errors.Duplicate(index(child(reqPath, "values"), k), v))
				}
				seen[v] = true
			}
		}
		for _, earlier := range terms[:i] {
			if semanticEqual(earlier, term) {
				allErrs = append(allErrs, errors.Duplicate(termPath, term))
				break
			}
		}
	}
	return allErrs
}
