package errors

import (
	"encoding/json"
	"fmt"
	"strings"
)

// FieldErrorType says how a field is wrong, with the words Kubernetes prints.
type FieldErrorType string

// The field error types a validation can return.
const (
	FieldValueRequired     FieldErrorType = "FieldValueRequired"
	FieldValueInvalid      FieldErrorType = "FieldValueInvalid"
	FieldValueNotSupported FieldErrorType = "FieldValueNotSupported"
	FieldValueDuplicate    FieldErrorType = "FieldValueDuplicate"
	FieldValueForbidden    FieldErrorType = "FieldValueForbidden"
	FieldValueTooLong      FieldErrorType = "FieldValueTooLong"
	FieldValueTooMany      FieldErrorType = "FieldValueTooMany"
	FieldValueNotFound     FieldErrorType = "FieldValueNotFound"
	// FieldValueTypeInvalid is a value of the wrong JSON type; it reads
	// "Invalid value" like FieldValueInvalid, as upstream's TypeInvalid does.
	FieldValueTypeInvalid FieldErrorType = "FieldValueTypeInvalid"
)

// phrase is how each type reads inside a message ("Invalid value").
func (t FieldErrorType) phrase() string {
	switch t {
	case FieldValueRequired:
		return "Required value"
	case FieldValueInvalid, FieldValueTypeInvalid:
		return "Invalid value"
	case FieldValueNotSupported:
		return "Unsupported value"
	case FieldValueDuplicate:
		return "Duplicate value"
	case FieldValueForbidden:
		return "Forbidden"
	case FieldValueTooLong:
		return "Too long"
	case FieldValueTooMany:
		return "Too many"
	case FieldValueNotFound:
		return "Not found"
	}
	return string(t)
}

// FieldError is one failing field: its path ("spec.template.metadata.labels"),
// what is wrong, the offending value (when it helps to print it) and a detail.
type FieldError struct {
	Type     FieldErrorType
	Field    string
	BadValue any
	Detail   string
}

// Error is the full line: `spec.replicas: Invalid value: -1: must be greater than or equal to 0`.
func (e *FieldError) Error() string {
	return e.Field + ": " + e.ErrorBody()
}

// ErrorBody is the message without the field path.
func (e *FieldError) ErrorBody() string {
	s := e.Type.phrase()
	switch e.Type {
	case FieldValueRequired, FieldValueForbidden, FieldValueTooLong:
		// These print no value.
	default:
		if e.BadValue != nil {
			s += ": " + formatValue(e.BadValue)
		}
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func formatValue(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case int, int32, int64, bool, float64:
		return fmt.Sprintf("%v", v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

// FieldErrorList is the result of validating an object; empty means valid.
type FieldErrorList []*FieldError

// ToAggregateString joins the errors as upstream's aggregate does.
func (l FieldErrorList) ToAggregateString() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return joinMessages(msgs)
}

// Required says a field must be set.
func Required(field, detail string) *FieldError {
	return &FieldError{Type: FieldValueRequired, Field: field, Detail: detail}
}

// Invalid says a field's value is wrong.
func Invalid(field string, value any, detail string) *FieldError {
	return &FieldError{Type: FieldValueInvalid, Field: field, BadValue: value, Detail: detail}
}

// TypeInvalid says a field's value has the wrong type ("must be of type
// integer").
func TypeInvalid(field string, value any, detail string) *FieldError {
	return &FieldError{Type: FieldValueTypeInvalid, Field: field, BadValue: value, Detail: detail}
}

// NotSupported says a value is not one of the allowed ones.
func NotSupported(field string, value any, allowed []string) *FieldError {
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	return &FieldError{Type: FieldValueNotSupported, Field: field, BadValue: value,
		Detail: "supported values: " + strings.Join(quoted, ", ")}
}

// Duplicate says a value appears twice where it must be unique.
func Duplicate(field string, value any) *FieldError {
	return &FieldError{Type: FieldValueDuplicate, Field: field, BadValue: value}
}

// TooMany says a list has more items than allowed: "Too many: 1001: must
// have at most 1000 items".
func TooMany(field string, actual, max int) *FieldError {
	return &FieldError{Type: FieldValueTooMany, Field: field, BadValue: actual,
		Detail: fmt.Sprintf("must have at most %d items", max)}
}

// Forbidden says a field may not be set (or changed).
func Forbidden(field, detail string) *FieldError {
	return &FieldError{Type: FieldValueForbidden, Field: field, Detail: detail}
}
