package cel

import (
	"sort"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"

	"kplane/pkg/api"
)

// maxRequestSizeBytes is the largest body the apiserver accepts (upstream's
// 3 MiB). A list, map or string without maxItems, maxProperties or
// maxLength can be no larger than fits in it; the cost estimate uses that
// bound, as upstream's does.
const maxRequestSizeBytes = 3 * 1024 * 1024

// schemaNode is one node of the schema as CEL sees it: the CEL type of the
// value there, how to reach its children, and the compiled rules that run
// on it. A tree of them mirrors the schema; Compile builds it once per CRD.
type schemaNode struct {
	schema *api.JSONSchemaProps
	// celType is the type self has in a rule on this node.
	celType *cel.Type
	// kind says how the node's value is walked and converted.
	kind nodeKind
	// schemaType is the schema's "type" ("object", "string", …), which a
	// failing rule reports as its value, as upstream does.
	schemaType string
	// format is the string format that changes the CEL type (byte,
	// duration, date, date-time), or "".
	format string
	// properties are an object's fields that a rule can name, sorted by
	// their JSON name so that errors come out in a stable order.
	properties []property
	// fieldsByCELName finds a property by the name a rule uses.
	fieldsByCELName map[string]*schemaNode
	// elements is the node of a list's items or a map's values.
	elements *schemaNode
	// maxSize bounds the length of a string, list or map (from maxLength,
	// maxItems, maxProperties or, failing those, the request size) and the
	// field count of an object; zero for numbers and booleans.
	maxSize uint64
	// rules are the node's x-kubernetes-validations, compiled.
	rules []*compiledRule
	// hasRules is true when the node or a node below it has rules; the
	// validator walks only such subtrees.
	hasRules bool
}

// property is one field of an object node.
type property struct {
	jsonName string
	// celName is the escaped name a rule uses, "" when none can.
	celName string
	node    *schemaNode
}

// nodeKind is the shape of a node's value.
type nodeKind int

const (
	scalarNode nodeKind = iota // string, integer, number, boolean
	objectNode                 // fixed properties: a CEL object type
	mapNode                    // additionalProperties: map(string, V)
	listNode                   // items: list(E)
	dynNode                    // int-or-string, preserve-unknown-fields: dyn
)

// typeRegistry is the CEL type provider for one schema: it knows every
// object type the schema declares, by name, and hands everything else to
// cel-go's own registry. The type checker asks it which fields an object
// has; at run time objects are plain maps, so it supplies no accessors.
type typeRegistry struct {
	*types.Registry
	objects map[string]*schemaNode
}

func newTypeRegistry() (*typeRegistry, error) {
	base, err := types.NewRegistry()
	if err != nil {
		return nil, err
	}
	return &typeRegistry{Registry: base, objects: map[string]*schemaNode{}}, nil
}

// FindStructType reports the schema's object types, then cel-go's.
func (r *typeRegistry) FindStructType(name string) (*types.Type, bool) {
	if _, ok := r.objects[name]; ok {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return r.Registry.FindStructType(name)
}

// FindStructFieldNames lists an object type's fields.
func (r *typeRegistry) FindStructFieldNames(name string) ([]string, bool) {
	n, ok := r.objects[name]
	if !ok {
		return r.Registry.FindStructFieldNames(name)
	}
	names := make([]string, 0, len(n.properties))
	for _, p := range n.properties {
		if p.celName != "" {
			names = append(names, p.celName)
		}
	}
	return names, true
}

// FindStructFieldType gives the type of an object type's field.
func (r *typeRegistry) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	n, ok := r.objects[name]
	if !ok {
		return r.Registry.FindStructFieldType(name, field)
	}
	f, ok := n.fieldsByCELName[field]
	if !ok {
		return nil, false
	}
	return &types.FieldType{Type: f.celType}, true
}

// NewValue refuses to build schema objects inside a rule (Object.spec{…}),
// which kplane does not support yet.
func (r *typeRegistry) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := r.objects[name]; ok {
		return types.NewErr("kplane does not support constructing %s values in CEL yet", name)
	}
	return r.Registry.NewValue(name, fields)
}

// buildNode turns a schema node into a schemaNode. typeName names the CEL
// object type should the node be an object; maxBytes bounds the node's
// JSON size; resourceRoot is true for the root and for
// x-kubernetes-embedded-resource nodes, which gain apiVersion, kind and the
// metadata fields upstream exposes (name and generateName).
func (r *typeRegistry) buildNode(s *api.JSONSchemaProps, typeName string, maxBytes uint64, resourceRoot bool) *schemaNode {
	n := &schemaNode{schema: s, schemaType: s.Type}
	switch {
	case s.XIntOrString:
		n.kind, n.celType = dynNode, cel.DynType
	case s.Type == "object":
		r.buildObjectOrMap(n, s, typeName, maxBytes, resourceRoot)
	case s.Type == "array":
		n.kind = listNode
		elementMin := uint64(1)
		if s.Items != nil && s.Items.Schema != nil {
			n.elements = r.buildNode(s.Items.Schema, typeName+".@items", maxBytes, s.Items.Schema.XEmbeddedResource)
			elementMin = minJSONSize(s.Items.Schema)
		} else {
			n.elements = &schemaNode{schema: &api.JSONSchemaProps{}, kind: dynNode, celType: cel.DynType}
		}
		n.celType = cel.ListType(n.elements.celType)
		// "[" and "]", then each element and a comma.
		n.maxSize = bounded(s.MaxItems, (maxBytes-2)/(elementMin+1)+1)
	case s.Type == "string":
		n.kind = scalarNode
		n.celType, n.format = stringType(s.Format)
		n.maxSize = bounded(s.MaxLength, maxBytes-2)
	case s.Type == "integer":
		n.kind, n.celType = scalarNode, cel.IntType
	case s.Type == "number":
		n.kind, n.celType = scalarNode, cel.DoubleType
	case s.Type == "boolean":
		n.kind, n.celType = scalarNode, cel.BoolType
	default:
		// No type: x-kubernetes-preserve-unknown-fields (or a schema that is
		// not structural, which CRD validation refuses before this).
		n.kind, n.celType = dynNode, cel.DynType
	}
	return n
}

