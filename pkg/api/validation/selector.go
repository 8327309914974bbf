package validation

import (
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// ValidateLabelSelector checks a label selector: matchLabels must be valid
// labels, and each expression must use a known operator with values present
// exactly when the operator needs them. A nil selector is valid here; kinds
// that require one say so themselves.
func ValidateLabelSelector(sel *api.LabelSelector, fldPath string) errors.FieldErrorList {
	if sel == nil {
		return nil
	}
	allErrs := ValidateLabels(sel.MatchLabels, child(fldPath, "matchLabels"))
	for i, req := range sel.MatchExpressions {
		allErrs = append(allErrs, validateSelectorRequirement(req, index(child(fldPath, "matchExpressions"), i))...)
	}
	return allErrs
}

func validateSelectorRequirement(req api.LabelSelectorRequirement, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	switch req.Operator {
	case api.LabelSelectorOpIn, api.LabelSelectorOpNotIn:
		if len(req.Values) == 0 {
			allErrs = append(allErrs, errors.Required(child(fldPath, "values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case api.LabelSelectorOpExists, api.LabelSelectorOpDoesNotExist:
		if len(req.Values) > 0 {
			allErrs = append(allErrs, errors.Forbidden(child(fldPath, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	default:
		allErrs = append(allErrs, errors.Invalid(child(fldPath, "operator"), req.Operator, "not a valid selector operator"))
	}
	allErrs = append(allErrs, ValidateLabelName(req.Key, child(fldPath, "key"))...)
	for i, value := range req.Values {
		for _, msg := range IsValidLabelValue(value) {
			allErrs = append(allErrs, errors.Invalid(index(child(fldPath, "values"), i), value, msg))
		}
	}
	return allErrs
}

// selectorIsEmpty reports whether a selector has no terms at all; a present
// but empty selector matches every object.
func selectorIsEmpty(sel *api.LabelSelector) bool {
	return sel != nil && len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0
}

// selectorMatches reports whether labels satisfy every term of sel. It
// assumes sel has passed ValidateLabelSelector; a nil selector matches
// nothing, as upstream's LabelSelectorAsSelector(nil) does.
func selectorMatches(sel *api.LabelSelector, labels map[string]string) bool {
	if sel == nil {
		return false
	}
	for k, v := range sel.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, req := range sel.MatchExpressions {
		value, present := labels[req.Key]
		switch req.Operator {
		case api.LabelSelectorOpIn:
			if !present || !slices.Contains(req.Values, value) {
				return false
			}
		case api.LabelSelectorOpNotIn:
			if present && slices.Contains(req.Values, value) {
				return false
			}
		case api.LabelSelectorOpExists:
			if !present {
				return false
			}
		case api.LabelSelectorOpDoesNotExist:
			if present {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// invalidLabels reports a labels map as invalid, printing the map the way
// upstream does (Go syntax, e.g. map[string]string{"app":"x"}) rather than as
// JSON, so the message matches what kubectl users see on a real cluster.
func invalidLabels(fldPath string, labels map[string]string, detail string) *errors.FieldError {
	return &errors.FieldError{Type: errors.FieldValueInvalid, Field: fldPath,
		Detail: goSyntax(labels) + ": " + detail}
}
