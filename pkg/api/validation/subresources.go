package validation

import (
	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// ValidatePodBinding checks the body of a pods/binding request, which is how
// the scheduler places a pod: the target must name a Node.
func ValidatePodBinding(b *api.Binding) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		allErrs = append(allErrs, errors.NotSupported("target.kind", b.Target.Kind, []string{"Node", "<empty>"}))
	}
	if b.Target.Name == "" {
		allErrs = append(allErrs, errors.Required("target.name", ""))
	}
	return allErrs
}

// ValidateScale checks a write to a scale subresource (kubectl scale, the
// HPA): the replica count may not be negative.
func ValidateScale(scale *api.Scale) errors.FieldErrorList {
	return validateNonnegative32(scale.Spec.Replicas, "spec.replicas")
}
