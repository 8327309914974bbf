package structural

import (
	"encoding/json"
	"fmt"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/validation"
)

// validateEmbeddedResources checks every value whose schema has
// x-kubernetes-embedded-resource: a whole object inside the object (a pod
// template, say), which must carry apiVersion and kind and whose metadata
// must be valid ObjectMeta. The root itself is the apiserver's to check.
func validateEmbeddedResources(path string, s *api.JSONSchemaProps, data any) apierrors.FieldErrorList {
	if s == nil {
		return nil
	}
	var errs apierrors.FieldErrorList
	switch data := data.(type) {
	case map[string]any:
		if s.XEmbeddedResource {
			errs = append(errs, validateEmbeddedResource(path, data)...)
		}
		for _, k := range sortedKeys(data) {
			if prop, ok := s.Properties[k]; ok {
				errs = append(errs, validateEmbeddedResources(childPath(path, k), &prop, data[k])...)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
				errs = append(errs, validateEmbeddedResources(keyPath(path, k), s.AdditionalProperties.Schema, data[k])...)
			}
		}
	case []any:
		if s.Items != nil && s.Items.Schema != nil {
			for i, item := range data {
				errs = append(errs, validateEmbeddedResources(indexPath(path, i), s.Items.Schema, item)...)
			}
		}
	}
	return errs
}

// validateEmbeddedResource checks one embedded object's apiVersion, kind and
// metadata, with upstream's messages.
func validateEmbeddedResource(path string, obj map[string]any) apierrors.FieldErrorList {
	var errs apierrors.FieldErrorList
	if _, found := obj["apiVersion"]; !found {
		errs = append(errs, apierrors.Required(childPath(path, "apiVersion"), ""))
	}
	if _, found := obj["kind"]; !found {
		errs = append(errs, apierrors.Required(childPath(path, "kind"), ""))
	}
	for _, k := range []string{"apiVersion", "kind", "metadata"} {
		value, found := obj[k]
		if !found {
			continue
		}
		field := childPath(path, k)
		switch k {
		case "apiVersion":
			apiVersion, ok := value.(string)
			switch {
			case !ok:
				errs = append(errs, apierrors.Invalid(field, value, "must be a string"))
			case apiVersion == "":
				errs = append(errs, apierrors.Required(field, ""))
			case strings.Count(apiVersion, "/") > 1:
				errs = append(errs, apierrors.Invalid(field, apiVersion, "unexpected GroupVersion string: "+apiVersion))
			}
		case "kind":
			kind, ok := value.(string)
			switch {
			case !ok:
				errs = append(errs, apierrors.Invalid(field, value, "must be a string"))
			case kind == "":
				errs = append(errs, apierrors.Required(field, ""))
			default:
				if msgs := validation.IsDNS1035Label(strings.ToLower(kind)); len(msgs) > 0 {
					errs = append(errs, apierrors.Invalid(field, kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
				}
			}
		case "metadata":
			meta, err := objectMetaOf(value)
			if err != nil {
				errs = append(errs, apierrors.Invalid(field, value, err.Error()))
				continue
			}
			if meta.Name == "" {
				// Embedded objects often leave the name to whoever creates
				// them from the template; upstream validates with a stand-in.
				meta.Name = "fakename"
			}
			errs = append(errs, validation.ValidateObjectMeta(meta, meta.Namespace != "", validation.NameIsPathSegment, field)...)
		}
	}
	return errs
}

// objectMetaOf reads an embedded metadata value as ObjectMeta.
func objectMetaOf(value any) (*api.ObjectMeta, error) {
	if _, ok := value.(map[string]any); !ok {
		return nil, fmt.Errorf("invalid metadata: expected object, got %T", value)
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	meta := &api.ObjectMeta{}
	if err := json.Unmarshal(raw, meta); err != nil {
		return nil, err
	}
	return meta, nil
}
