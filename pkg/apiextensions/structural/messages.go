package structural

import (
	"encoding/json"
	"fmt"

	apierrors "kplane/pkg/api/errors"
)

// Upstream validates custom objects with kube-openapi (a fork of
// go-openapi/validate), whose errors name the value by its path "in body";
// the apiserver then turns each into a field error. These functions build
// those field errors directly: the path, the offending value, and the
// kube-openapi sentence as the detail, so a user sees exactly what a real
// cluster prints:
//
//	spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"

// in is where kube-openapi says a value sits; for a custom object it is the
// request body.
const in = "body"

// typeMismatch is a value of the wrong type (or format): the value printed is
// the JSON type (or format) the data has.
func (v *validator) typeMismatch(name, want, got string) *apierrors.FieldError {
	return apierrors.TypeInvalid(v.errPath(name), got,
		fmt.Sprintf("%s in %s must be of type %s: %q", name, in, want, got))
}

// formatMismatch is a string that does not parse as its format.
func (v *validator) formatMismatch(name, format, value string) *apierrors.FieldError {
	return apierrors.TypeInvalid(v.errPath(name), value,
		fmt.Sprintf("%s in %s must be of type %s: %q", name, in, format, value))
}

// required is a required property that is absent.
func (v *validator) required(name string) *apierrors.FieldError {
	return apierrors.Required(v.errPath(name), "")
}

// tooLong is a string longer than maxLength. Like upstream's TooLong, it
// prints no value: the value may be huge.
func (v *validator) tooLong(name string, maxLength int64) *apierrors.FieldError {
	return &apierrors.FieldError{Type: apierrors.FieldValueTooLong, Field: v.errPath(name),
		Detail: fmt.Sprintf("may not be longer than %d", maxLength)}
}

// tooMany is an array with more than maxItems items, or an object with more
// than maxProperties properties (upstream words both as items).
func (v *validator) tooMany(name string, actual, max int64) *apierrors.FieldError {
	return apierrors.TooMany(v.errPath(name), int(actual), int(max))
}

// notSupported is a value outside the enum. Allowed strings print as they
// are, other values as JSON, each then quoted.
func (v *validator) notSupported(name string, value any, enum []any) *apierrors.FieldError {
	allowed := make([]string, 0, len(enum))
	for _, e := range enum {
		if s, ok := e.(string); ok {
			allowed = append(allowed, s)
			continue
		}
		b, _ := json.Marshal(e)
		allowed = append(allowed, string(b))
	}
	return apierrors.NotSupported(v.errPath(name), value, allowed)
}

// invalid is every other failed check: the value and kube-openapi's sentence.
// A check without a value (uniqueItems) prints "" as upstream does.
func (v *validator) invalid(name string, value any, format string, args ...any) *apierrors.FieldError {
	if value == nil {
		value = ""
	}
	return apierrors.Invalid(v.errPath(name), value, fmt.Sprintf(format, args...))
}

// junctorFailed is an allOf/anyOf/oneOf/not failure. kube-openapi reports
// it without a path of its own, so upstream prints it at the root of the
// field path ("<nil>" for a whole object), naming the value in the message.
func (v *validator) junctorFailed(format string, args ...any) *apierrors.FieldError {
	return apierrors.Invalid(rootOr(v.root), "", fmt.Sprintf(format, args...))
}
