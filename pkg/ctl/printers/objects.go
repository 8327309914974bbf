package printers

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// PrintJSON writes obj as kubectl -o json does: indented by four spaces,
// keys sorted (Go sorts map keys), a newline at the end.
func PrintJSON(w io.Writer, obj any) error {
	data, err := json.MarshalIndent(obj, "", "    ")
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// PrintYAML writes obj as kubectl -o yaml does. kubectl encodes the object
// as JSON and converts that to YAML with sigs.k8s.io/yaml, so keys come out
// sorted, lists are not indented under their key, and multi-line strings
// (a last-applied-configuration annotation) use the literal block style;
// ctl uses the same conversion to print the same bytes.
func PrintYAML(w io.Writer, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	out, err := yaml.JSONToYAML(data)
	if err != nil {
		return fmt.Errorf("convert JSON to YAML: %w", err)
	}
	_, err = w.Write(out)
	return err
}

// NewList wraps objects in the v1 List kubectl prints for -o yaml|json when
// a command returns anything but a single named object.
func NewList(items []map[string]any) map[string]any {
	list := make([]any, 0, len(items))
	for _, item := range items {
		list = append(list, item)
	}
	return map[string]any{
		"apiVersion": "v1",
		"kind":       "List",
		"items":      list,
		"metadata":   map[string]any{"resourceVersion": ""},
	}
}

// ObjectName is how -o name and kubectl's messages name an object:
// "<kind>[.<group>]/<name>", e.g. "deployment.apps/ng-dep".
func ObjectName(kindName, name string) string {
	return kindName + "/" + name
}
