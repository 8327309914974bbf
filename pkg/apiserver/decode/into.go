// Package decode turns request bodies into typed API objects the way the
// Kubernetes apiserver does: YAML is accepted and converted to JSON (by
// kplane/pkg/yamljson, which ctl shares), field names are case-sensitive,
// and fields the type does not have are either dropped with a warning (the
// default; the apiserver sends each as a `Warning:` header) or rejected
// (`?fieldValidation=Strict`, which kubectl apply uses).
//
// The unknown-field check follows the schema described by package
// kplane/pkg/api/schema, so it knows inlined metadata, lists and maps the
// same way encoding/json does.
package decode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"kplane/pkg/api/schema"
)

// StrictDecodingError is returned by Into in strict mode when the body has
// unknown or duplicate fields. Its message is upstream's:
//
//	strict decoding error: unknown field "spec.foo", unknown field "bar"
//
// The apiserver answers it with 400 BadRequest.
type StrictDecodingError struct {
	// Errors are the individual problems, as UnknownFields lists them.
	Errors []string
}

// Error joins the problems after upstream's prefix.
func (e *StrictDecodingError) Error() string {
	return "strict decoding error: " + strings.Join(e.Errors, ", ")
}

// Into decodes jsonBody into obj, which must be a non-nil pointer to a
// fresh (zero) value.
//
// Unknown fields are never decoded, not even when encoding/json would
// match them to a field case-insensitively ("Replicas" does not set
// replicas). When strict is false they are returned as warnings, one per
// field, with upstream's wording (`unknown field "spec.foo"`); when strict
// is true, and the body is otherwise decodable, Into returns a
// *StrictDecodingError. Duplicate fields are reported the same way; the
// last occurrence wins, as in encoding/json.
//
// A value of the wrong type is an error with encoding/json's message (for
// instance `json: cannot unmarshal string into Go struct field
// ContainerPort.spec.containers.ports.containerPort of type int32`); in that
// case obj may be partly filled and must be discarded.
func Into(jsonBody []byte, obj any, strict bool) (warnings []string, err error) {
	target := reflect.ValueOf(obj)
	if target.Kind() != reflect.Pointer || target.IsNil() {
		return nil, fmt.Errorf("decode into %T: need a non-nil pointer", obj)
	}
	typ := schema.Of(target.Type().Elem())

	if knownFieldsOnly(jsonBody, typ) {
		// The common case: nothing to report and nothing to prune, so
		// decoding is all there is to do.
		return nil, json.Unmarshal(jsonBody, obj)
	}
	return intoReporting(jsonBody, obj, typ, strict)
}

// intoReporting is Into's slow path, for bodies that have (or may have)
// unknown or duplicate fields: it lists them, prunes the unknown ones and
// decodes the rest. It gives the same result as the fast path on any body,
// only at three times the cost.
func intoReporting(jsonBody []byte, obj any, typ *schema.Type, strict bool) (warnings []string, err error) {
	walked, err := walkFields(jsonBody, typ)
	if err != nil {
		return nil, err
	}

	// Duplicates need no pruning: encoding/json keeps the last one, as
	// upstream does. Unknown members must go before encoding/json sees them.
	body := jsonBody
	if walked.hasUnknown {
		if body, err = pruneUnknownFields(jsonBody, typ); err != nil {
			return nil, err
		}
	}
	if err := json.Unmarshal(body, obj); err != nil {
		return nil, err
	}

	if len(walked.problems) > 0 && strict {
		return nil, &StrictDecodingError{Errors: walked.problems}
	}
	return walked.problems, nil
}

// pruneUnknownFields re-encodes jsonBody without the members its schema
// does not know. Numbers pass through as written (json.Number), so nothing
// is rounded on the way.
func pruneUnknownFields(jsonBody []byte, typ *schema.Type) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(jsonBody))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("prune unknown fields: %w", err)
	}
	pruned, err := json.Marshal(prune(tree, typ))
	if err != nil {
		return nil, fmt.Errorf("prune unknown fields: %w", err)
	}
	return pruned, nil
}

// prune removes, in place, the object members of value that typ does not
// have, at every depth the schema describes.
func prune(value any, typ *schema.Type) any {
	if typ == nil {
		return value
	}
	switch v := value.(type) {
	case map[string]any:
		switch typ.Kind {
		case schema.Object:
			for key, member := range v {
				field := typ.Field(key)
				if field == nil {
					delete(v, key)
					continue
				}
				v[key] = prune(member, field.Type)
			}
		case schema.Map:
			for key, member := range v {
				v[key] = prune(member, typ.Elem)
			}
		}
	case []any:
		if typ.Kind == schema.List {
			for i, item := range v {
				v[i] = prune(item, typ.Elem)
			}
		}
	}
	return value
}
