package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"kplane/pkg/apiserver/protobuf"
)

// client-go does not read /openapi/v2 as JSON: it asks for
// application/com.github.proto-openapi.spec.v2@v1.0+protobuf and decodes
// gnostic's openapi_v2.Document message. Upstream's handler produces it by
// parsing its JSON document with gnostic and marshalling the result; this
// file does the same translation, field by field, for the parts of
// Swagger 2.0 that kplane's document uses.
//
// The types below are gnostic's messages (github.com/google/gnostic-models,
// openapiv2/OpenAPIv2.proto) reduced to those parts, with its field
// numbers. A message with a oneof has a pointer per alternative, so that
// only the one that is set is written. Vendor extensions ("x-…" keys) are
// NamedAny messages whose value is the extension's text in YAML; JSON is
// YAML, so the JSON text is stored, and clients read it back with a YAML
// parser as they read upstream's.

type swaggerPB struct {
	Swagger     string               `protobuf:"bytes,1,opt,name=swagger"`
	Info        *swaggerInfoPB       `protobuf:"bytes,2,opt,name=info"`
	Paths       *swaggerPathsPB      `protobuf:"bytes,8,opt,name=paths"`
	Definitions *swaggerPropertiesPB `protobuf:"bytes,9,opt,name=definitions"`
}

type swaggerInfoPB struct {
	Title   string `protobuf:"bytes,1,opt,name=title"`
	Version string `protobuf:"bytes,2,opt,name=version"`
}

type swaggerPathsPB struct {
	Path []swaggerNamedPathItemPB `protobuf:"bytes,2,rep,name=path"`
}

type swaggerNamedPathItemPB struct {
	Name  string             `protobuf:"bytes,1,opt,name=name"`
	Value *swaggerPathItemPB `protobuf:"bytes,2,opt,name=value"`
}

type swaggerPathItemPB struct {
	Get        *swaggerOperationPB  `protobuf:"bytes,2,opt,name=get"`
	Put        *swaggerOperationPB  `protobuf:"bytes,3,opt,name=put"`
	Post       *swaggerOperationPB  `protobuf:"bytes,4,opt,name=post"`
	Delete     *swaggerOperationPB  `protobuf:"bytes,5,opt,name=delete"`
	Patch      *swaggerOperationPB  `protobuf:"bytes,8,opt,name=patch"`
	Parameters []swaggerParameterPB `protobuf:"bytes,9,rep,name=parameters"`
	Extensions []swaggerNamedAnyPB  `protobuf:"bytes,10,rep,name=vendor_extension"`
}

type swaggerOperationPB struct {
	Description string               `protobuf:"bytes,3,opt,name=description"`
	OperationID string               `protobuf:"bytes,5,opt,name=operation_id"`
	Produces    []string             `protobuf:"bytes,6,rep,name=produces"`
	Consumes    []string             `protobuf:"bytes,7,rep,name=consumes"`
	Parameters  []swaggerParameterPB `protobuf:"bytes,8,rep,name=parameters"`
	Responses   *swaggerResponsesPB  `protobuf:"bytes,9,opt,name=responses"`
	Extensions  []swaggerNamedAnyPB  `protobuf:"bytes,13,rep,name=vendor_extension"`
}

// swaggerParameterPB is gnostic's ParametersItem holding a Parameter (the
// other alternative, a reference, kplane does not write).
type swaggerParameterPB struct {
	Parameter *swaggerParameterOneofPB `protobuf:"bytes,1,opt,name=parameter"`
}

// swaggerParameterOneofPB is gnostic's Parameter: a body parameter or any
// other.
type swaggerParameterOneofPB struct {
	Body    *swaggerBodyParameterPB    `protobuf:"bytes,1,opt,name=body_parameter"`
	NonBody *swaggerNonBodyParameterPB `protobuf:"bytes,2,opt,name=non_body_parameter"`
}

