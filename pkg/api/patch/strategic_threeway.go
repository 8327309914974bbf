// This file is the client's half of the strategic merge patch: the
// three-way merge `ctl apply` computes (and `ctl edit`, with current equal
// to original). strategic_diff.go holds the two-way diff it is built from;
// strategic_apply.go is what the apiserver then does with the patch.
//
// kubectl apply is a three-way merge (upstream:
// k8s.io/apimachinery/pkg/util/strategicpatch.CreateThreeWayMergePatch):
//
//   - original is what the user applied last time, kept by kubectl in the
//     kubectl.kubernetes.io/last-applied-configuration annotation;
//   - modified is the file now, with that annotation set to itself;
//   - current is the live object, with everything the server and the
//     controllers have added (defaults, status, an HPA's replicas).
//
// The patch is the union of two two-way diffs:
//
//   - delta, from current to modified, keeping only additions and changes:
//     what the file says that the live object does not (yet) have. Fields
//     only the live object has are left alone, so defaults and other
//     writers' fields survive.
//   - deletions, from original to modified, keeping only deletions: what
//     the user removed from the file since the last apply, and only that.
//
// This half follows upstream's structure (diffMaps, diffLists, then a merge
// of the two patches) and its ordering rules, so the bytes it produces are
// the ones kubectl sends; kubectl_test.go checks that against a patch
// captured from kubectl 1.32.

package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"kplane/pkg/api/schema"
)

// CreateThreeWayMergePatch returns the patch that makes current match
// modified, and deletes what original had and modified no longer has. typ
// describes the kind (schema.Of(reflect.TypeFor[api.Deployment]())); nil
// means no list merges by key. original may be empty (no previous apply).
// The result is "{}" when there is nothing to change.
func CreateThreeWayMergePatch(original, modified, current []byte, typ *schema.Type) ([]byte, error) {
	originalMap, err := decodeConfiguration(original)
	if err != nil {
		return nil, fmt.Errorf("decode the last applied configuration: %w", err)
	}
	modifiedMap, err := decodeConfiguration(modified)
	if err != nil {
		return nil, fmt.Errorf("decode the modified configuration: %w", err)
	}
	currentMap, err := decodeConfiguration(current)
	if err != nil {
		return nil, fmt.Errorf("decode the live object: %w", err)
	}

	delta, err := diffMaps(currentMap, modifiedMap, typ, diffOptions{ignoreDeletions: true})
	if err != nil {
		return nil, err
	}
	deletions, err := diffMaps(originalMap, modifiedMap, typ, diffOptions{ignoreChangesAndAdditions: true})
	if err != nil {
		return nil, err
	}
	patch, err := mergePatches(deletions, delta, typ)
	if err != nil {
		return nil, err
	}
	return json.Marshal(patch)
}

// decodeConfiguration decodes one of the three documents. An empty one
// (no previous apply) and null are an empty object.
func decodeConfiguration(data []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	object, err := decodeObject(data)
	if errors.Is(err, errNullObject) {
		return map[string]any{}, nil
	}
	return object, err
}

// mergeKeyValue reads an element's merge key.
func mergeKeyValue(item any, mergeKey string) (any, error) {
	m, ok := item.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a map in a list merged by %q, got %T", mergeKey, item)
	}
	v, ok := m[mergeKey]
	if !ok {
		return nil, fmt.Errorf("map: %v does not contain declared merge key: %s", m, mergeKey)
	}
	// Elements are matched by comparing their keys with ==, which panics
	// on lists and objects.
	if _, ok := scalarKey(v); !ok {
		return nil, fmt.Errorf("map: %v has a list or object as its merge key %s: merge keys must be strings, numbers or booleans", m, mergeKey)
	}
	return v, nil
}

// sameType reports whether two decoded JSON values have the same Go type.
func sameType(a, b any) bool { return reflect.TypeOf(a) == reflect.TypeOf(b) }

