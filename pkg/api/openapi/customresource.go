package openapi

import (
	"reflect"
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/schema"
)

// A custom resource has no Go type: its schema is the openAPIV3Schema its
// CRD gives for the version. Published, it looks like a built-in kind's, so
// `kubectl explain website.spec` reads it the same way: apiVersion, kind
// and metadata are added as every kind has them (metadata a reference to
// ObjectMeta), the schema carries x-kubernetes-group-version-kind, and a
// list kind (WebsiteList) sits beside it. The component name is the group
// reversed, then version and kind: com.example.shop.v1.Website for group
// shop.example.com, as upstream names them.

// CustomResourceSchemaName returns the component name of a custom kind:
// the group's domain reversed, then version and kind.
func CustomResourceSchemaName(group, version, kind string) string {
	parts := strings.Split(group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + version + "." + kind
}

// CustomResourceSchemas returns the component schemas the group-version
// document of a CRD's version must hold: the kind's, its list kind's, and
// ObjectMeta's and ListMeta's with every type they reach. It returns nil
// when the CRD has no such version.
func CustomResourceSchemas(crd *api.CustomResourceDefinition, version string) map[string]*Schema {
	v := crdVersion(crd, version)
	if v == nil {
		return nil
	}
	b := &builder{schemas: map[string]*Schema{}}
	var root *api.JSONSchemaProps
	if v.Schema != nil {
		root = v.Schema.OpenAPIV3Schema
	}
	gvk := func(kind string) []GroupVersionKind {
		return []GroupVersionKind{{Group: crd.Spec.Group, Version: version, Kind: kind}}
	}

	kind := &Schema{Type: "object"}
	if root != nil {
		kind = fromJSONSchema(root)
		b.addTypeMeta(kind, reflect.TypeFor[api.ConfigMap](), objectMetadataDescription)
	}
	kind.GroupVersionKinds = gvk(crd.Spec.Names.Kind)
	kindName := CustomResourceSchemaName(crd.Spec.Group, version, crd.Spec.Names.Kind)
	b.schemas[kindName] = kind

	listKind := crd.Spec.Names.ListKind
	if listKind == "" {
		listKind = crd.Spec.Names.Kind + "List"
	}
	list := &Schema{
		Description: listKind + " is a list of " + crd.Spec.Names.Kind,
		Type:        "object",
		Required:    []string{"items"},
		Properties: map[string]*Schema{"items": {
			Description: "List of " + crd.Spec.Names.Plural + ". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md",
			Type:        "array",
			Items:       &Schema{Ref: Ref(kindName)},
		}},
		GroupVersionKinds: gvk(listKind),
	}
	b.addTypeMeta(list, reflect.TypeFor[api.List[api.ConfigMap]](), listMetadataDescription)
	b.schemas[CustomResourceSchemaName(crd.Spec.Group, version, listKind)] = list
	return b.schemas
}

// CustomResourceSwaggerDefinitions returns CustomResourceSchemas in
// Swagger 2.0's spelling, with what OpenAPI v2 cannot say taken out as
// upstream does it for kubectl's client-side validation: a nullable value
// loses its type, items and properties (and is not required); a value
// that keeps unknown fields loses its items and properties, and its type
// if that is object; an array left without items loses its type. A kind
// whose whole object keeps unknown fields is published as a bare object.
func CustomResourceSwaggerDefinitions(crd *api.CustomResourceDefinition, version string) map[string]*Schema {
	components := CustomResourceSchemas(crd, version)
	if components == nil {
		return nil
	}
	kindName := CustomResourceSchemaName(crd.Spec.Group, version, crd.Spec.Names.Kind)
	definitions := make(map[string]*Schema, len(components))
	for name, s := range components {
		if name == kindName {
			if s.PreserveUnknownFields {
				s = &Schema{Type: "object", GroupVersionKinds: s.GroupVersionKinds}
			} else {
				s = forSwagger(s)
			}
		}
		definitions[name] = swaggerSchema(s)
	}
	return definitions
}

// crdVersion finds the named version of a CRD.
func crdVersion(crd *api.CustomResourceDefinition, version string) *api.CustomResourceDefinitionVersion {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == version {
			return &crd.Spec.Versions[i]
		}
	}
	return nil
}

