package patch

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

func TestJSONPatch(t *testing.T) {
	original := `{"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"replicas":1,"list":[1,2,3]}}`
	tests := []struct {
		name  string
		patch string
		want  string
	}{
		{
			name:  "add, replace, remove",
			patch: `[{"op":"add","path":"/metadata/labels/y","value":"2"},{"op":"replace","path":"/spec/replicas","value":3},{"op":"remove","path":"/spec/list/0"}]`,
			want:  `{"metadata":{"name":"a","labels":{"x":"1","y":"2"}},"spec":{"replicas":3,"list":[2,3]}}`,
		},
		{
			name:  "a passing test, then move and copy",
			patch: `[{"op":"test","path":"/spec/replicas","value":1},{"op":"move","from":"/metadata/labels","path":"/metadata/annotations"},{"op":"copy","from":"/metadata/name","path":"/spec/name"}]`,
			want:  `{"metadata":{"name":"a","annotations":{"x":"1"}},"spec":{"replicas":1,"list":[1,2,3],"name":"a"}}`,
		},
		{
			name:  "append to a list with -",
			patch: `[{"op":"add","path":"/spec/list/-","value":4}]`,
			want:  `{"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"replicas":1,"list":[1,2,3,4]}}`,
		},
		{
			name:  "an empty patch",
			patch: `[]`,
			want:  original,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Apply(JSONPatchType, []byte(original), []byte(tc.patch), deploymentType)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if canonical(t, string(got)) != canonical(t, tc.want) {
				t.Errorf("Apply = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestJSONPatchErrors(t *testing.T) {
	original := `{"metadata":{"name":"a"},"spec":{"replicas":1}}`
	manyOps := "[" + strings.Repeat(`{"op":"test","path":"/spec/replicas","value":1},`, MaxJSONPatchOperations) + `{"op":"test","path":"/spec/replicas","value":1}]`
	copyBomb := `[{"op":"add","path":"/a","value":"` + strings.Repeat("x", 1<<20) + `"}` +
		strings.Repeat(`,{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/b","path":"/a"}`, 4) + "]"
	tests := []struct {
		name    string
		patch   string
		code    int
		message string
		cause   error
	}{
		{
			name:    "a failed test",
			patch:   `[{"op":"test","path":"/spec/replicas","value":2}]`,
			code:    http.StatusUnprocessableEntity,
			message: "testing value /spec/replicas failed: test failed",
			cause:   jsonpatch.ErrTestFailed,
		},
		{
			name:    "a missing path",
			patch:   `[{"op":"remove","path":"/spec/template/spec"}]`,
			code:    http.StatusUnprocessableEntity,
			message: `remove operation does not apply: doc is missing path: "/spec/template/spec"`,
			cause:   jsonpatch.ErrMissing,
		},
		{
			name:    "replace of a missing key",
			patch:   `[{"op":"replace","path":"/status","value":{}}]`,
			code:    http.StatusUnprocessableEntity,
			message: "replace operation does not apply: doc is missing key: /status",
		},
		{
			name:    "not a list",
			patch:   `{"op":"add"}`,
			code:    http.StatusBadRequest,
			message: "json: cannot unmarshal object into Go value of type jsonpatch.Patch",
		},
		{
			name:    "an unknown operation",
			patch:   `[{"op":"frob","path":"/a"}]`,
			code:    http.StatusBadRequest,
			message: "unsupported operation",
		},
		{
			name:    "not JSON",
			patch:   `[{`,
			code:    http.StatusBadRequest,
			message: "unexpected end of JSON input",
		},
		{
			name:    "too many operations",
			patch:   manyOps,
			code:    http.StatusRequestEntityTooLarge,
			message: "The allowed maximum operations in a JSON patch is 10000, got 10001",
		},
		{
			name:    "copies that would grow the document without bound",
			patch:   copyBomb,
			code:    http.StatusUnprocessableEntity,
			message: "Unable to complete the copy",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Apply(JSONPatchType, []byte(original), []byte(tc.patch), deploymentType)
			var patchErr *Error
			if !errors.As(err, &patchErr) {
				t.Fatalf("error = %v (%T), want a *patch.Error", err, err)
			}
			if patchErr.Code != tc.code || !strings.Contains(patchErr.Message, tc.message) {
				t.Errorf("error = %d %q, want %d containing %q", patchErr.Code, patchErr.Message, tc.code, tc.message)
			}
			if tc.cause != nil && !errors.Is(err, tc.cause) {
				t.Errorf("error %v should wrap %v", err, tc.cause)
			}
		})
	}
}

func TestMergePatch(t *testing.T) {
	original := `{"metadata":{"name":"a","labels":{"x":"1","y":"2"}},"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}}}`
	patch := `{"metadata":{"labels":{"x":null,"z":"3"}},"spec":{"template":{"spec":{"containers":[{"name":"c"}]}}}}`
	// Unlike a strategic merge patch, a merge patch replaces lists.
	want := `{"metadata":{"name":"a","labels":{"y":"2","z":"3"}},"spec":{"template":{"spec":{"containers":[{"name":"c"}]}}}}`
	got, err := Apply(MergePatchType, []byte(original), []byte(patch), deploymentType)
	if err != nil {
		t.Fatal(err)
	}
	if canonical(t, string(got)) != canonical(t, want) {
		t.Errorf("Apply = %s, want %s", got, want)
	}

	for _, bad := range []string{`[1]`, `"x"`, `null`, ``, `{`} {
		_, err := Apply(MergePatchType, []byte(original), []byte(bad), deploymentType)
		var patchErr *Error
		if !errors.As(err, &patchErr) || patchErr.Code != http.StatusBadRequest {
			t.Errorf("merge patch %q: error = %v, want a 400 *patch.Error", bad, err)
		}
	}
}

func TestApplyPatchTypes(t *testing.T) {
	original := []byte(`{"spec":{"replicas":1}}`)
	for _, patchType := range []string{
		"application/merge-patch+json; charset=utf-8",
		"Application/Merge-Patch+JSON",
	} {
		got, err := Apply(patchType, original, []byte(`{"spec":{"replicas":2}}`), nil)
		if err != nil || string(got) != `{"spec":{"replicas":2}}` {
			t.Errorf("Apply(%q) = %s, %v", patchType, got, err)
		}
	}

	for _, patchType := range []string{"application/json", "application/apply-patch+yaml", "", "garbage;;"} {
		_, err := Apply(patchType, original, []byte(`{}`), nil)
		var unsupported *UnsupportedTypeError
		if !errors.As(err, &unsupported) || !IsUnsupportedType(err) {
			t.Errorf("Apply(%q) error = %v, want an *UnsupportedTypeError", patchType, err)
			continue
		}
		if !strings.Contains(err.Error(), "accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json") {
			t.Errorf("message %q should list the accepted types", err)
		}
	}
	if IsUnsupportedType(errors.New("other")) {
		t.Errorf("IsUnsupportedType of an unrelated error")
	}
}

func TestJSONPatchLibraryPanicIsAnError(t *testing.T) {
	// json-patch v5.9.11 panics on a test of the whole document without a
	// value (found by FuzzApply).
	_, err := Apply(JSONPatchType, []byte(`{"a":1}`), []byte(`[{"op":"test","path":""}]`), nil)
	var patchErr *Error
	if !errors.As(err, &patchErr) || patchErr.Code != http.StatusUnprocessableEntity {
		t.Errorf("error = %v, want a 422 *patch.Error", err)
	}
}
