package structural

import (
	"sort"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// ValidateCRDSchema checks that a CRD version's openAPIV3Schema is a
// structural schema and is otherwise valid as upstream's CRD validation
// requires, with errors under fieldPath (e.g.
// "spec.versions[0].schema.openAPIV3Schema"). Its errors come in
// upstream's order:
//
//  1. structurality (see doc.go), sorted as upstream sorts them;
//  2. only for a structural schema: every default is pruned already,
//     validates against its own schema, and gives valid embedded metadata;
//  3. the OpenAPI subset Kubernetes accepts (no $ref, no patternProperties,
//     known types, list and map types that make sense, no defaults in the
//     root's metadata, rules and messages of x-kubernetes-validations
//     present and on one line, …).
//
// CEL rules (x-kubernetes-validations) are not compiled here.
func ValidateCRDSchema(fieldPath string, s *api.JSONSchemaProps) apierrors.FieldErrorList {
	if s == nil {
		return apierrors.FieldErrorList{apierrors.Required(fieldPath, "schemas are required")}
	}
	var errs apierrors.FieldErrorList
	if s.Nullable {
		errs = append(errs, apierrors.Forbidden(childPath(fieldPath, "nullable"), "nullable cannot be true at the root"))
	}
	structuralErrs := append(validateStructuralInvariants(s, rootLevel, fieldPath), validateStructuralCompleteness(s, fieldPath)...)
	sort.SliceStable(structuralErrs, func(i, j int) bool { return structuralErrs[i].Error() < structuralErrs[j].Error() })
	errs = append(errs, structuralErrs...)
	if len(structuralErrs) == 0 {
		errs = append(errs, validateDefaults(fieldPath, asResource(s), false)...)
	}
	return append(errs, validateOpenAPISubset(s, fieldPath, subsetContext{allowDefaults: true}, true)...)
}

// openAPITypes are the types a CRD schema may name.
var openAPITypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// subsetContext is what pass 1 knows about where it is in the schema.
type subsetContext struct {
	// allowDefaults is false in the root's metadata, apiVersion and kind
	// (the apiserver owns them) and in maps inside resource metadata;
	// disallowReason then says why.
	allowDefaults  bool
	disallowReason string
	// insideResourceMeta is true within a resource's apiVersion, kind or
	// metadata, at the root or in an embedded resource.
	insideResourceMeta bool
}

func (c subsetContext) withForbiddenDefaults(reason string) subsetContext {
	c.allowDefaults, c.disallowReason = false, reason
	return c
}

// validateOpenAPISubset is pass 1, upstream's
// ValidateCustomResourceDefinitionOpenAPISchema for apiextensions/v1.
func validateOpenAPISubset(s *api.JSONSchemaProps, path string, ctx subsetContext, isRoot bool) apierrors.FieldErrorList {
	if s == nil {
		return nil
	}
	var errs apierrors.FieldErrorList
	errs = append(errs, validateSupportedKeywords(s, path, ctx)...)

	if s.UniqueItems {
		errs = append(errs, apierrors.Forbidden(childPath(path, "uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	if s.AdditionalProperties != nil {
		// properties are for structs, additionalProperties for maps: an
		// object that is both would leave unknown fields undecidable.
		if len(s.Properties) != 0 && (!s.AdditionalProperties.Allows || s.AdditionalProperties.Schema != nil) {
			errs = append(errs, apierrors.Forbidden(childPath(path, "additionalProperties"), "additionalProperties and properties are mutual exclusive"))
		}
		sub := ctx
		if ctx.insideResourceMeta {
			// Pruning a default inside a map of metadata (labels, say)
			// would be ambiguous without the actual value.
			sub = ctx.withForbiddenDefaults("inside additionalProperties applying to object metadata")
		}
		errs = append(errs, validateOpenAPISubset(s.AdditionalProperties.Schema, childPath(path, "additionalProperties"), sub, false)...)
	}
	for _, k := range sortedKeys(s.Properties) {
		prop := s.Properties[k]
		sub := ctx
		if (isRoot || s.XEmbeddedResource) && resourceMetaFields[k] {
			sub.insideResourceMeta = true
			if isRoot {
				sub = sub.withForbiddenDefaults("in top-level " + k)
			}
		}
		errs = append(errs, validateOpenAPISubset(&prop, propertyPath(path, k), sub, false)...)
	}
	errs = append(errs, validateOpenAPISubset(s.Not, childPath(path, "not"), ctx, false)...)
	for i := range s.AllOf {
		errs = append(errs, validateOpenAPISubset(&s.AllOf[i], indexPath(childPath(path, "allOf"), i), ctx, false)...)
	}
	for i := range s.OneOf {
		errs = append(errs, validateOpenAPISubset(&s.OneOf[i], indexPath(childPath(path, "oneOf"), i), ctx, false)...)
	}
	for i := range s.AnyOf {
		errs = append(errs, validateOpenAPISubset(&s.AnyOf[i], indexPath(childPath(path, "anyOf"), i), ctx, false)...)
	}
	for _, k := range sortedKeys(s.Definitions) {
		def := s.Definitions[k]
		errs = append(errs, validateOpenAPISubset(&def, keyPath(childPath(path, "definitions"), k), ctx, false)...)
	}
	if s.Items != nil {
		errs = append(errs, validateOpenAPISubset(s.Items.Schema, childPath(path, "items"), ctx, false)...)
		for i := range s.Items.JSONSchemas {
			errs = append(errs, validateOpenAPISubset(&s.Items.JSONSchemas[i], indexPath(childPath(path, "items"), i), ctx, false)...)
		}
	}
	for _, k := range sortedKeys(s.Dependencies) {
		errs = append(errs, validateOpenAPISubset(s.Dependencies[k].Schema, keyPath(childPath(path, "dependencies"), k), ctx, false)...)
	}
	if s.XPreserveUnknownFields != nil && !*s.XPreserveUnknownFields {
		errs = append(errs, apierrors.Invalid(childPath(path, "x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"))
	}
	errs = append(errs, validateMapAndListTypes(s, path)...)
	errs = append(errs, validateRuleShapes(s.XValidations, childPath(path, "x-kubernetes-validations"))...)
	return errs
}

// validateRuleShapes checks what upstream checks of a CEL rule before
// compiling it: a rule is given, and a message, when given, is one
// non-blank line (a multi-line rule needs one).
func validateRuleShapes(rules []api.ValidationRule, path string) apierrors.FieldErrorList {
	var errs apierrors.FieldErrorList
	for i, rule := range rules {
		at := indexPath(path, i)
		trimmedRule, trimmedMessage := strings.TrimSpace(rule.Rule), strings.TrimSpace(rule.Message)
		switch {
		case trimmedRule == "":
			errs = append(errs, apierrors.Required(childPath(at, "rule"), "rule is not specified"))
		case rule.Message != "" && trimmedMessage == "":
			errs = append(errs, apierrors.Invalid(childPath(at, "message"), rule.Message, "message must be non-empty if specified"))
		case strings.ContainsAny(trimmedMessage, "\n\r"):
			errs = append(errs, apierrors.Invalid(childPath(at, "message"), rule.Message, "message must not contain line breaks"))
		case strings.ContainsAny(trimmedRule, "\n\r") && trimmedMessage == "":
			errs = append(errs, apierrors.Required(childPath(at, "message"), "message must be specified if rule contains line breaks"))
		}
	}
	return errs
}

// validateSupportedKeywords refuses the OpenAPI keywords Kubernetes does not
// support in a CRD, and defaults where they are not allowed.
func validateSupportedKeywords(s *api.JSONSchemaProps, path string, ctx subsetContext) apierrors.FieldErrorList {
	var errs apierrors.FieldErrorList
	if s.Type != "" && !contains(openAPITypes, s.Type) {
		errs = append(errs, apierrors.NotSupported(childPath(path, "type"), s.Type, openAPITypes))
	}
	if len(s.Default) != 0 && !ctx.allowDefaults {
		detail := "must not be set"
		if ctx.disallowReason != "" {
			detail += " " + ctx.disallowReason
		}
		errs = append(errs, apierrors.Forbidden(childPath(path, "default"), detail))
	}
	if s.ID != "" {
		errs = append(errs, apierrors.Forbidden(childPath(path, "id"), "id is not supported"))
	}
	if s.AdditionalItems != nil {
		errs = append(errs, apierrors.Forbidden(childPath(path, "additionalItems"), "additionalItems is not supported"))
	}
	if len(s.PatternProperties) != 0 {
		errs = append(errs, apierrors.Forbidden(childPath(path, "patternProperties"), "patternProperties is not supported"))
	}
	if len(s.Definitions) != 0 {
		errs = append(errs, apierrors.Forbidden(childPath(path, "definitions"), "definitions is not supported"))
	}
	if s.Dependencies != nil {
		errs = append(errs, apierrors.Forbidden(childPath(path, "dependencies"), "dependencies is not supported"))
	}
	if s.Ref != nil {
		errs = append(errs, apierrors.Forbidden(childPath(path, "$ref"), "$ref is not supported"))
	}
	if s.Type == "null" {
		errs = append(errs, apierrors.Forbidden(childPath(path, "type"), "type cannot be set to null, use nullable as an alternative"))
	}
	if s.Items != nil && len(s.Items.JSONSchemas) != 0 {
		errs = append(errs, apierrors.Forbidden(childPath(path, "items"), "items must be a schema object and not an array"))
	}
	if ctx.insideResourceMeta && s.XEmbeddedResource {
		errs = append(errs, apierrors.Forbidden(childPath(path, "x-kubernetes-embedded-resource"), "must not be used inside of resource meta"))
	}
	return errs
}

// validateMapAndListTypes checks x-kubernetes-list-type, -map-type and
// -list-map-keys, in upstream's order: a list type needs an array (whose
// items, for a set, must be atomic), a map type an object, map keys a map
// list, and a map list's keys must be required (or defaulted),
// non-nullable scalar properties of its object items.
func validateMapAndListTypes(s *api.JSONSchemaProps, path string) apierrors.FieldErrorList {
	var errs apierrors.FieldErrorList
	var itemSchema *api.JSONSchemaProps
	if s.Items != nil {
		itemSchema = s.Items.Schema
	}
	if s.XListType != nil {
		if s.Type != "array" {
			errs = append(errs, typeMustBe(path, s.Type, "must be array if x-kubernetes-list-type is specified"))
		}
		if s.Type == "array" && *s.XListType == "set" && itemSchema != nil {
			errs = append(errs, validateSetItemsAtomic(itemSchema, childPath(path, "items"))...)
		}
		if *s.XListType != "atomic" && *s.XListType != "set" && *s.XListType != "map" {
			errs = append(errs, apierrors.NotSupported(childPath(path, "x-kubernetes-list-type"), *s.XListType, []string{"atomic", "set", "map"}))
		}
		if *s.XListType == "map" {
			errs = append(errs, validateListMapSchema(s, path)...)
		}
	}
	if s.XMapType != nil {
		if s.Type != "object" {
			errs = append(errs, typeMustBe(path, s.Type, "must be object if x-kubernetes-map-type is specified"))
		}
		if *s.XMapType != "atomic" && *s.XMapType != "granular" {
			errs = append(errs, apierrors.NotSupported(childPath(path, "x-kubernetes-map-type"), *s.XMapType, []string{"atomic", "granular"}))
		}
	}
	if len(s.XListMapKeys) > 0 {
		if s.XListType == nil {
			errs = append(errs, apierrors.Required(childPath(path, "x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"))
		} else if *s.XListType != "map" {
			errs = append(errs, apierrors.Invalid(childPath(path, "x-kubernetes-list-type"), *s.XListType, "must be map if x-kubernetes-list-map-keys is non-empty"))
		}
	}
	if s.XListType != nil && (*s.XListType == "set" || *s.XListType == "map") && itemSchema != nil {
		errs = append(errs, validateListItemsNotNullable(s, itemSchema, path)...)
	}
	return errs
}

// validateSetItemsAtomic: a set compares whole items, so an item that is
// itself a list or an object must be atomic (merged as one value).
func validateSetItemsAtomic(item *api.JSONSchemaProps, items string) apierrors.FieldErrorList {
	// Upstream prints the item's list type as the value in both errors.
	var value any
	if item.XListType != nil {
		value = *item.XListType
	}
	switch item.Type {
	case "array":
		if item.XListType != nil && *item.XListType != "atomic" {
			return apierrors.FieldErrorList{apierrors.Invalid(childPath(items, "x-kubernetes-list-type"), value, "must be atomic as item of a list with x-kubernetes-list-type=set")}
		}
	case "object":
		if item.XMapType == nil || *item.XMapType != "atomic" {
			return apierrors.FieldErrorList{apierrors.Invalid(childPath(items, "x-kubernetes-map-type"), value, "must be atomic as item of a list with x-kubernetes-list-type=set")}
		}
	}
	return nil
}

// typeMustBe is the error for a missing or wrong type that an extension
// needs.
func typeMustBe(path, typ, detail string) *apierrors.FieldError {
	if typ == "" {
		return apierrors.Required(childPath(path, "type"), detail)
	}
	return apierrors.Invalid(childPath(path, "type"), typ, detail)
}

// validateListMapSchema checks a list-type map's keys against its items.
func validateListMapSchema(s *api.JSONSchemaProps, path string) apierrors.FieldErrorList {
	var errs apierrors.FieldErrorList
	items := childPath(path, "items")
	if len(s.XListMapKeys) == 0 {
		errs = append(errs, apierrors.Required(childPath(path, "x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
	}
	switch {
	case s.Items == nil:
		errs = append(errs, apierrors.Required(items, "must have a schema if x-kubernetes-list-type is map"))
	case s.Items.Schema == nil:
		errs = append(errs, apierrors.Invalid(items, s.Items, "must only have a single schema if x-kubernetes-list-type is map"))
	case s.Items.Schema.Type != "object":
		errs = append(errs, apierrors.Invalid(childPath(items, "type"), s.Items.Schema.Type, "must be object if parent array's x-kubernetes-list-type is map"))
	}
	if s.Items == nil || s.Items.Schema == nil || s.Items.Schema.Type != "object" {
		return errs
	}
	item := s.Items.Schema
	seen := map[string]bool{}
	for _, k := range s.XListMapKeys {
		if key, ok := item.Properties[k]; ok {
			if key.Type == "array" || key.Type == "object" {
				errs = append(errs, apierrors.Invalid(childPath(propertyPath(items, k), "type"), item.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
			}
		} else {
			errs = append(errs, apierrors.Invalid(childPath(path, "x-kubernetes-list-map-keys"), s.XListMapKeys, "entries must all be names of item properties"))
		}
		if seen[k] {
			errs = append(errs, apierrors.Invalid(childPath(path, "x-kubernetes-list-map-keys"), s.XListMapKeys, "must not contain duplicate entries"))
		}
		seen[k] = true
	}
	return errs
}

// validateListItemsNotNullable: the items of a set or map list, and a map
// list's keys, cannot be null (null has no identity to merge by), and every
// map key must be required or defaulted.
func validateListItemsNotNullable(s, item *api.JSONSchemaProps, path string) apierrors.FieldErrorList {
	var errs apierrors.FieldErrorList
	items := childPath(path, "items")
	if item.Nullable {
		errs = append(errs, apierrors.Forbidden(childPath(items, "nullable"), "cannot be nullable when x-kubernetes-list-type is "+*s.XListType))
	}
	if *s.XListType != "map" {
		return errs
	}
	for _, k := range s.XListMapKeys {
		key, ok := item.Properties[k]
		if !ok {
			continue
		}
		if !contains(item.Required, k) && len(key.Default) == 0 {
			errs = append(errs, apierrors.Required(childPath(propertyPath(items, k), "default"), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
		}
		if key.Nullable {
			errs = append(errs, apierrors.Forbidden(childPath(propertyPath(items, k), "nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
		}
	}
	return errs
}

// contains says whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
