package cel

import (
	"testing"

	"sigs.k8s.io/yaml"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// mustSchema reads a schema written in YAML, as a CRD author writes it.
func mustSchema(t testing.TB, doc string) *api.JSONSchemaProps {
	t.Helper()
	var s api.JSONSchemaProps
	if err := yaml.Unmarshal([]byte(doc), &s); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return &s
}

// mustObject reads an object in YAML into the form the apiserver hands to
// Validate (JSON-decoded maps, numbers as float64).
func mustObject(t testing.TB, doc string) map[string]any {
	t.Helper()
	if doc == "" {
		return nil
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("object: %v", err)
	}
	return m
}

// mustCompile compiles a schema that must be valid.
func mustCompile(t testing.TB, doc string) *Validator {
	t.Helper()
	v, errs := Compile(mustSchema(t, doc))
	if len(errs) > 0 {
		t.Fatalf("Compile: unexpected errors:\n%s", errs.ToAggregateString())
	}
	return v
}

// messages are the errors as the user reads them.
func messages(errs apierrors.FieldErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// sameMessages compares error lines exactly, in order.
func sameMessages(t *testing.T, got apierrors.FieldErrorList, want ...string) {
	t.Helper()
	lines := messages(got)
	if len(lines) != len(want) {
		t.Fatalf("got %d errors, want %d:\n got: %q\nwant: %q", len(lines), len(want), lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("error %d:\n got: %s\nwant: %s", i, lines[i], want[i])
		}
	}
}
