package validation

import (
	"strings"
	"testing"

	"kplane/pkg/api/errors"
)

// fieldErr is the part of a FieldError most tests assert on: which field
// failed and how.
type fieldErr struct {
	Type  errors.FieldErrorType
	Field string
}

// short names for the error types, to keep tables readable.
const (
	required       = errors.FieldValueRequired
	invalid        = errors.FieldValueInvalid
	notSupported   = errors.FieldValueNotSupported
	duplicate      = errors.FieldValueDuplicate
	forbidden      = errors.FieldValueForbidden
	errorsNotFound = errors.FieldValueNotFound
	tooLongType    = errors.FieldValueTooLong
)

// expectFields fails the test unless errs are exactly want, in order.
func expectFields(t *testing.T, errs errors.FieldErrorList, want ...fieldErr) {
	t.Helper()
	got := make([]fieldErr, len(errs))
	for i, e := range errs {
		got[i] = fieldErr{e.Type, e.Field}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), len(want), describe(errs))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("error %d is %v, want %v; all errors:\n%s", i, got[i], want[i], describe(errs))
		}
	}
}

// expectMessages fails the test unless the errors print exactly as want.
func expectMessages(t *testing.T, errs errors.FieldErrorList, want ...string) {
	t.Helper()
	got := make([]string, len(errs))
	for i, e := range errs {
		got[i] = e.Error()
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func describe(errs errors.FieldErrorList) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("  " + string(e.Type) + " " + e.Error() + "\n")
	}
	return b.String()
}
