package validation

import (
	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// validateDaemonSet checks a DaemonSet being created.
func validateDaemonSet(ds *api.DaemonSet) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&ds.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateDaemonSetSpec(&ds.Spec, "spec")...)
}

// validateDaemonSetUpdate checks an update; the selector is fixed in apps/v1.
func validateDaemonSetUpdate(ds, old *api.DaemonSet) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&ds.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validateDaemonSetSpec(&ds.Spec, "spec")...)
	return append(allErrs, validateSelectorUnchanged(ds.Spec.Selector, old.Spec.Selector, "spec.selector")...)
}

func validateDaemonSetSpec(spec *api.DaemonSetSpec, fldPath string) errors.FieldErrorList {
	allErrs := validateWorkloadSelector(spec.Selector, &spec.Template, "daemonset", false, fldPath)
	allErrs = append(allErrs, validateAlwaysRestartingTemplate(&spec.Template, "DaemonSet", child(fldPath, "template"), nil)...)
	allErrs = append(allErrs, validateNonnegative32(spec.MinReadySeconds, child(fldPath, "minReadySeconds"))...)
	allErrs = append(allErrs, validateOptionalNonnegative(spec.RevisionHistoryLimit, child(fldPath, "revisionHistoryLimit"))...)
	return append(allErrs, validateDaemonSetUpdateStrategy(&spec.UpdateStrategy, child(fldPath, "updateStrategy"))...)
}

// validateDaemonSetUpdateStrategy checks how a DaemonSet rolls out. With one
// pod per node, a rolling update either surges (a new pod starts beside the
// old one) or makes nodes unavailable, never both at once; unset knobs count
// as their defaults (maxUnavailable 1, maxSurge 0).
func validateDaemonSetUpdateStrategy(strategy *api.DaemonSetUpdateStrategy, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	switch strategy.Type {
	case api.OnDeleteDaemonSetStrategyType:
	case "", api.RollingUpdateDaemonSetStrategyType:
		ru := strategy.RollingUpdate
		if ru == nil {
			break
		}
		ruPath := child(fldPath, "rollingUpdate")
		unavailablePath, surgePath := child(ruPath, "maxUnavailable"), child(ruPath, "maxSurge")
		allErrs = append(allErrs, validateIntOrPercent(ru.MaxUnavailable, unavailablePath)...)
		allErrs = append(allErrs, validateIntOrPercent(ru.MaxSurge, surgePath)...)
		allErrs = append(allErrs, validateNotMoreThan100Percent(ru.MaxUnavailable, unavailablePath)...)
		allErrs = append(allErrs, validateNotMoreThan100Percent(ru.MaxSurge, surgePath)...)
		hasUnavailable := intOrPercentValue(ru.MaxUnavailable, 1) != 0
		hasSurge := intOrPercentValue(ru.MaxSurge, 0) != 0
		switch {
		case hasUnavailable && hasSurge:
			allErrs = append(allErrs, errors.Invalid(surgePath, intOrStringValue(ru.MaxSurge), "may not be set when maxUnavailable is non-zero"))
		case !hasUnavailable && !hasSurge:
			allErrs = append(allErrs, errors.Required(unavailablePath, "cannot be 0 when maxSurge is 0"))
		}
	default:
		allErrs = append(allErrs, errors.NotSupported(child(fldPath, "type"), string(strategy.Type),
			[]string{string(api.RollingUpdateDaemonSetStrategyType), string(api.OnDeleteDaemonSetStrategyType)}))
	}
	return allErrs
}
