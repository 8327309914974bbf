package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/validation"
	"kplane/pkg/apiserver/decode"
)

// How the generic write path treats a custom resource's object
// (api.CustomObject), where a built-in kind has Go fields: its status is
// Content["status"], its schema prunes, defaults and validates it (through
// customResourceSchemas, crd_schema.go), and a CRD being deleted takes no
// new objects.

// decodeCustomObject decodes a JSON body for a custom resource. The
// fields its schema does not know are pruned here, as upstream's decoder
// prunes them, and reported as the request's unknown-field policy says:
// warnings (Warn), a 400 (Strict), or nothing (Ignore).
func decodeCustomObject(res *resource, jsonBody []byte, policy string) (api.Object, []string, error) {
	cannotHandle := func(err error) error {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", res.kind, res.version, res.kind, err))
	}
	obj := &api.CustomObject{}
	if err := json.Unmarshal(jsonBody, obj); err != nil {
		return nil, nil, cannotHandle(err)
	}
	if err := checkTypeMeta(res, obj.APIVersion, obj.Kind); err != nil {
		return nil, nil, err
	}
	if obj.Content == nil {
		obj.Content = map[string]any{}
	}
	var warnings []string
	if schema := res.custom.schema; schema != nil {
		for _, path := range customResourceSchemas.Prune(obj.Content, schema) {
			warnings = append(warnings, fmt.Sprintf("unknown field %q", path))
		}
	}
	switch {
	case policy == "Strict" && len(warnings) > 0:
		return nil, nil, cannotHandle(&decode.StrictDecodingError{Errors: warnings})
	case policy == "Ignore":
		warnings = nil
	}
	return obj, warnings, nil
}

// admitCustomResource is a custom resource's admission: a create while
// the CRD terminates is refused as upstream refuses it (405); a create
// with a status subresource drops the status sent, as upstream's
// customresource strategy does; then the schema fills in defaults (its
// unknown fields were pruned when the body was decoded).
func admitCustomResource(res *resource, obj *api.CustomObject, old api.Object) error {
	if old == nil && res.custom.terminating {
		return &apierrors.StatusError{ErrStatus: api.Status{Code: http.StatusMethodNotAllowed, Reason: apierrors.ReasonMethodNotAllowed,
			Message: "create is not allowed while custom resource definition is terminating",
			Details: &api.StatusDetails{Group: res.group, Kind: res.plural}}}
	}
	if obj.Content == nil {
		obj.Content = map[string]any{}
	}
	if old == nil && res.hasStatus {
		delete(obj.Content, "status")
	}
	if schema := res.custom.schema; schema != nil {
		customResourceSchemas.Default(obj.Content, schema)
	}
	return nil
}

// validateCustomObject checks a custom object against its version's
// schema and CEL rules; old is nil on a create.
func validateCustomObject(res *resource, obj, old *api.CustomObject) apierrors.FieldErrorList {
	schema := res.custom.schema
	if schema == nil {
		return nil
	}
	full := fullContent(obj)
	errs := customResourceSchemas.Validate(schema, full)
	var oldFull map[string]any
	if old != nil {
		oldFull = fullContent(old)
	}
	return append(errs, customResourceSchemas.ValidateRules(schema, full, oldFull)...)
}

// fullContent is the whole object as a JSON map, as schemas and CEL rules
// see it: apiVersion, kind and metadata beside the content.
func fullContent(obj *api.CustomObject) map[string]any {
	b, err := json.Marshal(obj)
	if err != nil {
		return obj.Content
	}
	full, err := api.DecodeObjectMap(b)
	if err != nil {
		return obj.Content
	}
	return full
}

// validateCustomResourceWrite is validateNew and validateReplacement's
// part for custom resources: the metadata rules, then the schema's.
func validateCustomResourceWrite(res *resource, obj *api.CustomObject, old api.Object) apierrors.FieldErrorList {
	if old == nil {
		errs := validation.ValidateObjectMeta(&obj.ObjectMeta, res.namespaced, validation.NameIsDNSSubdomain, "metadata")
		return append(errs, validateCustomObject(res, obj, nil)...)
	}
	oldObj := old.(*api.CustomObject)
	errs := validation.ValidateObjectMetaUpdate(&obj.ObjectMeta, &oldObj.ObjectMeta, "metadata")
	return append(errs, validateCustomObject(res, obj, oldObj)...)
}

// copyStatus sets dst's status to src's: a Go Status field, or a custom
// object's "status".
func copyStatus(dst, src api.Object) {
	if d, ok := dst.(*api.CustomObject); ok {
		s := src.(*api.CustomObject)
		if d.Content == nil {
			d.Content = map[string]any{}
		}
		if status, ok := s.Content["status"]; ok {
			d.Content["status"] = status
		} else {
			delete(d.Content, "status")
		}
		return
	}
	fieldOf(dst, "Status").Set(fieldOf(src, "Status"))
}

// generationChanges says whether an update moves metadata.generation:
// a built-in kind's spec changed (specChanged); for a custom resource, as
// upstream, anything but metadata changed — and but status, when the
// status subresource is on.
func generationChanges(res *resource, old, obj api.Object) bool {
	co, ok := obj.(*api.CustomObject)
	if !ok {
		return specChanged(old, obj)
	}
	without := func(content map[string]any) map[string]any {
		if !res.hasStatus {
			return content
		}
		rest := make(map[string]any, len(content))
		for k, v := range content {
			if k != "status" {
				rest[k] = v
			}
		}
		return rest
	}
	a, _ := json.Marshal(without(old.(*api.CustomObject).Content))
	b, _ := json.Marshal(without(co.Content))
	return !bytes.Equal(a, b)
}

// errStrategicMergeCustom is upstream's answer to a strategic merge patch
// of a custom resource, which has no Go struct tags to merge by.
func errStrategicMergeCustom() error {
	return &apierrors.StatusError{ErrStatus: api.Status{Code: http.StatusUnsupportedMediaType, Reason: apierrors.ReasonUnsupportedMediaType,
		Message: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"}}
}
