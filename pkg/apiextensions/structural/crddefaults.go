package structural

import (
	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// validateDefaults is pass 3 of ValidateCRDSchema: each default must be
// what pruning would leave of it ("must not have unknown fields"), must
// give valid apiVersion, kind and metadata if it is an embedded resource,
// and must pass its own schema's validation. Errors name the default's path
// and then, as upstream, the path inside the default value.
//
// insideMeta is true within an embedded resource's apiVersion, kind or
// metadata; there upstream checks the default as part of a whole object,
// kplane checks it against its own schema only.
func validateDefaults(path string, s *api.JSONSchemaProps, insideMeta bool) apierrors.FieldErrorList {
	if s == nil {
		return nil
	}
	if s.XEmbeddedResource {
		insideMeta = false
	}
	var errs apierrors.FieldErrorList
	if len(s.Default) != 0 {
		errs = append(errs, validateDefault(path, s, insideMeta)...)
	}
	// additionalProperties are not followed: defaults are not allowed there.
	if s.Items != nil {
		errs = append(errs, validateDefaults(childPath(path, "items"), s.Items.Schema, insideMeta)...)
	}
	for _, k := range sortedKeys(s.Properties) {
		prop := s.Properties[k]
		sub := insideMeta || (s.XEmbeddedResource && resourceMetaFields[k])
		errs = append(errs, validateDefaults(propertyPath(path, k), &prop, sub)...)
	}
	return errs
}

// validateDefault checks the default of one node.
func validateDefault(path string, s *api.JSONSchemaProps, insideMeta bool) apierrors.FieldErrorList {
	defaultPath := childPath(path, "default")
	value, err := decodeJSON(s.Default)
	if err != nil {
		return apierrors.FieldErrorList{apierrors.Invalid(defaultPath, string(s.Default), err.Error())}
	}
	v := &validator{root: defaultPath}
	if insideMeta {
		return v.node("", s, value).errs
	}
	var errs apierrors.FieldErrorList
	pruned := deepCopyJSON(value)
	pruneValue(pruned, s)
	if !jsonEqual(pruned, value) {
		errs = append(errs, apierrors.Invalid(defaultPath, value, "must not have unknown fields"))
	}
	if metaErrs := validateEmbeddedResources(defaultPath, s, value); len(metaErrs) > 0 {
		return append(errs, metaErrs...)
	}
	return append(errs, v.node("", s, value).errs...)
}
