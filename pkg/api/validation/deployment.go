package validation

import (
	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// validateDeployment checks a Deployment being created.
func validateDeployment(d *api.Deployment) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&d.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateDeploymentSpec(&d.Spec, "spec")...)
}

// validateDeploymentUpdate checks an update: the spec must still be valid
// and, in apps/v1, the selector may not change.
func validateDeploymentUpdate(d, old *api.Deployment) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&d.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validateDeploymentSpec(&d.Spec, "spec")...)
	return append(allErrs, validateSelectorUnchanged(d.Spec.Selector, old.Spec.Selector, "spec.selector")...)
}

func validateDeploymentSpec(spec *api.DeploymentSpec, fldPath string) errors.FieldErrorList {
	allErrs := validateOptionalNonnegative(spec.Replicas, child(fldPath, "replicas"))
	allErrs = append(allErrs, validateWorkloadSelector(spec.Selector, &spec.Template, "deployment", true, fldPath)...)
	allErrs = append(allErrs, validateAlwaysRestartingTemplate(&spec.Template, "Deployment", child(fldPath, "template"), nil)...)
	allErrs = append(allErrs, validateDeploymentStrategy(&spec.Strategy, child(fldPath, "strategy"))...)
	allErrs = append(allErrs, validateNonnegative32(spec.MinReadySeconds, child(fldPath, "minReadySeconds"))...)
	allErrs = append(allErrs, validateOptionalNonnegative(spec.RevisionHistoryLimit, child(fldPath, "revisionHistoryLimit"))...)
	if d := spec.ProgressDeadlineSeconds; d != nil {
		allErrs = append(allErrs, validateNonnegative32(*d, child(fldPath, "progressDeadlineSeconds"))...)
		// A rollout cannot be judged stuck before its pods could even count as available.
		if *d <= spec.MinReadySeconds {
			allErrs = append(allErrs, errors.Invalid(child(fldPath, "progressDeadlineSeconds"), *d, "must be greater than minReadySeconds"))
		}
	}
	return allErrs
}

// validateDeploymentStrategy checks the rollout strategy. A RollingUpdate
// needs room to move: maxSurge and maxUnavailable may not both be zero.
// Unset knobs count as their defaults (25% each).
func validateDeploymentStrategy(strategy *api.DeploymentStrategy, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	ruPath := child(fldPath, "rollingUpdate")
	switch strategy.Type {
	case api.RecreateDeploymentStrategyType:
		if strategy.RollingUpdate != nil {
			allErrs = append(allErrs, errors.Forbidden(ruPath, "may not be specified when strategy `type` is 'Recreate'"))
		}
	case "", api.RollingUpdateDeploymentStrategyType:
		ru := strategy.RollingUpdate
		if ru == nil {
			break
		}
		unavailablePath := child(ruPath, "maxUnavailable")
		allErrs = append(allErrs, validateIntOrPercent(ru.MaxUnavailable, unavailablePath)...)
		allErrs = append(allErrs, validateIntOrPercent(ru.MaxSurge, child(ruPath, "maxSurge"))...)
		if intOrPercentValue(ru.MaxUnavailable, 25) == 0 && intOrPercentValue(ru.MaxSurge, 25) == 0 {
			allErrs = append(allErrs, errors.Invalid(unavailablePath, intOrStringValue(ru.MaxUnavailable), "may not be 0 when `maxSurge` is 0"))
		}
		allErrs = append(allErrs, validateNotMoreThan100Percent(ru.MaxUnavailable, unavailablePath)...)
	default:
		allErrs = append(allErrs, errors.NotSupported(child(fldPath, "type"), string(strategy.Type),
			[]string{string(api.RecreateDeploymentStrategyType), string(api.RollingUpdateDeploymentStrategyType)}))
	}
	return allErrs
}

// intOrStringValue is what an error prints for an IntOrString: the number
// or the string itself.
func intOrStringValue(v *api.IntOrString) any {
	switch {
	case v == nil:
		return nil
	case v.Type == api.IntOrStringString:
		return v.StrVal
	}
	return v.IntVal
}