// mergePatches merges the delta patch into the deletions patch: the two
// never touch the same scalar (one only adds or changes, the other only
// deletes), so this is a union, except that objects present in both merge
// recursively and merging lists merge element by element. Directives
// present in both ($retainKeys, $setElementOrder) must agree; those of the
// deletions patch ($deleteFromPrimitiveList) are kept as they are.
// deletions is modified and returned.
func mergePatches(deletions, delta map[string]any, typ *schema.Type) (map[string]any, error) {
	if v, ok := delta[directiveMarker]; ok {
		switch v {
		case replaceDirective:
			delete(delta, directiveMarker)
			return delta, nil
		case deleteDirective:
			return map[string]any{}, nil
		}
		return nil, fmt.Errorf("unknown patch type %v", v)
	}
	if deletions == nil {
		deletions = map[string]any{}
	}
	if retain, ok := delta[retainKeysDirective]; ok {
		delete(delta, retainKeysDirective)
		if existing, found := deletions[retainKeysDirective]; found && !reflect.DeepEqual(existing, retain) {
			return nil, fmt.Errorf("%v and %v are not deep equal: this may happen when calculating the 3-way diff patch", existing, retain)
		}
		deletions[retainKeysDirective] = retain
	}
	if err := mergeOrderedLists(deletions, delta, typ); err != nil {
		return nil, err
	}

	for _, key := range sortedKeys(delta) {
		patchValue := delta[key]
		if strings.HasPrefix(key, deleteFromPrimitiveListPrefix) {
			deletions[key] = patchValue
			continue
		}
		if patchValue == nil {
			// An explicit null the file sets: keep it in the patch.
			deletions[key] = nil
			continue
		}
		existing, found := deletions[key]
		if !found || !sameType(existing, patchValue) {
			deletions[key] = patchValue
			continue
		}
		info := lookup(typ, key)
		switch e := existing.(type) {
		case map[string]any:
			if info.replace {
				deletions[key] = patchValue
				continue
			}
			merged, err := mergePatches(e, patchValue.(map[string]any), info.typ)
			if err != nil {
				return nil, err
			}
			deletions[key] = merged
		case []any:
			if !info.merge {
				deletions[key] = patchValue
				continue
			}
			merged, err := mergeSlice(e, patchValue.([]any), elemType(info.typ), info.mergeKey)
			if err != nil {
				return nil, err
			}
			deletions[key] = merged
		default:
			deletions[key] = patchValue
		}
	}
	return deletions, nil
}

// mergeOrderedLists handles the lists that carry a $setElementOrder in the
// delta: the directive moves to the result, and the list of both patches is
// merged and then ordered as the directive says (upstream's
// mergePatchIntoOriginal).
func mergeOrderedLists(deletions, delta map[string]any, typ *schema.Type) error {
	for _, key := range sortedKeys(delta) {
		field, ok := strings.CutPrefix(key, setElementOrderPrefix)
		if !ok {
			continue
		}
		order := delta[key]
		if existing, found := deletions[key]; found && !reflect.DeepEqual(existing, order) {
			return fmt.Errorf("%s: the $setElementOrder lists of the two patches differ", field)
		}
		deletions[key] = order
		delete(delta, key)

		orderList, ok := order.([]any)
		if !ok {
			return fmt.Errorf("%s: $setElementOrder must be a list", field)
		}
		info := lookup(typ, field)
		deletionsValue, inDeletions := deletions[field]
		deltaValue, inDelta := delta[field]
		deletionsList, _ := deletionsValue.([]any)
		deltaList, _ := deltaValue.([]any)
		var merged []any
		switch {
		case inDeletions && !inDelta:
			merged = deletionsList
		case !inDeletions && inDelta:
			merged = deltaList
		case inDeletions && inDelta:
			var err error
			if merged, err = mergeSlice(deletionsList, deltaList, elemType(info.typ), info.mergeKey); err != nil {
				return err
			}
		default:
			continue
		}
		kind, err := elementKind(deletionsList, deltaList)
		if err != nil {
			return err
		}
		inOrder, serverOnly, err := partition(merged, orderList, info.mergeKey)
		if err != nil {
			return err
		}
		both, err := normalizeElementOrder(inOrder, serverOnly, orderList, deletionsList, info.mergeKey, kind)
		if err != nil {
			return err
		}
		deletions[field] = both
		delete(delta, field)
	}
	return nil
}

