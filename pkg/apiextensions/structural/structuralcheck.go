package structural

import (
	"fmt"
	"reflect"
	"regexp"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// level is where a schema node sits, which decides what its type may be.
type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// validateStructuralInvariants is pass 2 of ValidateCRDSchema: every node
// outside allOf/anyOf/oneOf/not says its type (or is int-or-string or keeps
// unknown fields), junctors only add value validations, embedded resources
// are objects, and the root's metadata restricts at most name and
// generateName.
func validateStructuralInvariants(s *api.JSONSchemaProps, lvl level, path string) apierrors.FieldErrorList {
	if s == nil {
		return nil
	}
	var errs apierrors.FieldErrorList
	if s.Type == "array" && (s.Items == nil || s.Items.Schema == nil) {
		errs = append(errs, apierrors.Required(childPath(path, "items"), "must be specified"))
	}
	if s.Items != nil {
		errs = append(errs, validateStructuralInvariants(s.Items.Schema, itemLevel, childPath(path, "items"))...)
	}
	for _, k := range sortedKeys(s.Properties) {
		prop := s.Properties[k]
		errs = append(errs, validateStructuralInvariants(&prop, fieldLevel, propertyPath(path, k))...)
	}
	if s.AdditionalProperties != nil {
		if lvl == rootLevel {
			errs = append(errs, apierrors.Forbidden(childPath(path, "additionalProperties"), "must not be used at the root"))
		}
		errs = append(errs, validateStructuralInvariants(s.AdditionalProperties.Schema, fieldLevel, childPath(path, "additionalProperties"))...)
	}

	if s.XIntOrString && preservesUnknownFields(s) {
		errs = append(errs, apierrors.Invalid(childPath(path, "x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if s.XIntOrString && s.XEmbeddedResource {
		errs = append(errs, apierrors.Invalid(childPath(path, "x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"))
	}

	// int-or-string may be spelled out as anyOf [integer, string], alone or
	// as the first part of an allOf: those two types are then allowed.
	errs = append(errs, validateValueValidation(s, isIntOrStringAnyOf(s.AnyOf), len(s.AllOf) > 0 && isIntOrStringAnyOf(s.AllOf[0].AnyOf), path)...)

	checkMetadata := lvl == rootLevel || s.XEmbeddedResource
	switch {
	case s.XEmbeddedResource && s.Type != "object":
		errs = append(errs, typeMustBe(path, s.Type, "must be object if x-kubernetes-embedded-resource is true"))
	case s.Type == "" && !s.XIntOrString && !preservesUnknownFields(s):
		detail := map[level]string{
			rootLevel:  "must not be empty at the root",
			itemLevel:  "must not be empty for specified array items",
			fieldLevel: "must not be empty for specified object fields",
		}[lvl]
		errs = append(errs, apierrors.Required(childPath(path, "type"), detail))
	}
	if s.XEmbeddedResource && s.AdditionalProperties != nil {
		errs = append(errs, apierrors.Forbidden(childPath(path, "additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"))
	}
	if lvl == rootLevel && s.Type != "" && s.Type != "object" {
		errs = append(errs, apierrors.Invalid(childPath(path, "type"), s.Type, "must be object at the root"))
	}
	for _, k := range []string{"kind", "apiVersion"} {
		if prop, found := s.Properties[k]; found && checkMetadata && prop.Type != "string" {
			errs = append(errs, apierrors.Invalid(childPath(propertyPath(path, k), "type"), prop.Type, "must be string"))
		}
	}
	if metadata, found := s.Properties["metadata"]; found {
		errs = append(errs, validateMetadataSchema(&metadata, checkMetadata, lvl, propertyPath(path, "metadata"))...)
	}
	if s.XEmbeddedResource && !preservesUnknownFields(s) && len(s.Properties) == 0 {
		errs = append(errs, apierrors.Required(childPath(path, "properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}
	return errs
}

// intOrStringTypes is anyOf [{type: integer}, {type: string}].
var intOrStringTypes = []api.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}

func isIntOrStringAnyOf(anyOf []api.JSONSchemaProps) bool {
	return reflect.DeepEqual(anyOf, intOrStringTypes)
}

// validateMetadataSchema checks the schema of a resource's metadata: an
// object, and at the root nothing but restrictions of name and generateName
// (the apiserver owns the rest of ObjectMeta).
func validateMetadataSchema(s *api.JSONSchemaProps, checkMetadata bool, lvl level, path string) apierrors.FieldErrorList {
	var errs apierrors.FieldErrorList
	if checkMetadata && s.Type != "object" {
		errs = append(errs, apierrors.Invalid(childPath(path, "type"), s.Type, "must be object"))
	}
	if lvl != rootLevel {
		return errs
	}
	rest := *s
	_, hasName := rest.Properties["name"]
	_, hasGenerateName := rest.Properties["generateName"]
	switch {
	case hasName && hasGenerateName && len(rest.Properties) == 2,
		(hasName || hasGenerateName) && len(rest.Properties) == 1:
		rest.Properties = nil
	}
	rest.Type, rest.Default = "", nil
	if !isEmptySchema(&rest) {
		errs = append(errs, apierrors.Forbidden(path, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
	}
	return errs
}

// isEmptySchema says whether s specifies nothing at all.
func isEmptySchema(s *api.JSONSchemaProps) bool {
	empty := api.JSONSchemaProps{}
	clone := *s
	if len(clone.Properties) == 0 {
		clone.Properties = nil
	}
	if len(clone.Enum) == 0 {
		clone.Enum = nil
	}
	if len(clone.Required) == 0 {
		clone.Required = nil
	}
	if clone.XPreserveUnknownFields != nil && !*clone.XPreserveUnknownFields {
		clone.XPreserveUnknownFields = nil
	}
	// Keywords a structural schema does not carry (examples, $schema) do
	// not count; the others are refused by pass 1 anyway.
	clone.Example, clone.Schema, clone.ID = nil, "", ""
	return reflect.DeepEqual(clone, empty)
}

// validateValueValidation checks the junctors of a node (and of junctors
// within junctors), and that its pattern compiles.
func validateValueValidation(s *api.JSONSchemaProps, skipAnyOf, skipFirstAllOfAnyOf bool, path string) apierrors.FieldErrorList {
	var errs apierrors.FieldErrorList
	if !skipAnyOf {
		for i := range s.AnyOf {
			errs = append(errs, validateNested(&s.AnyOf[i], false, indexPath(childPath(path, "anyOf"), i))...)
		}
	}
	for i := range s.AllOf {
		errs = append(errs, validateNested(&s.AllOf[i], skipFirstAllOfAnyOf && i == 0, indexPath(childPath(path, "allOf"), i))...)
	}
	for i := range s.OneOf {
		errs = append(errs, validateNested(&s.OneOf[i], false, indexPath(childPath(path, "oneOf"), i))...)
	}
	if s.Not != nil {
		errs = append(errs, validateNested(s.Not, false, childPath(path, "not"))...)
	}
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			errs = append(errs, apierrors.Invalid(childPath(path, "pattern"), s.Pattern, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err)))
		}
	}
	return errs
}

// validateNested checks a schema inside allOf/anyOf/oneOf/not: it may only
// add value validations (and name properties and items the outer schema
// specifies), never say what a field is — no type, default, description,
// nullable or x-kubernetes-* extension — so there is one answer to "what is
// this field" whichever branch applies.
func validateNested(s *api.JSONSchemaProps, skipAnyOf bool, path string) apierrors.FieldErrorList {
	var errs apierrors.FieldErrorList
	errs = append(errs, validateValueValidation(s, skipAnyOf, false, path)...)
	if s.Items != nil && s.Items.Schema != nil {
		errs = append(errs, validateNested(s.Items.Schema, false, childPath(path, "items"))...)
	}
	for _, k := range sortedKeys(s.Properties) {
		prop := s.Properties[k]
		errs = append(errs, validateNested(&prop, false, propertyPath(path, k))...)
	}
	forbid := func(field, detail string) {
		errs = append(errs, apierrors.Forbidden(childPath(path, field), detail))
	}
	if s.Type != "" {
		forbid("type", "must be empty to be structural")
	}
	if s.AdditionalProperties != nil {
		forbid("additionalProperties", "must be undefined to be structural")
	}
	if len(s.Default) != 0 {
		forbid("default", "must be undefined to be structural")
	}
	if s.Title != "" {
		forbid("title", "must be empty to be structural")
	}
	if s.Description != "" {
		forbid("description", "must be empty to be structural")
	}
	if s.Nullable {
		forbid("nullable", "must be false to be structural")
	}
	if s.ExternalDocs != nil {
		forbid("externalDocs", "must be undefined to be structural")
	}
	if preservesUnknownFields(s) {
		forbid("x-kubernetes-preserve-unknown-fields", "must be false to be structural")
	}
	if s.XEmbeddedResource {
		forbid("x-kubernetes-embedded-resource", "must be false to be structural")
	}
	if s.XIntOrString {
		forbid("x-kubernetes-int-or-string", "must be false to be structural")
	}
	if len(s.XListMapKeys) > 0 {
		forbid("x-kubernetes-list-map-keys", "must be empty to be structural")
	}
	if s.XListType != nil {
		forbid("x-kubernetes-list-type", "must be undefined to be structural")
	}
	if s.XMapType != nil {
		forbid("x-kubernetes-map-type", "must be undefined to be structural")
	}
	if len(s.XValidations) > 0 {
		forbid("x-kubernetes-validations", "must be empty to be structural")
	}
	if _, found := s.Properties["metadata"]; found {
		errs = append(errs, apierrors.Forbidden(propertyPath(path, "metadata"), "must not be specified in a nested context"))
	}
	return errs
}

// validateStructuralCompleteness checks that every property or items a
// junctor names is also specified outside the junctors, at the same place.
func validateStructuralCompleteness(s *api.JSONSchemaProps, path string) apierrors.FieldErrorList {
	if s == nil {
		return nil
	}
	errs := junctorCompleteness(s, s, path, path)
	if s.Items != nil {
		errs = append(errs, validateStructuralCompleteness(s.Items.Schema, childPath(path, "items"))...)
	}
	for _, k := range sortedKeys(s.Properties) {
		prop := s.Properties[k]
		errs = append(errs, validateStructuralCompleteness(&prop, propertyPath(path, k))...)
	}
	if s.AdditionalProperties != nil {
		errs = append(errs, validateStructuralCompleteness(s.AdditionalProperties.Schema, childPath(path, "additionalProperties"))...)
	}
	return errs
}

// junctorCompleteness checks the junctors of v against the structural
// schema s they apply to (sPath is where s is, vPath where v is).
func junctorCompleteness(v, s *api.JSONSchemaProps, sPath, vPath string) apierrors.FieldErrorList {
	var errs apierrors.FieldErrorList
	if v.Not != nil {
		errs = append(errs, nestedCompleteness(v.Not, s, sPath, childPath(vPath, "not"))...)
	}
	for i := range v.AllOf {
		errs = append(errs, nestedCompleteness(&v.AllOf[i], s, sPath, indexPath(childPath(vPath, "allOf"), i))...)
	}
	for i := range v.AnyOf {
		errs = append(errs, nestedCompleteness(&v.AnyOf[i], s, sPath, indexPath(childPath(vPath, "anyOf"), i))...)
	}
	for i := range v.OneOf {
		errs = append(errs, nestedCompleteness(&v.OneOf[i], s, sPath, indexPath(childPath(vPath, "oneOf"), i))...)
	}
	return errs
}

// nestedCompleteness checks one junctor schema v against s.
func nestedCompleteness(v, s *api.JSONSchemaProps, sPath, vPath string) apierrors.FieldErrorList {
	if v == nil {
		return nil
	}
	if s == nil {
		return apierrors.FieldErrorList{apierrors.Required(sPath, "because it is defined in "+vPath)}
	}
	errs := junctorCompleteness(v, s, sPath, vPath)
	if v.Items != nil && v.Items.Schema != nil {
		var items *api.JSONSchemaProps
		if s.Items != nil {
			items = s.Items.Schema
		}
		errs = append(errs, nestedCompleteness(v.Items.Schema, items, childPath(sPath, "items"), childPath(vPath, "items"))...)
	}
	for _, k := range sortedKeys(v.Properties) {
		vProp := v.Properties[k]
		sProp, ok := s.Properties[k]
		if !ok {
			errs = append(errs, apierrors.Required(propertyPath(sPath, k), "because it is defined in "+propertyPath(vPath, k)))
			continue
		}
		errs = append(errs, nestedCompleteness(&vProp, &sProp, propertyPath(sPath, k), propertyPath(vPath, k))...)
	}
	return errs
}
