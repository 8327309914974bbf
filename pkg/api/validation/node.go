package validation

import (
	"net"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// validateNode checks a Node: a cluster-scoped object named as a DNS
// subdomain (usually the host name), with valid pod CIDRs and taints.
func validateNode(node *api.Node) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&node.ObjectMeta, false, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateNodeSpec(&node.Spec)...)
}

// validateNodeUpdate checks an update. The pod CIDRs, once assigned, stay:
// pods already have addresses from them.
func validateNodeUpdate(node, old *api.Node) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&node.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validateNodeSpec(&node.Spec)...)
	if old.Spec.PodCIDR != "" && node.Spec.PodCIDR != old.Spec.PodCIDR {
		allErrs = append(allErrs, errors.Forbidden("spec.podCIDR", "node updates may not change podCIDR except from \"\" to valid"))
	}
	if len(old.Spec.PodCIDRs) > 0 && !semanticEqual(node.Spec.PodCIDRs, old.Spec.PodCIDRs) {
		allErrs = append(allErrs, errors.Forbidden("spec.podCIDRs", "node updates may not change podCIDR except from \"\" to valid"))
	}
	if old.Spec.ProviderID != "" && node.Spec.ProviderID != old.Spec.ProviderID {
		allErrs = append(allErrs, errors.Forbidden("spec.providerID", "node updates may not change providerID except from \"\" to valid"))
	}
	return allErrs
}

func validateNodeSpec(spec *api.NodeSpec) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if spec.PodCIDR != "" {
		if _, _, err := net.ParseCIDR(spec.PodCIDR); err != nil {
			allErrs = append(allErrs, errors.Invalid("spec.podCIDR", spec.PodCIDR, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"))
		}
	}
	for i, cidr := range spec.PodCIDRs {
		if _, _, err := net.ParseCIDR(cidr); err != nil {
			allErrs = append(allErrs, errors.Invalid(index("spec.podCIDRs", i), cidr, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"))
		}
	}
	return append(allErrs, validateTaints(spec.Taints, "spec.taints")...)
}

// validateTaints checks a node's taints: qualified keys, valid values and
// effects, and at most one taint per key and effect.
func validateTaints(taints []api.Taint, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	seen := map[string]bool{}
	for i, taint := range taints {
		taintPath := index(fldPath, i)
		allErrs = append(allErrs, ValidateLabelName(taint.Key, child(taintPath, "key"))...)
		for _, msg := range IsValidLabelValue(taint.Value) {
			allErrs = append(allErrs, errors.Invalid(child(taintPath, "value"), taint.Value, msg))
		}
		allErrs = append(allErrs, validateTaintEffect(taint.Effect, false, child(taintPath, "effect"))...)
		pair := taint.Key + "/" + string(taint.Effect)
		if seen[pair] {
			allErrs = append(allErrs, errors.Duplicate(taintPath, taint.Key+"="+taint.Value+":"+string(taint.Effect)))
			continue
		}
		seen[pair] = true
	}
	return allErrs
}
