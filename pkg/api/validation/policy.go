package validation

import (
	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// supportedUnhealthyPodEvictionPolicies are the values of
// spec.unhealthyPodEvictionPolicy, sorted as upstream lists them.
var supportedUnhealthyPodEvictionPolicies = []string{string(api.AlwaysAllow), string(api.IfHealthyBudget)}

// validatePodDisruptionBudget checks a new policy/v1 PodDisruptionBudget:
// minAvailable or maxUnavailable (not both), each a non-negative number or
// a percentage of at most 100%, and a valid selector.
func validatePodDisruptionBudget(pdb *api.PodDisruptionBudget) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&pdb.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	allErrs = append(allErrs, validatePodDisruptionBudgetSpec(&pdb.Spec)...)
	return append(allErrs, validatePodDisruptionBudgetStatus(&pdb.Status)...)
}

// validatePodDisruptionBudgetUpdate checks an update. Since policy/v1 the
// whole spec may change (policy/v1beta1 froze it).
func validatePodDisruptionBudgetUpdate(pdb, old *api.PodDisruptionBudget) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&pdb.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validatePodDisruptionBudgetSpec(&pdb.Spec)...)
	return append(allErrs, validatePodDisruptionBudgetStatus(&pdb.Status)...)
}

func validatePodDisruptionBudgetSpec(spec *api.PodDisruptionBudgetSpec) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		allErrs = append(allErrs, errors.Invalid("spec", "", "minAvailable and maxUnavailable cannot be both set"))
	}
	allErrs = append(allErrs, validateIntOrPercent(spec.MinAvailable, "spec.minAvailable")...)
	allErrs = append(allErrs, validateNotMoreThan100Percent(spec.MinAvailable, "spec.minAvailable")...)
	allErrs = append(allErrs, validateIntOrPercent(spec.MaxUnavailable, "spec.maxUnavailable")...)
	allErrs = append(allErrs, validateNotMoreThan100Percent(spec.MaxUnavailable, "spec.maxUnavailable")...)
	if spec.Selector != nil {
		allErrs = append(allErrs, ValidateLabelSelector(spec.Selector, "spec.selector")...)
	}
	if p := spec.UnhealthyPodEvictionPolicy; p != nil && *p != api.IfHealthyBudget && *p != api.AlwaysAllow {
		allErrs = append(allErrs, errors.NotSupported("spec.unhealthyPodEvictionPolicy", string(*p), supportedUnhealthyPodEvictionPolicies))
	}
	return allErrs
}

// validatePodDisruptionBudgetStatus checks the counts the disruption
// controller writes: none may be negative.
func validatePodDisruptionBudgetStatus(status *api.PodDisruptionBudgetStatus) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	allErrs = append(allErrs, validateNonnegative32(status.DisruptionsAllowed, "status.disruptionsAllowed")...)
	allErrs = append(allErrs, validateNonnegative32(status.CurrentHealthy, "status.currentHealthy")...)
	allErrs = append(allErrs, validateNonnegative32(status.DesiredHealthy, "status.desiredHealthy")...)
	return append(allErrs, validateNonnegative32(status.ExpectedPods, "status.expectedPods")...)
}
