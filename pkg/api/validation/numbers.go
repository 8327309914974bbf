package validation

import (
	"kplane/pkg/api/errors"
)

// ValidateNonnegativeField reports value if it is below zero.
func ValidateNonnegativeField(value int64, fldPath string) errors.FieldErrorList {
	if value < 0 {
		return errors.FieldErrorList{errors.Invalid(fldPath, value, isNegative)}
	}
	return nil
}

// validateNonnegative32 is ValidateNonnegativeField for the many int32 fields,
// printing the value with its own type.
func validateNonnegative32(value int32, fldPath string) errors.FieldErrorList {
	if value < 0 {
		return errors.FieldErrorList{errors.Invalid(fldPath, value, isNegative)}
	}
	return nil
}