type swaggerBodyParameterPB struct {
	Description string           `protobuf:"bytes,1,opt,name=description"`
	Name        string           `protobuf:"bytes,2,opt,name=name"`
	In          string           `protobuf:"bytes,3,opt,name=in"`
	Required    bool             `protobuf:"varint,4,opt,name=required"`
	Schema      *swaggerSchemaPB `protobuf:"bytes,5,opt,name=schema"`
}

// swaggerNonBodyParameterPB is gnostic's NonBodyParameter: a query or a
// path parameter (header and form-data ones kplane does not write).
type swaggerNonBodyParameterPB struct {
	Query *swaggerQueryParameterPB `protobuf:"bytes,3,opt,name=query_parameter_sub_schema"`
	Path  *swaggerPathParameterPB  `protobuf:"bytes,4,opt,name=path_parameter_sub_schema"`
}

type swaggerQueryParameterPB struct {
	Required    bool   `protobuf:"varint,1,opt,name=required"`
	In          string `protobuf:"bytes,2,opt,name=in"`
	Description string `protobuf:"bytes,3,opt,name=description"`
	Name        string `protobuf:"bytes,4,opt,name=name"`
	Type        string `protobuf:"bytes,6,opt,name=type"`
	UniqueItems bool   `protobuf:"varint,20,opt,name=unique_items"`
}

type swaggerPathParameterPB struct {
	Required    bool   `protobuf:"varint,1,opt,name=required"`
	In          string `protobuf:"bytes,2,opt,name=in"`
	Description string `protobuf:"bytes,3,opt,name=description"`
	Name        string `protobuf:"bytes,4,opt,name=name"`
	Type        string `protobuf:"bytes,5,opt,name=type"`
	UniqueItems bool   `protobuf:"varint,19,opt,name=unique_items"`
}

type swaggerResponsesPB struct {
	Codes []swaggerNamedResponsePB `protobuf:"bytes,1,rep,name=response_code"`
}

// swaggerNamedResponsePB is gnostic's NamedResponseValue; its value is a
// ResponseValue holding a Response.
type swaggerNamedResponsePB struct {
	Name  string                  `protobuf:"bytes,1,opt,name=name"`
	Value *swaggerResponseValuePB `protobuf:"bytes,2,opt,name=value"`
}

type swaggerResponseValuePB struct {
	Response *swaggerResponsePB `protobuf:"bytes,1,opt,name=response"`
}

type swaggerResponsePB struct {
	Description string               `protobuf:"bytes,1,opt,name=description"`
	Schema      *swaggerSchemaItemPB `protobuf:"bytes,2,opt,name=schema"`
}

// swaggerSchemaItemPB is gnostic's SchemaItem holding a Schema; it also
// stands for AdditionalPropertiesItem, whose first alternative is a Schema
// with the same field number.
type swaggerSchemaItemPB struct {
	Schema *swaggerSchemaPB `protobuf:"bytes,1,opt,name=schema"`
}

type swaggerSchemaPB struct {
	Ref                  string               `protobuf:"bytes,1,opt,name=_ref"`
	Format               string               `protobuf:"bytes,2,opt,name=format"`
	Description          string               `protobuf:"bytes,4,opt,name=description"`
	Default              *swaggerAnyPB        `protobuf:"bytes,5,opt,name=default"`
	Required             []string             `protobuf:"bytes,19,rep,name=required"`
	AdditionalProperties *swaggerSchemaItemPB `protobuf:"bytes,21,opt,name=additional_properties"`
	Type                 *swaggerTypePB       `protobuf:"bytes,22,opt,name=type"`
	Items                *swaggerItemsPB      `protobuf:"bytes,23,opt,name=items"`
	Properties           *swaggerPropertiesPB `protobuf:"bytes,25,opt,name=properties"`
	Extensions           []swaggerNamedAnyPB  `protobuf:"bytes,31,rep,name=vendor_extension"`
}

type swaggerTypePB struct {
	Value []string `protobuf:"bytes,1,rep,name=value"`
}

