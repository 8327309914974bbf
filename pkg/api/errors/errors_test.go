package errors

import (
	"errors"
	"testing"
)

func TestNamespaceTerminatingCause(t *testing.T) {
	err := NewNamespaceTerminating(Resource{Resource: "configmaps"}, "cm", "shop")
	if !IsForbidden(err) || !HasStatusCause(err, NamespaceTerminatingCause) {
		t.Fatalf("err = %#v; want Forbidden with the NamespaceTerminating cause", err)
	}
	if want := `configmaps "cm" is forbidden: unable to create new content in namespace shop because it is being terminated`; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
	if HasStatusCause(NewForbidden(Resource{Resource: "pods"}, "p", errors.New("no")), NamespaceTerminatingCause) {
		t.Error("a plain Forbidden must not carry the cause")
	}
}
