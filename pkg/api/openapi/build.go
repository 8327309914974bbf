package openapi

import (
	"encoding/json"
	"reflect"

	"kplane/pkg/api"
	"kplane/pkg/api/schema"
)

// builder collects the component schemas one document needs. A struct's
// schema is registered under its name before its fields are described, so
// a type that contains itself refers to its own, half-built schema instead
// of recursing forever.
type builder struct {
	schemas map[string]*Schema
}

// component makes sure the component schema of Go type t (a struct, or
// one of the leaves in leafComponents) exists, and returns its name.
func (b *builder) component(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if leaf, ok := leafComponents[t]; ok {
		return b.leafComponent(leaf)
	}
	name := SchemaName(t)
	if _, built := b.schemas[name]; built {
		return name
	}
	s := &Schema{Description: typeDoc(t)}
	b.schemas[name] = s
	b.describeObject(s, schema.Of(t))
	return name
}

// leafComponent makes sure the component schema of a leaf exists and
// returns its name.
func (b *builder) leafComponent(leaf leafComponent) string {
	if _, built := b.schemas[leaf.name]; !built {
		b.schemas[leaf.name] = leaf.schema()
	}
	return leaf.name
}

// describeObject fills s with the fields of struct t: a property per JSON
// field and the fields without omitempty as required.
func (b *builder) describeObject(s *Schema, t *schema.Type) {
	s.Type = "object"
	if schema.AtomicStruct(t) {
		s.MapType = "atomic"
	}
	if len(t.Fields) > 0 {
		s.Properties = make(map[string]*Schema, len(t.Fields))
	}
	for _, f := range t.Fields {
		s.Properties[f.Name] = b.field(t, f)
		if !f.OmitEmpty {
			s.Required = append(s.Required, f.Name)
		}
	}
}

// field is the schema of one property of struct owner: the schema of its
// value, the field's doc comment, and its strategic-merge-patch hints.
func (b *builder) field(owner *schema.Type, f *schema.Field) *Schema {
	var s *Schema
	if leaf, ok := leafFields[owner.Go.Name()+"."+f.GoName]; ok && owner.Go.PkgPath() == apiPackagePath {
		s = &Schema{AllOf: []*Schema{{Ref: Ref(b.leafComponent(leaf))}}}
	} else {
		s = b.value(f.Type, owner.Go.FieldByIndex(f.Index).Type)
	}
	s.Description = fieldDoc(owner.Go, f)
	s.PatchStrategy = f.PatchStrategy
	s.PatchMergeKey = f.PatchMergeKey
	// A list merged by key is what server-side apply calls a map list; a
	// merged list of primitives is a set (and a port is keyed by its
	// protocol too, as upstream marks it).
	if merge := schema.ListMergeOf(owner, f); merge.Type != schema.ListAtomic {
		s.ListType, s.ListMapKeys = merge.Type, merge.Keys
	}
	return s
}

// value is the schema of a value of Go type goType (perhaps a pointer)
// whose JSON shape is t, as a field, list element or map value holds it.
func (b *builder) value(t *schema.Type, goType reflect.Type) *Schema {
	nullable := goType.Kind() == reflect.Pointer
	for goType.Kind() == reflect.Pointer {
		goType = goType.Elem()
	}
	switch t.Kind {
	case schema.Object:
		if t.Go.Name() == "" {
			// An anonymous struct has no name to refer to: inline it.
			s := &Schema{}
			b.describeObject(s, t)
			return s
		}
		s := &Schema{AllOf: []*Schema{{Ref: Ref(b.component(t.Go))}}}
		if !nullable {
			s.Default = map[string]any{}
		}
		return s
	case schema.List:
		return &Schema{Type: "array", Items: b.value(t.Elem, goType.Elem())}
	case schema.Map:
		return &Schema{Type: "object", AdditionalProperties: b.value(t.Elem, goType.Elem())}
	}
	if leaf, ok := leafComponents[t.Go]; ok {
		return &Schema{AllOf: []*Schema{{Ref: Ref(b.leafComponent(leaf))}}}
	}
	return primitive(t.Go)
}

// primitive is the inline schema of a Go value that encoding/json writes
// as a JSON string, number or boolean; an interface (`any`) may hold
// anything.
func primitive(t reflect.Type) *Schema {
	switch t.Kind() {
	case reflect.String:
		return &Schema{Type: "string"}
	case reflect.Bool:
		return &Schema{Type: "boolean"}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16:
		return &Schema{Type: "integer", Format: "int32"}
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return &Schema{Type: "integer", Format: "int64"}
	case reflect.Float32:
		return &Schema{Type: "number", Format: "float"}
	case reflect.Float64:
		return &Schema{Type: "number", Format: "double"}
	case reflect.Slice:
		// []byte: encoding/json writes base64.
		return &Schema{Type: "string", Format: "byte"}
	}
	return &Schema{PreserveUnknownFields: true}
}

// leafComponent is a type that encodes itself in JSON and has its own
// component schema, as upstream's types of the same name do.
type leafComponent struct {
	name   string
	schema func() *Schema
}

// leafComponents are the self-encoding Go types with a component schema.
// Time and MicroTime are strings (so explain shows <string>); Quantity and
// IntOrString have no single type (explain shows their names); raw JSON
// is an object.
var leafComponents = map[reflect.Type]leafComponent{
	reflect.TypeFor[api.Time]():        dateTime(reflect.TypeFor[api.Time]()),
	reflect.TypeFor[api.MicroTime]():   dateTime(reflect.TypeFor[api.MicroTime]()),
	reflect.TypeFor[api.Quantity]():    {SchemaName(reflect.TypeFor[api.Quantity]()), quantitySchema},
	reflect.TypeFor[api.IntOrString](): {SchemaName(reflect.TypeFor[api.IntOrString]()), intOrStringSchema},
	reflect.TypeFor[json.RawMessage](): {runtimePackage + ".RawExtension", rawExtensionSchema},
}

// leafFields are fields whose Go type says too little (`any`) and whose
// upstream schema has a name.
var leafFields = map[string]leafComponent{
	"ManagedFieldsEntry.FieldsV1": {metaPackage + ".FieldsV1", fieldsV1Schema},
}

// dateTime is the component of a timestamp type: an RFC 3339 string.
func dateTime(t reflect.Type) leafComponent {
	return leafComponent{SchemaName(t), func() *Schema {
		return &Schema{Description: typeDoc(t), Type: "string", Format: "date-time"}
	}}
}

func quantitySchema() *Schema {
	return &Schema{
		Description: typeDoc(reflect.TypeFor[api.Quantity]()),
		OneOf:       []*Schema{{Type: "string"}, {Type: "number"}},
	}
}

func intOrStringSchema() *Schema {
	return &Schema{
		Description: typeDoc(reflect.TypeFor[api.IntOrString]()),
		Format:      "int-or-string",
		OneOf:       []*Schema{{Type: "integer"}, {Type: "string"}},
		IntOrString: true,
	}
}

func rawExtensionSchema() *Schema {
	return &Schema{
		Description: "RawExtension is a JSON object kept as it was written, such as the template snapshot a ControllerRevision stores.",
		Type:        "object",
	}
}

func fieldsV1Schema() *Schema {
	return &Schema{
		Description: "FieldsV1 is the set of fields a manager owns, as a JSON tree of field names. kplane stores it as clients send it.",
		Type:        "object",
	}
}