type swaggerItemsPB struct {
	Schema []*swaggerSchemaPB `protobuf:"bytes,1,rep,name=schema"`
}

// swaggerPropertiesPB is a list of named schemas: gnostic's Properties,
// and, with the same single field, its Definitions.
type swaggerPropertiesPB struct {
	Named []swaggerNamedSchemaPB `protobuf:"bytes,1,rep,name=additional_properties"`
}

type swaggerNamedSchemaPB struct {
	Name  string           `protobuf:"bytes,1,opt,name=name"`
	Value *swaggerSchemaPB `protobuf:"bytes,2,opt,name=value"`
}

type swaggerNamedAnyPB struct {
	Name  string        `protobuf:"bytes,1,opt,name=name"`
	Value *swaggerAnyPB `protobuf:"bytes,2,opt,name=value"`
}

// swaggerAnyPB is gnostic's Any with only its yaml text set.
type swaggerAnyPB struct {
	YAML string `protobuf:"bytes,2,opt,name=yaml"`
}

// swaggerProtobuf translates the Swagger 2.0 document doc (JSON) into
// gnostic's protobuf message. Map keys become lists sorted by key, as
// upstream's sorted JSON gives them to gnostic.
func swaggerProtobuf(doc []byte) ([]byte, error) {
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode openapi v2 document: %w", err)
	}
	info, _ := v["info"].(map[string]any)
	pb := swaggerPB{
		Swagger: swaggerString(v["swagger"]),
		Info:    &swaggerInfoPB{Title: swaggerString(info["title"]), Version: swaggerString(info["version"])},
		Paths:   &swaggerPathsPB{},
	}
	paths, _ := v["paths"].(map[string]any)
	for _, name := range swaggerKeys(paths) {
		item, _ := paths[name].(map[string]any)
		pb.Paths.Path = append(pb.Paths.Path, swaggerNamedPathItemPB{Name: name, Value: swaggerPathItem(item)})
	}
	definitions, _ := v["definitions"].(map[string]any)
	pb.Definitions = swaggerNamedSchemas(definitions)
	out, err := protobuf.EncodeMessage(&pb)
	if err != nil {
		return nil, fmt.Errorf("encode openapi v2 document: %w", err)
	}
	return out, nil
}

func swaggerPathItem(item map[string]any) *swaggerPathItemPB {
	op := func(key string) *swaggerOperationPB {
		o, ok := item[key].(map[string]any)
		if !ok {
			return nil
		}
		pb := &swaggerOperationPB{
			Description: swaggerString(o["description"]),
			OperationID: swaggerString(o["operationId"]),
			Produces:    swaggerStrings(o["produces"]),
			Consumes:    swaggerStrings(o["consumes"]),
			Parameters:  swaggerParameters(o["parameters"]),
			Extensions:  swaggerExtensions(o),
		}
		if responses, ok := o["responses"].(map[string]any); ok {
			pb.Responses = &swaggerResponsesPB{}
			for _, code := range swaggerKeys(responses) {
				r, _ := responses[code].(map[string]any)
				resp := &swaggerResponsePB{Description: swaggerString(r["description"])}
				if schema, ok := r["schema"].(map[string]any); ok {
					resp.Schema = &swaggerSchemaItemPB{Schema: swaggerSchema(schema)}
				}
				pb.Responses.Codes = append(pb.Responses.Codes, swaggerNamedResponsePB{Name: code, Value: &swaggerResponseValuePB{Response: resp}})
			}
		}
		return pb
	}
	return &swaggerPathItemPB{
		Get: op("get"), Put: op("put"), Post: op("post"), Delete: op("delete"), Patch: op("patch"),
		Parameters: swaggerParameters(item["parameters"]),
		Extensions: swaggerExtensions(item),
	}
}

