package validation

import (
	"fmt"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// isStandardContainerResource reports whether name is a resource a container
// may request without a domain prefix.
func isStandardContainerResource(name string) bool {
	switch name {
	case api.ResourceCPU, api.ResourceMemory, api.ResourceEphemeralStorage:
		return true
	}
	return strings.HasPrefix(name, "hugepages-")
}

// validateContainerResourceName checks a key of a container's requests or
// limits: a standard name ("cpu", "memory") or a domain-prefixed extended
// resource ("example.com/gpu").
func validateContainerResourceName(name, fldPath string) errors.FieldErrorList {
	allErrs := validateResourceName(name, fldPath)
	if !strings.Contains(name, "/") && !isStandardContainerResource(name) {
		allErrs = append(allErrs, errors.Invalid(fldPath, name, "must be a standard resource for containers"))
	}
	return allErrs
}

// validateResourceName checks that a resource name is a qualified name.
func validateResourceName(name, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for _, msg := range IsQualifiedName(name) {
		allErrs = append(allErrs, errors.Invalid(fldPath, name, msg))
	}
	return allErrs
}

// validateNonnegativeQuantity reports a resource amount below zero.
func validateNonnegativeQuantity(q api.Quantity, fldPath string) errors.FieldErrorList {
	if q.Sign() < 0 {
		return errors.FieldErrorList{errors.Invalid(fldPath, q.String(), isNegative)}
	}
	return nil
}

// validatePositiveQuantity reports a resource amount that is not above zero.
func validatePositiveQuantity(q api.Quantity, fldPath string) errors.FieldErrorList {
	if q.Sign() <= 0 {
		return errors.FieldErrorList{errors.Invalid(fldPath, q.String(), "must be greater than zero")}
	}
	return nil
}

// ValidateResourceRequirements checks a container's requests and limits:
// known resource names, no negative amounts, and no request above its limit
// (the scheduler places pods by requests, the kubelet enforces limits, so a
// request above the limit could never be honoured).
func ValidateResourceRequirements(requests, limits api.ResourceList, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	limPath, reqPath := child(fldPath, "limits"), child(fldPath, "requests")
	for _, name := range sortedKeys(limits) {
		allErrs = append(allErrs, validateContainerResourceName(name, key(limPath, name))...)
		allErrs = append(allErrs, validateNonnegativeQuantity(limits[name], key(limPath, name))...)
	}
	for _, name := range sortedKeys(requests) {
		request := requests[name]
		allErrs = append(allErrs, validateContainerResourceName(name, key(reqPath, name))...)
		allErrs = append(allErrs, validateNonnegativeQuantity(request, key(reqPath, name))...)
		if limit, ok := limits[name]; ok && request.Cmp(limit) > 0 {
			allErrs = append(allErrs, errors.Invalid(reqPath, request.String(),
				fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
		}
	}
	return allErrs
}
