package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
)

// CustomObject is one object of a custom resource (a kind a
// CustomResourceDefinition adds), as the apiserver holds it. Its type and
// metadata are typed, as every object's are, so the generic machinery —
// names, labels, finalizers, resourceVersion — treats it like any other;
// everything else (spec, status, or any top-level field a schema allows)
// is Content, a JSON map whose numbers are int64 or float64
// (unstructured.go). It is upstream's unstructured.Unstructured with the
// metadata decoded once.
//
// It encodes as one JSON object: apiVersion, kind and metadata first, then
// the content's fields in sorted order. Content never holds apiVersion,
// kind or metadata itself.
type CustomObject struct {
	TypeMeta
	ObjectMeta
	// Content is every top-level field but apiVersion, kind and metadata.
	Content map[string]any
}

// MarshalJSON writes the object as one JSON object.
func (o *CustomObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	first := true
	field := func(name string, value any) error {
		encoded, err := json.Marshal(value)
		if err != nil {
			return fmt.Errorf("encode %s: %w", name, err)
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		key, _ := json.Marshal(name)
		buf.Write(key)
		buf.WriteByte(':')
		buf.Write(encoded)
		return nil
	}
	if o.APIVersion != "" {
		_ = field("apiVersion", o.APIVersion)
	}
	if o.Kind != "" {
		_ = field("kind", o.Kind)
	}
	if err := field("metadata", &o.ObjectMeta); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(o.Content))
	for name := range o.Content {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := field(name, o.Content[name]); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads a JSON object: apiVersion and kind must be strings
// and metadata an ObjectMeta; every other field goes to Content.
func (o *CustomObject) UnmarshalJSON(data []byte) error {
	fields, err := DecodeObjectMap(data)
	if err != nil {
		return err
	}
	*o = CustomObject{}
	for name, target := range map[string]*string{"apiVersion": &o.APIVersion, "kind": &o.Kind} {
		value, ok := fields[name]
		if !ok || value == nil {
			continue
		}
		s, isString := value.(string)
		if !isString {
			return &json.UnmarshalTypeError{Value: fmt.Sprintf("%T", value), Field: name, Type: stringType}
		}
		*target = s
		delete(fields, name)
	}
	if meta, ok := fields["metadata"]; ok {
		delete(fields, "metadata")
		if meta != nil {
			encoded, err := json.Marshal(meta)
			if err != nil {
				return fmt.Errorf("metadata: %w", err)
			}
			if err := json.Unmarshal(encoded, &o.ObjectMeta); err != nil {
				return fmt.Errorf("metadata: %w", err)
			}
		}
	}
	o.Content = fields
	return nil
}

// stringType names the expected type in decoding errors.
var stringType = reflect.TypeOf("")
