package ctl

import (
	"bytes"
	"strings"
	"testing"
)

// TestOutputHidesManagedFields: -o yaml and -o json leave managedFields
// out, of an object and of a List's items, as kubectl does by default;
// jsonpath still reaches them; the objects printed are not changed.
func TestOutputHidesManagedFields(t *testing.T) {
	obj := func() map[string]any {
		return map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{
			"name": "w", "managedFields": []any{map[string]any{"manager": "kubectl", "operation": "Apply"}}}}
	}
	for _, tc := range []struct {
		format string
		single bool
	}{{"yaml", true}, {"json", true}, {"yaml", false}} {
		o := outputFormat{name: tc.format}
		object := obj()
		var out bytes.Buffer
		if err := o.printObjects(&out, []map[string]any{object}, tc.single); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "managedFields") || !strings.Contains(out.String(), "name") {
			t.Errorf("-o %s (single %v):\n%s", tc.format, tc.single, out.String())
		}
		if object["metadata"].(map[string]any)["managedFields"] == nil {
			t.Errorf("-o %s changed the object it printed", tc.format)
		}
	}
}
