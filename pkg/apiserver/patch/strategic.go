package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"kplane/pkg/api/schema"
)

// A strategic merge patch is a JSON object shaped like the object it
// patches. Merged with the original, member by member:
//
//   - a member set to null deletes the original's member;
//   - an object merges recursively into the original's object (a map such
//     as labels merges the same way), unless the field's patchStrategy is
//     "replace";
//   - a list replaces the original's list, unless the field's patchStrategy
//     is "merge": then a list of objects merges element by element, matched
//     on the field's patchMergeKey (new keys are added, matching elements
//     merge recursively), and a list of primitives (finalizers) becomes the
//     union of both;
//   - anything else replaces the original's value.
//
// Members whose names start with '$' are directives, never data:
//
//   - "$patch": "replace" in an object replaces the object with the rest of
//     the patch object; "$patch": "delete" empties it. In a merging list,
//     an element {"$patch": "delete", "<key>": v} deletes the elements with
//     that key, and an element {"$patch": "replace"} makes the other
//     elements replace the whole list.
//   - "$retainKeys": [...] keeps only the listed members of the original
//     object (for union types such as a Deployment's strategy, where
//     switching from RollingUpdate to Recreate must drop rollingUpdate).
//   - "$deleteFromPrimitiveList/<field>": [...] removes those values from
//     a merging list of primitives (a finalizer kubectl apply no longer sees).
//   - "$setElementOrder/<field>": [...] gives the order of a merging list:
//     the full list of keys (or values) kubectl has in its file, so that
//     elements the patch does not otherwise mention still end up in the
//     file's order.
//
// Any other '$' member is an error. The result never contains directives.
const (
	directiveMarker               = "$patch"
	retainKeysDirective           = "$retainKeys"
	deleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList/"
	setElementOrderPrefix         = "$setElementOrder/"

	deleteDirective  = "delete"
	replaceDirective = "replace"
	mergeDirective   = "merge"
)

// applyStrategicMergePatch decodes both documents, merges them with the
// schema of t, and encodes the result. Numbers are decoded as json.Number,
// so they pass through unchanged.
func applyStrategicMergePatch(original, patch []byte, t reflect.Type) ([]byte, error) {
	originalObject, err := decodeObject(original)
	if err != nil {
		return nil, fmt.Errorf("decode the object to patch: %w", err)
	}
	patchObject, err := decodeObject(patch)
	if err != nil {
		return nil, &Error{Code: http.StatusBadRequest, Message: err.Error(), err: err}
	}
	var typ *schema.Type
	if t != nil {
		typ = schema.Of(t)
	}
	merged, err := mergeObject(originalObject, patchObject, typ)
	if err != nil {
		return nil, err
	}
	result, err := json.Marshal(merged)
	if err != nil {
		return nil, fmt.Errorf("encode the patched object: %w", err)
	}
	return result, nil
}

// decodeObject decodes a JSON object, keeping numbers as json.Number.
func decodeObject(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var object map[string]any
	if err := dec.Decode(&object); err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("unexpected end of JSON input")
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("invalid data after the top-level JSON object")
	}
	if object == nil {
		return nil, fmt.Errorf("expected a JSON object, got null")
	}
	return object, nil
}

// fieldInfo is what the schema says about one member of an object: its
// type (nil when unknown) and its patch tags.
type fieldInfo struct {
	typ      *schema.Type
	merge    bool // patchStrategy merge: merge a list instead of replacing it
	replace  bool // patchStrategy replace: replace a map instead of merging it
	mergeKey string
}

// lookup finds what parent's schema says about its member key. Members of
// a Map all share the value type; an unknown member has no schema (it is
// merged generically and dropped later, when the result is decoded).
func lookup(parent *schema.Type, key string) fieldInfo {
	if parent == nil {
		return fieldInfo{}
	}
	switch parent.Kind {
	case schema.Object:
		field := parent.Field(key)
		if field == nil {
			return fieldInfo{}
		}
		return fieldInfo{
			typ:      field.Type,
			merge:    field.HasPatchStrategy(schema.StrategyMerge),
			replace:  field.HasPatchStrategy(schema.StrategyReplace),
			mergeKey: field.PatchMergeKey,
		}
	case schema.Map:
		return fieldInfo{typ: parent.Elem}
	default:
		return fieldInfo{}
	}
}

// listEdit collects the directives that address one list member of an
// object: its element order and the primitives to delete from it.
type listEdit struct {
	order     []any
	hasOrder  bool
	deletions []any
}

// mergeObject merges patch into original (either may be modified) and
// returns the result. original may be nil: the patch is then applied to
// nothing, which is how new members are added without their directives.
func mergeObject(original, patch map[string]any, typ *schema.Type) (map[string]any, error) {
	if directive, ok := patch[directiveMarker]; ok {
		switch directive {
		case replaceDirective:
			delete(patch, directiveMarker)
			return mergeObject(nil, patch, typ)
		case deleteDirective:
			return map[string]any{}, nil
		default:
			return nil, badRequest("unknown patch type: %v in map: %v", directive, patch)
		}
	}
	if original == nil {
		original = map[string]any{}
	}
	if err := applyRetainKeys(original, patch); err != nil {
		return nil, err
	}

	keys := make([]string, 0, len(patch))
	for key := range patch {
		keys = append(keys, key)
	}
	slices.Sort(keys) // map order is random; the result must not be

	edits, err := collectListEdits(patch, keys, typ)
	if err != nil {
		return nil, err
	}

	for _, key := range keys {
		if strings.HasPrefix(key, "$") {
			continue
		}
		patchValue := patch[key]
		if patchValue == nil {
			delete(original, key)
			continue
		}
		merged, err := mergeValue(original[key], patchValue, lookup(typ, key), edits[key])
		if err != nil {
			return nil, err
		}
		original[key] = merged
	}

	// Order and deletion directives for lists the patch does not otherwise
	// touch apply to the original list as it is.
	for _, key := range sortedKeys(edits) {
		if _, inPatch := patch[key]; inPatch {
			continue
		}
		list, ok := original[key].([]any)
		if !ok {
			continue
		}
		edited, err := editList(list, list, nil, lookup(typ, key), edits[key])
		if err != nil {
			return nil, err
		}
		original[key] = edited
	}
	return original, nil
}

