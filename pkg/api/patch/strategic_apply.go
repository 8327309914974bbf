// This file is the apiserver's half of the strategic merge patch: it
// merges a patch into the object it patches, by the rules and directives
// described in strategic.go. Upstream does this in
// k8s.io/apimachinery/pkg/util/strategicpatch (StrategicMergePatch and
// mergeMap/mergeSlice); kplane's version is a smaller rewrite that gives
// upstream's results (and, where practical, its error messages) and
// decides element order with keyed maps rather than repeated scans.

package patch

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"kplane/pkg/api/schema"
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

	keys := sortedKeys(patch)
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

// mergeList merges the patch list of a field whose patchStrategy is merge
// into the original list (nil when there is none).
func mergeList(original, patch []any, info fieldInfo, edit *listEdit) ([]any, error) {
	if elem := elemType(info.typ); elem != nil && elem.Kind == schema.Object {
		merged, patchItems, err := mergeObjectList(original, patch, elem, info.mergeKey)
		if err != nil {
			return nil, err
		}
		return editList(merged, original, patchItems, info, edit)
	}
	merged, err := mergePrimitiveList(original, patch)
	if err != nil {
		return nil, err
	}
	return editList(merged, original, patch, info, edit)
}

// mergeObjectList merges a list of objects keyed by mergeKey. It returns
// the merged list and the patch's plain elements (without directive
// elements), whose order the result follows.
func mergeObjectList(original, patch []any, elem *schema.Type, mergeKey string) (merged, patchItems []any, err error) {
	if mergeKey == "" {
		return nil, nil, fmt.Errorf("cannot merge a list of %s without a patchMergeKey", elem.Go)
	}
	replace := false
	var deleteKeys []any
	for _, raw := range patch {
		item, ok := raw.(map[string]any)
		if !ok {
			return nil, nil, badRequest("expected a map[string]interface {}, but received a %s", typeName(raw))
		}
		directive, hasDirective := item[directiveMarker]
		if !hasDirective {
			if _, ok := item[mergeKey]; !ok {
				return nil, nil, badRequest("map: %v does not contain declared merge key: %s", item, mergeKey)
			}
			patchItems = append(patchItems, item)
			continue
		}
		switch directive {
		case deleteDirective:
			key, ok := item[mergeKey]
			if !ok {
				return nil, nil, badRequest("map: %v does not contain declared merge key: %s", item, mergeKey)
			}
			deleteKeys = append(deleteKeys, key)
		case replaceDirective:
			replace = true
		case mergeDirective:
			return nil, nil, badRequest("merging lists cannot yet be specified in the patch")
		default:
			return nil, nil, badRequest("unknown patch type: %v in map: %v", directive, item)
		}
	}

	// {"$patch": "replace"} drops the original elements; {"$patch":
	// "delete", key: v} drops those with that key (all of them, so a
	// duplicated entry goes too).
	if !replace {
		for _, item := range original {
			if object, ok := item.(map[string]any); ok && containsScalar(deleteKeys, object[mergeKey]) {
				continue
			}
			merged = append(merged, item)
		}
	}

	position := map[any]int{} // merge key → index in merged, first occurrence
	for i, item := range merged {
		if object, ok := item.(map[string]any); ok {
			if key, ok := scalarKey(object[mergeKey]); ok {
				if _, seen := position[key]; !seen {
					position[key] = i
				}
			}
		}
	}
	for _, raw := range patchItems {
		item := raw.(map[string]any)
		key, comparable := scalarKey(item[mergeKey])
		if i, found := position[key]; comparable && found {
			existing := merged[i].(map[string]any)
			if merged[i], err = mergeObject(existing, item, elem); err != nil {
				return nil, nil, err
			}
			continue
		}
		added, err := mergeObject(nil, item, elem)
		if err != nil {
			return nil, nil, err
		}
		if comparable {
			position[key] = len(merged)
		}
		merged = append(merged, added)
	}
	if merged == nil {
		merged = []any{} // an emptied list stays a list, as upstream keeps it
	}
	return merged, patchItems, nil
}

// mergePrimitiveList returns the union of two lists of primitives, each
// value once, original values first.
func mergePrimitiveList(original, patch []any) ([]any, error) {
	for _, item := range patch {
		switch item.(type) {
		case []any:
			return nil, unprocessable("lists of lists are not supported")
		case map[string]any:
			return nil, badRequest("expected a primitive, but received a map[string]interface {}")
		}
	}
	return uniqueScalars(slices.Concat(original, patch)), nil
}

