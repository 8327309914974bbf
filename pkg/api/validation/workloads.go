package validation

import (
	"fmt"
	"strconv"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// This file holds what the workload controllers' objects share: a selector
// that must pick out the pods of the template, pod templates whose pods run
// forever (restartPolicy Always), and the int-or-percent rollout knobs.

// selectorDoesNotMatch is upstream's detail when a template's labels escape
// its controller's selector: the controller would create pods it cannot see,
// and create more of them forever.
const selectorDoesNotMatch = "`selector` does not match template `labels`"

// validateWorkloadSelector checks the selector of a Deployment, ReplicaSet,
// StatefulSet or DaemonSet: well formed, not empty (an empty selector would
// adopt every pod in the namespace), and matching the pod template's labels.
// kind names the kind in the "empty selector" message.
//
// A missing selector is reported as upstream does: Required for a
// Deployment, ReplicaSet or StatefulSet (required says so), not for a
// DaemonSet, whose upstream validation has no such check; and for all four
// the template's labels are then reported too, because a missing selector
// selects nothing (upstream's LabelSelectorAsSelector(nil)), so no labels
// match it. `kubectl create` of a Deployment without a selector thus prints
// two errors, as on a real cluster.
func validateWorkloadSelector(sel *api.LabelSelector, template *api.PodTemplateSpec, kind string, required bool, fldPath string) errors.FieldErrorList {
	selPath := child(fldPath, "selector")
	labelsPath := child(fldPath, "template", "metadata", "labels")
	if sel == nil {
		var allErrs errors.FieldErrorList
		if required {
			allErrs = append(allErrs, errors.Required(selPath, ""))
		}
		return append(allErrs, invalidLabels(labelsPath, template.Labels, selectorDoesNotMatch))
	}
	allErrs := ValidateLabelSelector(sel, selPath)
	if len(allErrs) > 0 {
		// A malformed selector cannot be matched against anything.
		return allErrs
	}
	if selectorIsEmpty(sel) {
		return append(allErrs, errors.Invalid(selPath, sel, "empty selector is invalid for "+kind))
	}
	if !selectorMatches(sel, template.Labels) {
		allErrs = append(allErrs, invalidLabels(labelsPath, template.Labels, selectorDoesNotMatch))
	}
	return allErrs
}

// validateAlwaysRestartingTemplate checks the template of a controller that
// keeps its pods running (everything but Job): restartPolicy must be Always,
// since a pod that stops for good would just be replaced, and a deadline
// would kill pods the controller wants alive.
func validateAlwaysRestartingTemplate(template *api.PodTemplateSpec, kind, fldPath string, extraVolumes []string) errors.FieldErrorList {
	allErrs := validatePodTemplateSpec(template, fldPath, extraVolumes)
	if policy := restartPolicyOrDefault(template.Spec.RestartPolicy); policy != api.RestartPolicyAlways {
		allErrs = append(allErrs, errors.NotSupported(child(fldPath, "spec", "restartPolicy"), string(policy), []string{string(api.RestartPolicyAlways)}))
	}
	if template.Spec.ActiveDeadlineSeconds != nil {
		allErrs = append(allErrs, errors.Forbidden(child(fldPath, "spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in "+kind+" is not Supported"))
	}
	return allErrs
}

// validateOptionalNonnegative checks an optional count.
func validateOptionalNonnegative(value *int32, fldPath string) errors.FieldErrorList {
	if value == nil {
		return nil
	}
	return validateNonnegative32(*value, fldPath)
}

// validateIntOrPercent checks a rollout knob such as maxSurge: a
// non-negative number or a percentage like "25%".
func validateIntOrPercent(v *api.IntOrString, fldPath string) errors.FieldErrorList {
	if v == nil {
		return nil
	}
	if v.Type == api.IntOrStringString {
		var allErrs errors.FieldErrorList
		for _, msg := range IsValidPercent(v.StrVal) {
			allErrs = append(allErrs, errors.Invalid(fldPath, v.StrVal, msg))
		}
		return allErrs
	}
	return validateNonnegative32(v.IntVal, fldPath)
}

// intOrPercentValue is the number in v (25 for both 25 and "25%"); nil
// stands for def.
func intOrPercentValue(v *api.IntOrString, def int) int {
	if v == nil {
		return def
	}
	if v.Type == api.IntOrStringString {
		n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
		if err != nil {
			return 0
		}
		return n
	}
	return int(v.IntVal)
}

// validateNotMoreThan100Percent rejects percentages above 100%.
func validateNotMoreThan100Percent(v *api.IntOrString, fldPath string) errors.FieldErrorList {
	if v == nil || v.Type != api.IntOrStringString || len(IsValidPercent(v.StrVal)) > 0 {
		return nil
	}
	if intOrPercentValue(v, 0) > 100 {
		return errors.FieldErrorList{errors.Invalid(fldPath, v.StrVal, "must not be greater than 100%")}
	}
	return nil
}

// validateSelectorUnchanged enforces apps/v1's rule that a controller's
// selector never changes: pods created under the old one would be orphaned.
// The value is printed in Go syntax, as on a real cluster, where this is one
// of the most quoted errors.
func validateSelectorUnchanged(sel, old *api.LabelSelector, fldPath string) errors.FieldErrorList {
	if semanticEqual(sel, old) {
		return nil
	}
	shown := "nil"
	if sel != nil {
		shown = goSyntax(*sel)
	}
	return errors.FieldErrorList{&errors.FieldError{Type: errors.FieldValueInvalid, Field: fldPath,
		Detail: fmt.Sprintf("%s: %s", shown, fieldImmutable)}}
}
