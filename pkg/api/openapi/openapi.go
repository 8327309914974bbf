// Package openapi describes kplane's API types as OpenAPI v3 schemas, the
// "components.schemas" part of the documents the apiserver serves under
// /openapi/v3/<group-version>.
//
// Two clients read those schemas. `kubectl explain` (and `ctl explain`)
// prints a kind's fields, their types and their descriptions from them.
// `kubectl apply` computes its strategic merge patch from them: when the
// server publishes a schema for a kind, kubectl 1.32 takes each list's
// patch strategy and merge key from the x-kubernetes-patch-strategy and
// x-kubernetes-patch-merge-key extensions instead of its compiled-in Go
// types, so a wrong or missing extension turns a merge of containers into a
// replacement of the whole list.
//
// The structure of every schema comes from pkg/api/schema (the same
// description the apiserver's decoder and strategic merge patch use): field
// names from json tags, `required` for the fields without omitempty, the
// patch extensions from the patchStrategy and patchMergeKey tags. The
// descriptions are the types' doc comments, which `go generate
// ./pkg/api/openapi` copies into docs_generated.go because Go keeps no
// comments at run time.
//
// The shapes follow the documents of a real apiserver, so kubectl's
// templates read them the same way:
//
//   - a struct-typed field points at its type's component schema:
//     {"description": …, "default": {}, "allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"}]};
//   - a list is {"type": "array", "items": …}, a map {"type": "object",
//     "additionalProperties": …};
//   - strings, integers (format int32 or int64), numbers and booleans are
//     inline; []byte is a string of format byte;
//   - Time and MicroTime are components of type string (explain prints
//     <string>), Quantity and IntOrString components without a type
//     (explain prints <Quantity> and <IntOrString>);
//   - a kind's schema carries x-kubernetes-group-version-kind, which is how
//     kubectl finds the schema of the kind it wants.
package openapi

import (
	"encoding/json"
	"reflect"

	"kplane/pkg/api"
)