// editList puts a merged list in order and applies deletions.
//
// The order, as upstream's: the elements named by $setElementOrder (or,
// without it, the elements the patch lists) come in that order; the other
// elements, which only the server had, keep their place relative to them
// as it was in the original list. Where that is undecided (an element new
// to the list), the ordered element goes first.
func editList(merged, original, patchItems []any, info fieldInfo, edit *listEdit) ([]any, error) {
	keyOf, ok := keyFunc(info)
	if !ok {
		return merged, nil
	}
	orderSource := patchItems
	if edit != nil && edit.hasOrder {
		orderSource = edit.order
		if info.mergeKey != "" && isObjectList(info) {
			for _, item := range orderSource {
				object, ok := item.(map[string]any)
				if !ok {
					return nil, badRequest("invalid patch format of setElementOrder list")
				}
				if _, ok := object[info.mergeKey]; !ok {
					return nil, badRequest("map: %v does not contain declared merge key: %s", object, info.mergeKey)
				}
			}
		}
	}
	if orderSource != nil {
		merged = orderList(merged, orderSource, original, keyOf)
	}
	if edit != nil && len(edit.deletions) > 0 {
		kept := []any{}
		for _, item := range merged {
			if !containsScalar(edit.deletions, item) {
				kept = append(kept, item)
			}
		}
		merged = kept
	}
	return merged, nil
}

// orderList reorders merged: elements whose key is in order (a list of
// elements, keyed by keyOf) in that order, interleaved with the others by
// their positions in original.
func orderList(merged, order, original []any, keyOf func(any) (any, bool)) []any {
	orderPosition := positions(order, keyOf)
	serverPosition := positions(original, keyOf)

	var ordered, serverOnly []any
	for _, item := range merged {
		if key, ok := keyOf(item); ok {
			if _, listed := orderPosition[key]; listed {
				ordered = append(ordered, item)
				continue
			}
		}
		serverOnly = append(serverOnly, item)
	}
	slices.SortStableFunc(ordered, func(a, b any) int {
		keyA, _ := keyOf(a)
		keyB, _ := keyOf(b)
		return orderPosition[keyA] - orderPosition[keyB]
	})

	return interleave(serverOnly, ordered, func(item any) (int, bool) {
		return position(serverPosition, item, keyOf)
	})
}

// positions maps each key in list to the index of its first element.
func positions(list []any, keyOf func(any) (any, bool)) map[any]int {
	at := make(map[any]int, len(list))
	for i, item := range list {
		if key, ok := keyOf(item); ok {
			if _, seen := at[key]; !seen {
				at[key] = i
			}
		}
	}
	return at
}

// position is the index at records for item's key, if it has one.
func position(at map[any]int, item any, keyOf func(any) (any, bool)) (int, bool) {
	key, ok := keyOf(item)
	if !ok {
		return 0, false
	}
	i, found := at[key]
	return i, found
}

// keyFunc returns how to identify an element of the list info describes:
// by its merge key for a list of objects, by itself for primitives. It
// reports false for a list of objects without a merge key, which cannot be
// ordered.
func keyFunc(info fieldInfo) (func(any) (any, bool), bool) {
	if isObjectList(info) {
		if info.mergeKey == "" {
			return nil, false
		}
		return func(item any) (any, bool) {
			object, ok := item.(map[string]any)
			if !ok {
				return nil, false
			}
			value, present := object[info.mergeKey]
			if !present {
				return nil, false
			}
			return scalarKey(value)
		}, true
	}
	return scalarKey, true
}

func isObjectList(info fieldInfo) bool {
	elem := elemType(info.typ)
	return elem != nil && elem.Kind == schema.Object
}

// containsScalar reports whether list holds the primitive value v.
func containsScalar(list []any, v any) bool {
	key, ok := scalarKey(v)
	if !ok {
		return false
	}
	for _, item := range list {
		if other, ok := scalarKey(item); ok && other == key {
			return true
		}
	}
	return false
}

// typeName names the Go type of a decoded JSON value, as upstream's
// messages do.
func typeName(v any) string {
	if v == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%T", v)
}