// buildObjectOrMap fills an object node: fixed properties become a CEL
// object type, additionalProperties a map, and an object that keeps
// unknown fields without naming any is dyn.
func (r *typeRegistry) buildObjectOrMap(n *schemaNode, s *api.JSONSchemaProps, typeName string, maxBytes uint64, resourceRoot bool) {
	if !resourceRoot && len(s.Properties) == 0 {
		switch {
		case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
			n.kind = mapNode
			n.elements = r.buildNode(s.AdditionalProperties.Schema, typeName+".@values", maxBytes, s.AdditionalProperties.Schema.XEmbeddedResource)
			n.celType = cel.MapType(cel.StringType, n.elements.celType)
			// `"k":v,` is at least 4 bytes plus the value.
			n.maxSize = bounded(s.MaxProperties, (maxBytes-2)/(minJSONSize(s.AdditionalProperties.Schema)+4)+1)
			return
		case s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields:
			n.kind, n.celType = dynNode, cel.DynType
			n.maxSize = maxBytes
			return
		}
	}
	n.kind = objectNode
	n.celType = cel.ObjectType(typeName)
	n.fieldsByCELName = map[string]*schemaNode{}
	r.objects[typeName] = n
	props := s.Properties
	if resourceRoot {
		props = withTypeAndObjectMeta(props)
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ps := props[name]
		// A property no rule can name keeps celName "": its own rules still
		// run, but its parent's rules cannot see it.
		celName, _ := escapePropertyName(name)
		// Type names use the escaped name, which has no dots, so that a
		// property "a.b" and a property b inside a cannot share a type.
		typeStep := celName
		if typeStep == "" {
			typeStep = "@" + propertyNameEscaper.Replace(name)
		}
		child := r.buildNode(&ps, typeName+"."+typeStep, maxBytes, ps.XEmbeddedResource)
		n.properties = append(n.properties, property{jsonName: name, celName: celName, node: child})
		if celName != "" {
			n.fieldsByCELName[celName] = child
		}
	}
	// An object has at most its declared fields; the cost of comparing two
	// (self == oldSelf, the immutability rule) is bounded by that.
	n.maxSize = uint64(len(n.properties)) + 1
}

// withTypeAndObjectMeta adds apiVersion and kind to a resource's
// properties and replaces metadata by the part of ObjectMeta that rules may
// read: name and generateName. Upstream hides the rest (labels,
// annotations, …) from CRD rules.
func withTypeAndObjectMeta(props map[string]api.JSONSchemaProps) map[string]api.JSONSchemaProps {
	out := make(map[string]api.JSONSchemaProps, len(props)+3)
	for k, v := range props {
		out[k] = v
	}
	stringSchema := api.JSONSchemaProps{Type: "string"}
	if _, ok := out["apiVersion"]; !ok {
		out["apiVersion"] = stringSchema
	}
	if _, ok := out["kind"]; !ok {
		out["kind"] = stringSchema
	}
	out["metadata"] = api.JSONSchemaProps{Type: "object", Properties: map[string]api.JSONSchemaProps{
		"name":         stringSchema,
		"generateName": stringSchema,
	}}
	return out
}

// stringType is the CEL type of a string with the given format: bytes,
// duration and timestamps are their own CEL types, as upstream declares.
func stringType(format string) (*cel.Type, string) {
	switch format {
	case "byte":
		return cel.BytesType, format
	case "duration":
		return cel.DurationType, format
	case "date", "date-time":
		return cel.TimestampType, format
	}
	return cel.StringType, ""
}

// minJSONSize is the fewest bytes a value of the schema takes in JSON; it
// bounds how many of them fit in a request.
func minJSONSize(s *api.JSONSchemaProps) uint64 {
	switch {
	case s.XIntOrString:
		return 1
	case s.Type == "string":
		switch s.Format {
		case "date":
			return uint64(len(`"2006-01-02"`))
		case "date-time":
			return uint64(len(`"2006-01-02T15:04:05Z"`))
		case "duration":
			return uint64(len(`"0s"`))
		}
		if s.MinLength != nil && *s.MinLength > 0 {
			return uint64(*s.MinLength) + 2
		}
		return 2
	case s.Type == "boolean":
		return 4
	case s.Type == "object", s.Type == "array":
		return 2
	}
	return 1
}

// bounded is the schema's limit when it has one and it is the smaller,
// else the bound derived from the request size.
func bounded(limit *int64, derived uint64) uint64 {
	if limit != nil && *limit >= 0 && uint64(*limit) < derived {
		return uint64(*limit)
	}
	return derived
}