// Schema is one OpenAPI v3 schema object, with the Kubernetes extensions
// kplane publishes. Only the members kplane fills exist; empty ones are
// left out of the JSON.
type Schema struct {
	// Description is the doc comment of the type or field.
	Description string `json:"description,omitempty"`
	// Type is "object", "array", "string", "integer", "number" or
	// "boolean"; empty for a reference and for Quantity and IntOrString,
	// whose JSON is one of several types (see OneOf).
	Type string `json:"type,omitempty"`
	// Format refines Type: int32, int64, double, byte, date-time.
	Format string `json:"format,omitempty"`
	// Default is {} on a struct-typed field that is never null, as the
	// upstream generator writes it.
	Default any `json:"default,omitempty"`
	// Ref points at a component schema: "#/components/schemas/<name>".
	Ref string `json:"$ref,omitempty"`
	// AllOf wraps a Ref when the schema also has its own description, as
	// OpenAPI 3.0 ignores siblings of a bare $ref.
	AllOf []*Schema `json:"allOf,omitempty"`
	// OneOf lists the JSON types a value may have (Quantity: a string or a
	// number).
	OneOf []*Schema `json:"oneOf,omitempty"`
	// Items is the schema of a list's elements.
	Items *Schema `json:"items,omitempty"`
	// AdditionalProperties is the schema of a map's values.
	AdditionalProperties *Schema `json:"additionalProperties,omitempty"`
	// Properties are an object's fields by JSON name.
	Properties map[string]*Schema `json:"properties,omitempty"`
	// Required lists the fields without omitempty, in declaration order.
	Required []string `json:"required,omitempty"`

	// GroupVersionKinds marks a kind's top-level schema with the kinds it
	// describes; kubectl explain and apply find a kind's schema by it.
	GroupVersionKinds []GroupVersionKind `json:"x-kubernetes-group-version-kind,omitempty"`
	// PatchStrategy is the field's patchStrategy tag ("merge",
	// "merge,retainKeys", "retainKeys"), read by kubectl apply.
	PatchStrategy string `json:"x-kubernetes-patch-strategy,omitempty"`
	// PatchMergeKey is the field of a list element that identifies it in a
	// strategic merge ("name" for containers), read by kubectl apply.
	PatchMergeKey string `json:"x-kubernetes-patch-merge-key,omitempty"`
	// ListType is "map" for a list merged by key, "set" for a merged list
	// of primitives (server-side apply's vocabulary for the same facts).
	ListType string `json:"x-kubernetes-list-type,omitempty"`
	// ListMapKeys are the keys of a "map" list.
	ListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty"`
	// IntOrString marks IntOrString, whose JSON is a number or a string.
	IntOrString bool `json:"x-kubernetes-int-or-string,omitempty"`
	// PreserveUnknownFields marks a value of any shape (a Go `any`).
	PreserveUnknownFields bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`

	// The members below appear only in the schemas of custom resources,
	// copied from their CRD's openAPIV3Schema (customresource.go): the
	// built-in kinds' schemas describe shapes, not value limits.

	// Nullable says null is a valid value (OpenAPI v3 only).
	Nullable bool `json:"nullable,omitempty"`
	// Enum lists the allowed values.
	Enum []json.RawMessage `json:"enum,omitempty"`
	// Pattern is a regular expression a string must match.
	Pattern string `json:"pattern,omitempty"`
	// Minimum and Maximum bound a number, exclusively when the
	// Exclusive… member says so.
	Minimum          *float64 `json:"minimum,omitempty"`
	ExclusiveMinimum bool     `json:"exclusiveMinimum,omitempty"`
	Maximum          *float64 `json:"maximum,omitempty"`
	ExclusiveMaximum bool     `json:"exclusiveMaximum,omitempty"`
	// MultipleOf says a number must divide by it.
	MultipleOf *float64 `json:"multipleOf,omitempty"`
	// MinLength and MaxLength bound a string's length.
	MinLength *int64 `json:"minLength,omitempty"`
	MaxLength *int64 `json:"maxLength,omitempty"`
	// MinItems and MaxItems bound a list's length; UniqueItems forbids
	// duplicates.
	MinItems    *int64 `json:"minItems,omitempty"`
	MaxItems    *int64 `json:"maxItems,omitempty"`
	UniqueItems bool   `json:"uniqueItems,omitempty"`
	// MinProperties and MaxProperties bound an object's number of fields.
	MinProperties *int64 `json:"minProperties,omitempty"`
	MaxProperties *int64 `json:"maxProperties,omitempty"`
	// EmbeddedResource marks a whole object (apiVersion, kind, metadata)
	// nested in another.
	EmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty"`
	// MapType is "granular" or "atomic" for server-side apply.
	MapType string `json:"x-kubernetes-map-type,omitempty"`
	// Validations are the CEL rules the value must pass.
	Validations []api.ValidationRule `json:"x-kubernetes-validations,omitempty"`
}

// GroupVersionKind names a kind, as the x-kubernetes-group-version-kind
// extension spells it: the core group is "" and is written out.
type GroupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// Kind is one kind a group-version serves and the Go type of its objects.
type Kind struct {
	GroupVersionKind
	// GoType is the struct type of the kind's objects, e.g. api.Deployment.
	GoType reflect.Type
}

// Ref returns the reference to the component schema named name.
func Ref(name string) string { return "#/components/schemas/" + name }

// ComponentSchemas returns, by component name, the schema of each kind and
// of every type its fields reach, directly or through lists and maps: what
// a group-version document's components.schemas must hold so that every
// $ref in it resolves. Each kind's schema lists its GroupVersionKind (two
// kinds sharing a Go type share a schema that lists both).
func ComponentSchemas(kinds []Kind) map[string]*Schema {
	b := &builder{schemas: map[string]*Schema{}}
	for _, k := range kinds {
		name := b.component(k.GoType)
		s := b.schemas[name]
		s.GroupVersionKinds = append(s.GroupVersionKinds, k.GroupVersionKind)
	}
	return b.schemas
}
