package validation

import "fmt"

// The sentence fragments below are the ones apimachinery's validation uses,
// so that an error reads the same against kplane as against Kubernetes.

// fieldImmutable is the detail of every "you may not change this" error.
const fieldImmutable = "field is immutable"

// isNegative is the detail for a count or duration below zero.
const isNegative = "must be greater than or equal to 0"

// maxLenError says a string is longer than allowed.
func maxLenError(length int) string {
	return fmt.Sprintf("must be no more than %d characters", length)
}

// emptyError says a string part is empty.
func emptyError() string {
	return "must be non-empty"
}

// inclusiveRangeError says a number is outside [lo, hi].
func inclusiveRangeError(lo, hi int) string {
	return fmt.Sprintf("must be between %d and %d, inclusive", lo, hi)
}

// regexError explains a format failure with examples and the regular
// expression itself, e.g. "… (e.g. 'my-name',  or '123-abc', regex used for
// validation is '…')". The doubled space before "or" is upstream's, kept so
// the text matches what a real cluster prints.
func regexError(msg, re string, examples ...string) string {
	if len(examples) == 0 {
		return msg + " (regex used for validation is '" + re + "')"
	}
	msg += " (e.g. "
	for i, example := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + example + "', "
	}
	return msg + "regex used for validation is '" + re + "')"
}

// goSyntax prints a value as upstream's field errors print composite values:
// in Go syntax (%#v). Used through the Detail of a FieldError, whose own
// value printing is JSON.
func goSyntax(v any) string {
	return fmt.Sprintf("%#v", v)
}