// The descriptions upstream gives a custom kind's apiVersion, kind and
// metadata, which `kubectl explain crontab` prints. pkg/api's TypeMeta
// fields carry no doc comment to take them from.
const (
	apiVersionDescription     = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	kindDescription           = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	objectMetadataDescription = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
	listMetadataDescription   = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// addTypeMeta gives s the apiVersion, kind and metadata properties that
// the built-in kind goType has, described as upstream describes them
// (metadata by metadataDescription), and makes sure the component schemas
// metadata refers to exist.
func (b *builder) addTypeMeta(s *Schema, goType reflect.Type, metadataDescription string) {
	owner := schema.Of(goType)
	if s.Properties == nil {
		s.Properties = map[string]*Schema{}
	}
	descriptions := map[string]string{"apiVersion": apiVersionDescription, "kind": kindDescription, "metadata": metadataDescription}
	for _, f := range owner.Fields {
		if description, ok := descriptions[f.Name]; ok {
			p := b.field(owner, f)
			if p.Description == "" {
				p.Description = description
			}
			s.Properties[f.Name] = p
		}
	}
}

// fromJSONSchema converts a CRD's schema node, and everything below it,
// to a published schema.
func fromJSONSchema(p *api.JSONSchemaProps) *Schema {
	s := &Schema{
		Description: p.Description, Type: p.Type, Format: p.Format,
		Required: p.Required, Nullable: p.Nullable, Enum: p.Enum, Pattern: p.Pattern,
		Minimum: p.Minimum, ExclusiveMinimum: p.ExclusiveMinimum,
		Maximum: p.Maximum, ExclusiveMaximum: p.ExclusiveMaximum, MultipleOf: p.MultipleOf,
		MinLength: p.MinLength, MaxLength: p.MaxLength,
		MinItems: p.MinItems, MaxItems: p.MaxItems, UniqueItems: p.UniqueItems,
		MinProperties: p.MinProperties, MaxProperties: p.MaxProperties,
		IntOrString: p.XIntOrString, EmbeddedResource: p.XEmbeddedResource,
		ListMapKeys: p.XListMapKeys, Validations: p.XValidations,
	}
	if len(p.Default) > 0 {
		s.Default = p.Default
	}
	if p.XPreserveUnknownFields != nil {
		s.PreserveUnknownFields = *p.XPreserveUnknownFields
	}
	if p.XListType != nil {
		s.ListType = *p.XListType
	}
	if p.XMapType != nil {
		s.MapType = *p.XMapType
	}
	if p.Items != nil && p.Items.Schema != nil {
		s.Items = fromJSONSchema(p.Items.Schema)
	}
	if p.AdditionalProperties != nil && p.AdditionalProperties.Schema != nil {
		s.AdditionalProperties = fromJSONSchema(p.AdditionalProperties.Schema)
	}
	if len(p.Properties) > 0 {
		s.Properties = make(map[string]*Schema, len(p.Properties))
		for name, child := range p.Properties {
			s.Properties[name] = fromJSONSchema(&child)
		}
	}
	return s
}

// forSwagger returns a copy of a custom kind's schema with what OpenAPI v2
// cannot express removed (see CustomResourceSwaggerDefinitions). References
// (to ObjectMeta, to the kind from its list) are left as they are.
func forSwagger(s *Schema) *Schema {
	if s == nil || s.Ref != "" || len(s.AllOf) > 0 {
		return s
	}
	out := *s
	if out.Nullable {
		out.Type, out.Nullable, out.Items, out.Properties = "", false, nil, nil
	}
	if out.PreserveUnknownFields {
		out.Items, out.Properties = nil, nil
		if out.Type == "object" {
			out.Type = ""
		}
	}
	if out.Type == "array" && out.Items == nil {
		out.Type = ""
	}
	out.Items = forSwagger(out.Items)
	out.AdditionalProperties = forSwagger(out.AdditionalProperties)
	if out.AdditionalProperties != nil && s.AdditionalProperties.Nullable {
		out.Required = nil
	}
	if out.Properties != nil {
		out.Properties = make(map[string]*Schema, len(s.Properties))
		for name, p := range s.Properties {
			out.Properties[name] = forSwagger(p)
			if p.Nullable {
				out.Required = slices.DeleteFunc(slices.Clone(out.Required), func(r string) bool { return r == name })
			}
		}
	}
	return &out
}