func swaggerParameters(v any) []swaggerParameterPB {
	list, _ := v.([]any)
	var out []swaggerParameterPB
	for _, p := range list {
		m, _ := p.(map[string]any)
		param := &swaggerParameterOneofPB{}
		switch swaggerString(m["in"]) {
		case "body":
			schema, _ := m["schema"].(map[string]any)
			param.Body = &swaggerBodyParameterPB{Description: swaggerString(m["description"]), Name: swaggerString(m["name"]), In: "body",
				Required: m["required"] == true, Schema: swaggerSchema(schema)}
		case "path":
			param.NonBody = &swaggerNonBodyParameterPB{Path: &swaggerPathParameterPB{Required: m["required"] == true, In: "path",
				Description: swaggerString(m["description"]), Name: swaggerString(m["name"]), Type: swaggerString(m["type"]), UniqueItems: m["uniqueItems"] == true}}
		default:
			param.NonBody = &swaggerNonBodyParameterPB{Query: &swaggerQueryParameterPB{Required: m["required"] == true, In: swaggerString(m["in"]),
				Description: swaggerString(m["description"]), Name: swaggerString(m["name"]), Type: swaggerString(m["type"]), UniqueItems: m["uniqueItems"] == true}}
		}
		out = append(out, swaggerParameterPB{Parameter: param})
	}
	return out
}

// swaggerSchema translates one schema and everything below it.
func swaggerSchema(m map[string]any) *swaggerSchemaPB {
	if m == nil {
		return nil
	}
	pb := &swaggerSchemaPB{
		Ref:         swaggerString(m["$ref"]),
		Format:      swaggerString(m["format"]),
		Description: swaggerString(m["description"]),
		Required:    swaggerStrings(m["required"]),
		Extensions:  swaggerExtensions(m),
	}
	if d, ok := m["default"]; ok {
		pb.Default = &swaggerAnyPB{YAML: jsonText(d)}
	}
	switch t := m["type"].(type) {
	case string:
		pb.Type = &swaggerTypePB{Value: []string{t}}
	case []any:
		pb.Type = &swaggerTypePB{Value: swaggerStrings(t)}
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok {
		pb.AdditionalProperties = &swaggerSchemaItemPB{Schema: swaggerSchema(ap)}
	}
	switch items := m["items"].(type) {
	case map[string]any:
		pb.Items = &swaggerItemsPB{Schema: []*swaggerSchemaPB{swaggerSchema(items)}}
	case []any:
		pb.Items = &swaggerItemsPB{}
		for _, i := range items {
			s, _ := i.(map[string]any)
			pb.Items.Schema = append(pb.Items.Schema, swaggerSchema(s))
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		pb.Properties = swaggerNamedSchemas(props)
	}
	return pb
}

func swaggerNamedSchemas(schemas map[string]any) *swaggerPropertiesPB {
	out := &swaggerPropertiesPB{}
	for _, name := range swaggerKeys(schemas) {
		s, _ := schemas[name].(map[string]any)
		out.Named = append(out.Named, swaggerNamedSchemaPB{Name: name, Value: swaggerSchema(s)})
	}
	return out
}

// swaggerExtensions are the "x-…" members of a JSON object, by name.
func swaggerExtensions(m map[string]any) []swaggerNamedAnyPB {
	var out []swaggerNamedAnyPB
	for _, name := range swaggerKeys(m) {
		if strings.HasPrefix(name, "x-") {
			out = append(out, swaggerNamedAnyPB{Name: name, Value: &swaggerAnyPB{YAML: jsonText(m[name])}})
		}
	}
	return out
}

// jsonText is v written back as JSON, which YAML readers accept.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// v came from decoding JSON, so it encodes again.
		panic("openapi v2: re-encode " + err.Error())
	}
	return string(b)
}

// swaggerString is v if it is a JSON string, else "".
func swaggerString(v any) string {
	s, _ := v.(string)
	return s
}

// swaggerStrings are the strings of a JSON list.
func swaggerStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, s := range list {
		out = append(out, swaggerString(s))
	}
	return out
}

// swaggerKeys are the keys of a JSON object, sorted.
func swaggerKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
