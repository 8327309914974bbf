package informer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// Unstructured is an object of a resource kplane has no Go type for — a
// custom resource, usually — as a dynamic informer caches it. Its type and
// metadata are decoded, because that is what the informer stack works on
// (keys, namespaces, labels, resourceVersion); every other top-level field
// (spec, status, …) stays a JSON map in Content, whose whole numbers are
// int64 and the rest float64, as the dynamic client decodes them.
//
// It is a stand-in for the custom-object type the apiserver's
// custom-resource branch adds to pkg/api; once that is on main, dynamic
// informers cache that type instead.
type Unstructured struct {
	api.TypeMeta
	api.ObjectMeta
	// Content is every top-level field but apiVersion, kind and metadata.
	Content map[string]any
}

// MarshalJSON writes the object as one JSON object.
func (u *Unstructured) MarshalJSON() ([]byte, error) {
	fields := make(map[string]any, len(u.Content)+3)
	for name, value := range u.Content {
		fields[name] = value
	}
	if u.APIVersion != "" {
		fields["apiVersion"] = u.APIVersion
	}
	if u.Kind != "" {
		fields["kind"] = u.Kind
	}
	fields["metadata"] = &u.ObjectMeta
	return json.Marshal(fields)
}

// UnmarshalJSON reads a JSON object: apiVersion, kind and metadata into
// their typed fields, everything else into Content.
func (u *Unstructured) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	if fields == nil {
		return fmt.Errorf("expected a JSON object, got null")
	}
	*u = Unstructured{Content: map[string]any{}}
	targets := map[string]any{"apiVersion": &u.APIVersion, "kind": &u.Kind, "metadata": &u.ObjectMeta}
	for name, raw := range fields {
		if target, typed := targets[name]; typed {
			if err := json.Unmarshal(raw, target); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var value any
		if err := dec.Decode(&value); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		u.Content[name] = wholeNumbers(value)
	}
	return nil
}

// wholeNumbers replaces each json.Number in v (at any depth) by an int64
// when it is whole and a float64 otherwise.
func wholeNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i
		}
		if f, err := v.Float64(); err == nil {
			return f
		}
		return string(v)
	case map[string]any:
		for k, item := range v {
			v[k] = wholeNumbers(item)
		}
	case []any:
		for i, item := range v {
			v[i] = wholeNumbers(item)
		}
	}
	return v
}

// ForDynamicResource returns f's dynamic informer for res, a resource
// found at run time (through discovery) whose objects kplane has no Go
// type for: they are cached as *Unstructured. Like every informer of the
// factory it is shared — asking twice returns the same one — and the next
// Start runs it, even if the factory started long ago.
func (f *SharedInformerFactory) ForDynamicResource(res client.Resource) TypedInformer[*Unstructured] {
	return ForResource[*Unstructured](f, res)
}