// mergeSlice merges two patch lists of a merging field: primitives as a
// set, objects by merge key (the delta's element merged into the
// deletions' element with the same key), then ordered so that the delta's
// elements keep their order.
func mergeSlice(original, patch []any, elem *schema.Type, mergeKey string) ([]any, error) {
	if len(original) == 0 && len(patch) == 0 {
		return original, nil
	}
	kind, err := elementKind(original, patch)
	if err != nil {
		return nil, err
	}
	var merged []any
	if kind != reflect.Map {
		merged = uniqueScalars(append(append([]any(nil), original...), patch...))
	} else {
		if mergeKey == "" {
			return nil, fmt.Errorf("cannot merge lists without merge key")
		}
		merged = append([]any(nil), original...)
		for _, item := range patch {
			if _, err := asMapWithKey(item, mergeKey); err != nil {
				return nil, err
			}
			i := indexOf(merged, item, mergeKey, kind)
			if i < 0 {
				merged = append(merged, item)
				continue
			}
			m, err := mergePatches(merged[i].(map[string]any), item.(map[string]any), elem)
			if err != nil {
				return nil, err
			}
			merged[i] = m
		}
	}
	inPatch, serverOnly, err := partition(merged, patch, mergeKey)
	if err != nil {
		return nil, err
	}
	return normalizeElementOrder(inPatch, serverOnly, patch, original, mergeKey, kind)
}

// partition splits items into those present in by (by merge key, or by
// value for primitives) and the rest, keeping their order.
func partition(items, by []any, mergeKey string) (present, absent []any, err error) {
	for _, item := range items {
		if mergeKey != "" {
			if _, err := mergeKeyValue(item, mergeKey); err != nil {
				return nil, nil, err
			}
		}
		kind := reflect.Invalid
		if item != nil {
			kind = reflect.TypeOf(item).Kind()
		}
		if indexOf(by, item, mergeKey, kind) >= 0 {
			present = append(present, item)
		} else {
			absent = append(absent, item)
		}
	}
	return present, absent, nil
}

// normalizeElementOrder sorts patch items by patchOrder and server-only
// items by serverOrder, then interleaves them by their place in
// serverOrder.
func normalizeElementOrder(patch, serverOnly, patchOrder, serverOrder []any, mergeKey string, kind reflect.Kind) ([]any, error) {
	patch, err := normalizeSliceOrder(patch, patchOrder, mergeKey, kind)
	if err != nil {
		return nil, err
	}
	serverOnly, err = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind)
	if err != nil {
		return nil, err
	}
	return interleave(serverOnly, patch, func(item any) (int, bool) {
		i := indexOf(serverOrder, item, mergeKey, kind)
		return i, i >= 0
	}), nil
}

// normalizeSliceOrder sorts toSort by the position of each element in
// order, with delete directives moved to the end.
func normalizeSliceOrder(toSort, order []any, mergeKey string, kind reflect.Kind) ([]any, error) {
	var toDelete []any
	if kind == reflect.Map {
		var keep []any
		for _, item := range toSort {
			m, err := asMapWithKey(item, mergeKey)
			if err != nil {
				return nil, err
			}
			if m[directiveMarker] == deleteDirective {
				toDelete = append(toDelete, item)
			} else {
				keep = append(keep, item)
			}
		}
		toSort = keep
	}
	sorted := append([]any(nil), toSort...)
	sort.SliceStable(sorted, func(a, b int) bool {
		ia := indexOf(order, sorted[a], mergeKey, kind)
		ib := indexOf(order, sorted[b], mergeKey, kind)
		return ia >= 0 && ib >= 0 && ia < ib
	})
	return append(sorted, toDelete...), nil
}

// indexOf finds item in list: by merge key for maps, by value otherwise.
func indexOf(list []any, item any, mergeKey string, kind reflect.Kind) int {
	value := func(v any) any {
		if kind != reflect.Map {
			return v
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		return m[mergeKey]
	}
	want := value(item)
	for i, v := range list {
		if value(v) == want {
			return i
		}
	}
	return -1
}

// asMapWithKey checks that item is an object carrying its merge key.
func asMapWithKey(item any, mergeKey string) (map[string]any, error) {
	if _, err := mergeKeyValue(item, mergeKey); err != nil {
		return nil, err
	}
	return item.(map[string]any), nil
}
