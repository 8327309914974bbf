package structural

import (
	"math"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// numberChecks are multipleOf, minimum and maximum, in the order kube-openapi
// reports them. An integer value is compared as an integer, with the bound
// truncated to one, as kube-openapi does.
func (v *validator) numberChecks(name string, s *api.JSONSchemaProps, data any) apierrors.FieldErrorList {
	var errs apierrors.FieldErrorList
	value, isInt := data.(int64)
	f, _ := asFloat(data)
	if s.MultipleOf != nil {
		factor := *s.MultipleOf
		if isInt {
			if int64(factor) <= 0 {
				errs = append(errs, v.invalid(name, int64(factor), "factor MultipleOf declared for %s must be positive: %v", name, int64(factor)))
			} else if value%int64(factor) != 0 {
				errs = append(errs, v.invalid(name, data, "%s in %s should be a multiple of %v", name, in, int64(factor)))
			}
		} else if factor <= 0 {
			errs = append(errs, v.invalid(name, factor, "factor MultipleOf declared for %s must be positive: %v", name, factor))
		} else if !isJSONInteger(f / factor) {
			errs = append(errs, v.invalid(name, data, "%s in %s should be a multiple of %v", name, in, factor))
		}
	}
	if s.Minimum != nil {
		var below bool
		var bound any
		if isInt {
			min := int64(*s.Minimum)
			below, bound = value < min || (s.ExclusiveMinimum && value <= min), min
		} else {
			below, bound = f < *s.Minimum || (s.ExclusiveMinimum && f <= *s.Minimum), *s.Minimum
		}
		if below {
			words := "greater than or equal to"
			if s.ExclusiveMinimum {
				words = "greater than"
			}
			errs = append(errs, v.invalid(name, data, "%s in %s should be %s %v", name, in, words, bound))
		}
	}
	if s.Maximum != nil {
		var above bool
		var bound any
		if isInt {
			max := int64(*s.Maximum)
			above, bound = value > max || (s.ExclusiveMaximum && value >= max), max
		} else {
			above, bound = f > *s.Maximum || (s.ExclusiveMaximum && f >= *s.Maximum), *s.Maximum
		}
		if above {
			words := "less than or equal to"
			if s.ExclusiveMaximum {
				words = "less than"
			}
			errs = append(errs, v.invalid(name, data, "%s in %s should be %s %v", name, in, words, bound))
		}
	}
	return errs
}

// isJSONInteger says whether f is an integer up to float rounding (a
// relative error below 1e-9), as go-openapi's swag.IsFloat64AJSONInteger:
// 0.3/0.1 counts as 3.
func isJSONInteger(f float64) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < -(1<<53) || f > 1<<53 {
		return false
	}
	g := math.Round(f)
	if f == g {
		return true
	}
	diff := math.Abs(f - g)
	return diff/math.Min(math.Abs(f)+math.Abs(g), math.MaxFloat64) < 1e-9
}
