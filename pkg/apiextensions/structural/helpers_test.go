package structural

import (
	"encoding/json"
	"strings"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// mustSchema decodes a schema written as JSON (YAML's flow style reads
// much like a CRD manifest).
func mustSchema(t testing.TB, text string) *api.JSONSchemaProps {
	t.Helper()
	s := &api.JSONSchemaProps{}
	if err := json.Unmarshal([]byte(text), s); err != nil {
		t.Fatalf("schema %s: %v", text, err)
	}
	return s
}

// mustObject decodes an object as the apiserver does: integral numbers as
// int64, others as float64.
func mustObject(t testing.TB, text string) map[string]any {
	t.Helper()
	v, err := decodeJSON([]byte(text))
	if err != nil {
		t.Fatalf("object %s: %v", text, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("object %s is not a JSON object", text)
	}
	return obj
}

// lines is each error as kubectl prints it.
func lines(errs apierrors.FieldErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

// assertLines compares error lines in order, printing both lists on failure.
func assertLines(t *testing.T, got apierrors.FieldErrorList, want []string) {
	t.Helper()
	gotLines := lines(got)
	if strings.Join(gotLines, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n  got:  %q\n  want: %q", gotLines, want)
	}
}

// asJSON prints a value canonically for comparisons.
func asJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
