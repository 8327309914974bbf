package validation

import (
	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// validateLease checks a coordination.k8s.io Lease, the lock behind leader
// election and node heartbeats: a positive duration and a non-negative
// transition count.
func validateLease(lease *api.Lease) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&lease.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateLeaseSpec(&lease.Spec)...)
}

func validateLeaseUpdate(lease, old *api.Lease) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&lease.ObjectMeta, &old.ObjectMeta, "metadata")
	return append(allErrs, validateLeaseSpec(&lease.Spec)...)
}

func validateLeaseSpec(spec *api.LeaseSpec) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if d := spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		allErrs = append(allErrs, errors.Invalid("spec.leaseDurationSeconds", *d, "must be greater than 0"))
	}
	if t := spec.LeaseTransitions; t != nil && *t < 0 {
		allErrs = append(allErrs, errors.Invalid("spec.leaseTransitions", *t, isNegative))
	}
	return allErrs
}