// collectListEdits gathers the $setElementOrder and
// $deleteFromPrimitiveList directives of patch by the field they address,
// and rejects any other directive.
func collectListEdits(patch map[string]any, keys []string, typ *schema.Type) (map[string]*listEdit, error) {
	edits := map[string]*listEdit{}
	edit := func(field string) *listEdit {
		if edits[field] == nil {
			edits[field] = &listEdit{}
		}
		return edits[field]
	}
	for _, key := range keys {
		if !strings.HasPrefix(key, "$") {
			continue
		}
		switch {
		case key == retainKeysDirective:
			// Already applied by applyRetainKeys.
		case strings.HasPrefix(key, setElementOrderPrefix):
			field := strings.TrimPrefix(key, setElementOrderPrefix)
			order, ok := patch[key].([]any)
			if field == "" || !ok {
				return nil, badRequest("invalid patch format of setElementOrder list")
			}
			if err := checkListField(typ, field); err != nil {
				return nil, err
			}
			e := edit(field)
			e.order, e.hasOrder = order, true
		case strings.HasPrefix(key, deleteFromPrimitiveListPrefix):
			field := strings.TrimPrefix(key, deleteFromPrimitiveListPrefix)
			deletions, ok := patch[key].([]any)
			if field == "" || !ok {
				return nil, badRequest("invalid patch format of primitive list")
			}
			if err := checkListField(typ, field); err != nil {
				return nil, err
			}
			edit(field).deletions = deletions
		default:
			return nil, badRequest("unknown patch directive %q", key)
		}
	}
	return edits, nil
}

// checkListField rejects a list directive that names a field the object's
// schema does not have (upstream fails the same way, looking up the tags).
func checkListField(typ *schema.Type, field string) error {
	if typ != nil && typ.Kind == schema.Object && typ.Field(field) == nil {
		return badRequest("unable to find api field in struct %s for the json field %q", typ.Go.Name(), field)
	}
	return nil
}

// applyRetainKeys carries out a $retainKeys directive: original keeps only
// the listed members, and the patch may set no member outside the list.
func applyRetainKeys(original, patch map[string]any) error {
	raw, ok := patch[retainKeysDirective]
	if !ok {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		return badRequest("invalid patch format of retainKeys")
	}
	retain := make(map[string]bool, len(list))
	for _, item := range list {
		key, ok := item.(string)
		if !ok {
			return badRequest("invalid patch format of retainKeys")
		}
		retain[key] = true
	}
	for key, value := range patch {
		if value != nil && !strings.HasPrefix(key, "$") && !retain[key] {
			return badRequest("invalid patch format of retainKeys")
		}
	}
	for key := range original {
		if !retain[key] {
			delete(original, key)
		}
	}
	return nil
}

// mergeValue merges one non-null patch value into the original's value
// (nil when the original has none).
func mergeValue(original, patch any, info fieldInfo, edit *listEdit) (any, error) {
	if info.typ != nil && info.typ.Kind == schema.Leaf {
		// A value with its own encoding (api.Time, api.Quantity, `any`):
		// the patch's value replaces it as it is.
		return patch, nil
	}
	switch p := patch.(type) {
	case map[string]any:
		o, _ := original.(map[string]any)
		if info.replace {
			o = nil
		}
		return mergeObject(o, p, info.typ)
	case []any:
		o, _ := original.([]any)
		if info.merge {
			return mergeList(o, p, info, edit)
		}
		replaced, err := cleanList(p, elemType(info.typ))
		if err != nil {
			return nil, err
		}
		return editList(replaced, o, nil, info, edit)
	default:
		return patch, nil
	}
}

// cleanList applies each element of a list to nothing, so that objects in
// a list that replaces the original carry no directives or nulls.
func cleanList(list []any, elem *schema.Type) ([]any, error) {
	cleaned := make([]any, len(list))
	for i, item := range list {
		value, err := cleanValue(item, elem)
		if err != nil {
			return nil, err
		}
		cleaned[i] = value
	}
	return cleaned, nil
}

// cleanValue applies a patch value to nothing.
func cleanValue(value any, typ *schema.Type) (any, error) {
	if typ != nil && typ.Kind == schema.Leaf {
		return value, nil
	}
	switch v := value.(type) {
	case map[string]any:
		return mergeObject(nil, v, typ)
	case []any:
		return cleanList(v, elemType(typ))
	default:
		return value, nil
	}
}

// elemType is the element type of a List schema, or nil.
func elemType(typ *schema.Type) *schema.Type {
	if typ != nil && typ.Kind == schema.List {
		return typ.Elem
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}
