package openapi

import "strings"

// Swagger 2.0 (OpenAPI v2) is the older form of the same schemas, served
// as one document at /openapi/v2. kubectl 1.27 and 1.28 read it (as
// protobuf) for apply's strategic merge patch, for explain and to learn
// which kinds the server validates itself; Helm's client-go reads it to
// validate charts. Upstream generates both forms from one model; kplane
// derives the v2 definitions from the v3 component schemas, so the two
// always describe the same fields. They differ in spelling only:
//
//   - references point into "#/definitions/" instead of
//     "#/components/schemas/";
//   - a reference sits bare beside its description
//     ({"$ref": …, "description": …}), where v3 wraps it in allOf;
//   - a value of several JSON types (Quantity, IntOrString) is a string,
//     with IntOrString's format int-or-string, as upstream's v2 document
//     writes them, since Swagger 2.0 has no oneOf.

// definitionsPrefix starts every reference in a Swagger 2.0 document.
const definitionsPrefix = "#/definitions/"

// SwaggerRef returns the Swagger 2.0 reference to the definition named name.
func SwaggerRef(name string) string { return definitionsPrefix + name }

// SwaggerDefinitions returns, by definition name, the Swagger 2.0 schema of
// each kind and of every type its fields reach: ComponentSchemas in the
// spelling of OpenAPI v2. The names are the same as v3's
// (io.k8s.api.apps.v1.Deployment), and each kind's schema carries its
// x-kubernetes-group-version-kind.
func SwaggerDefinitions(kinds []Kind) map[string]*Schema {
	components := ComponentSchemas(kinds)
	definitions := make(map[string]*Schema, len(components))
	for name, s := range components {
		definitions[name] = swaggerSchema(s)
	}
	return definitions
}

// swaggerSchema returns a copy of the v3 schema s in Swagger 2.0's
// spelling; s is left as it was.
func swaggerSchema(s *Schema) *Schema {
	if s == nil {
		return nil
	}
	out := *s
	if len(s.AllOf) == 1 && s.AllOf[0].Ref != "" {
		out.Ref, out.AllOf = s.AllOf[0].Ref, nil
	}
	if out.Ref != "" {
		out.Ref = SwaggerRef(strings.TrimPrefix(out.Ref, Ref("")))
	}
	if len(s.OneOf) > 0 {
		out.Type, out.OneOf = "string", nil
	}
	out.Items = swaggerSchema(s.Items)
	out.AdditionalProperties = swaggerSchema(s.AdditionalProperties)
	if s.Properties != nil {
		out.Properties = make(map[string]*Schema, len(s.Properties))
		for name, p := range s.Properties {
			out.Properties[name] = swaggerSchema(p)
		}
	}
	return &out
}
