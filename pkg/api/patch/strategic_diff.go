// This file is the two-way diff the three-way merge in
// strategic_threeway.go is made of: the patch that turns one document into
// another, restricted to additions and changes or to deletions. Upstream's
// diffMaps and diffLists (k8s.io/apimachinery/pkg/util/strategicpatch) do
// the same; this keeps their rules, including when a list's
// $setElementOrder and an object's $retainKeys are sent.

package patch

import (
	"fmt"
	"reflect"
	"sort"

	"kplane/pkg/api/schema"
)

// diffOptions select one half of the three-way diff.
type diffOptions struct {
	// ignoreChangesAndAdditions keeps only deletions (original → modified).
	ignoreChangesAndAdditions bool
	// ignoreDeletions keeps only additions and changes (current → modified).
	ignoreDeletions bool
	// buildRetainKeys adds a $retainKeys list to this object's patch: the
	// object is a union (patchStrategy retainKeys), and the server must
	// clear every member the list does not name.
	buildRetainKeys bool
}

// diffMaps returns the patch that turns original into modified, restricted
// by opts:
//   - a member only modified has is added; a member whose value differs
//     is replaced, or diffed recursively when both are objects (unless the
//     field's strategy is replace);
//   - a merging list is diffed element by element (diffLists);
//   - a member only original has is set to null (a deletion).
func diffMaps(original, modified map[string]any, typ *schema.Type, opts diffOptions) (map[string]any, error) {
	patch := map[string]any{}
	var retainKeys []any
	for _, key := range sortedKeys(modified) {
		modifiedValue := modified[key]
		if opts.buildRetainKeys && modifiedValue != nil {
			retainKeys = append(retainKeys, key)
		}
		originalValue, found := original[key]
		if !found || !sameType(originalValue, modifiedValue) {
			if !opts.ignoreChangesAndAdditions {
				patch[key] = modifiedValue
			}
			continue
		}
		if key == directiveMarker {
			if originalValue != modifiedValue {
				patch[key] = modifiedValue
			}
			continue
		}
		info := lookup(typ, key)
		switch o := originalValue.(type) {
		case map[string]any:
			childOpts := opts
			childOpts.buildRetainKeys = info.retainKeys
			if info.replace {
				if !opts.ignoreChangesAndAdditions {
					patch[key] = modifiedValue
				}
				continue
			}
			child, err := diffMaps(o, modifiedValue.(map[string]any), info.typ, childOpts)
			if err != nil {
				return nil, err
			}
			if len(child) > 0 {
				patch[key] = child
			}
		case []any:
			if !info.merge {
				replaceIfNotEqual(patch, key, originalValue, modifiedValue, opts)
				continue
			}
			childOpts := opts
			childOpts.buildRetainKeys = info.retainKeys
			add, del, order, err := diffLists(o, modifiedValue.([]any), elemType(info.typ), info.mergeKey, childOpts)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			if len(add) > 0 {
				patch[key] = add
			}
			if len(del) > 0 {
				patch[deleteFromPrimitiveListPrefix+key] = del
			}
			if len(order) > 0 {
				patch[setElementOrderPrefix+key] = order
			}
		default:
			replaceIfNotEqual(patch, key, originalValue, modifiedValue, opts)
		}
	}
	if !opts.ignoreDeletions {
		for key := range original {
			if _, found := modified[key]; !found {
				patch[key] = nil
			}
		}
	}
	// The retain list goes out when there is a change, or when original has
	// members the list would clear.
	if len(retainKeys) > 0 && (len(patch) > 0 || hasAdditionalField(original, modified)) {
		patch[retainKeysDirective] = sortScalars(retainKeys)
	}
	return patch, nil
}

// replaceIfNotEqual puts modified into the patch when it differs.
func replaceIfNotEqual(patch map[string]any, key string, original, modified any, opts diffOptions) {
	if opts.ignoreChangesAndAdditions || reflect.DeepEqual(original, modified) {
		return
	}
	patch[key] = modified
}

// hasAdditionalField reports a non-null member of original that modified
// lacks.
func hasAdditionalField(original, modified map[string]any) bool {
	for k, v := range original {
		if v == nil {
			continue
		}
		if _, found := modified[k]; !found {
			return true
		}
	}
	return false
}

// diffLists diffs a merging list. It returns the list to put in the patch
// (changed and new elements, then {"$patch": "delete"} elements), the
// values to delete from a list of primitives, and the $setElementOrder
// list, which gives the server the file's order.
func diffLists(original, modified []any, elem *schema.Type, mergeKey string, opts diffOptions) (patchList, deleteList, setOrder []any, err error) {
	if len(original) == 0 {
		if len(modified) == 0 || opts.ignoreChangesAndAdditions {
			return nil, nil, nil, nil
		}
		return modified, nil, nil, nil
	}
	kind, err := elementKind(original, modified)
	if err != nil {
		return nil, nil, nil, err
	}
	switch kind {
	case reflect.Map:
		patchList, deleteList, err = diffListsOfMaps(original, modified, elem, mergeKey, opts)
		if err != nil {
			return nil, nil, nil, err
		}
		if patchList, err = normalizeSliceOrder(patchList, modified, mergeKey, kind); err != nil {
			return nil, nil, nil, err
		}
		orderSame, err := isOrderSame(original, modified, mergeKey)
		if err != nil {
			return nil, nil, nil, err
		}
		patchList = append(patchList, deleteList...)
		deleteList = nil
		if (!opts.ignoreChangesAndAdditions && (len(patchList) > 0 || !orderSame)) ||
			(!opts.ignoreDeletions && len(patchList) > 0) {
			setOrder = make([]any, len(modified))
			for i, v := range modified {
				key, err := mergeKeyValue(v, mergeKey)
				if err != nil {
					return nil, nil, nil, err
				}
				setOrder[i] = map[string]any{mergeKey: key}
			}
		}
	default:
		patchList, deleteList = diffListsOfScalars(original, modified, opts)
		if patchList, err = normalizeSliceOrder(patchList, modified, "", kind); err != nil {
			return nil, nil, nil, err
		}
		if (!opts.ignoreDeletions && len(deleteList) > 0) ||
			(!opts.ignoreChangesAndAdditions && !reflect.DeepEqual(original, modified)) {
			setOrder = modified
		}
	}
	return patchList, deleteList, setOrder, nil
}

// elementKind is reflect.Map for a list of objects and the scalar kind
// otherwise; lists of lists are not part of the Kubernetes API.
func elementKind(lists ...[]any) (reflect.Kind, error) {
	var kind reflect.Kind
	for _, list := range lists {
		for _, item := range list {
			k := reflect.Invalid
			if item != nil {
				k = reflect.TypeOf(item).Kind()
			}
			if k == reflect.Slice {
				return 0, fmt.Errorf("lists of lists are not supported")
			}
			if kind == reflect.Invalid {
				kind = k
			} else if k != kind {
				return 0, fmt.Errorf("list elements of different types (%v and %v)", kind, k)
			}
		}
	}
	return kind, nil
}

// diffListsOfMaps walks both lists sorted by merge key: elements in both
// are diffed (the merge key is kept in their patch), elements only in
// modified are added, elements only in original get a delete directive.
func diffListsOfMaps(original, modified []any, elem *schema.Type, mergeKey string, opts diffOptions) ([]any, []any, error) {
	originalSorted, err := sortByMergeKey(original, mergeKey)
	if err != nil {
		return nil, nil, err
	}
	modifiedSorted, err := sortByMergeKey(modified, mergeKey)
	if err != nil {
		return nil, nil, err
	}
	patch := make([]any, 0, len(modified))
	var deletions []any
	i, j := 0, 0
	for i < len(originalSorted) || j < len(modifiedSorted) {
		var origKey, modKey string
		var origValue, modValue any
		if i < len(originalSorted) {
			origValue, _ = mergeKeyValue(originalSorted[i], mergeKey)
			origKey = fmt.Sprint(origValue)
		}
		if j < len(modifiedSorted) {
			modValue, _ = mergeKeyValue(modifiedSorted[j], mergeKey)
			modKey = fmt.Sprint(modValue)
		}
		switch {
		case i < len(originalSorted) && j < len(modifiedSorted) && origKey == modKey:
			child, err := diffMaps(originalSorted[i].(map[string]any), modifiedSorted[j].(map[string]any), elem, opts)
			if err != nil {
				return nil, nil, err
			}
			if len(child) > 0 {
				child[mergeKey] = modValue
				patch = append(patch, child)
			}
			i++
			j++
		case i >= len(originalSorted) || (j < len(modifiedSorted) && origKey > modKey):
			if !opts.ignoreChangesAndAdditions {
				patch = append(patch, modifiedSorted[j])
			}
			j++
		default:
			if !opts.ignoreDeletions {
				deletions = append(deletions, map[string]any{directiveMarker: deleteDirective, mergeKey: origValue})
			}
			i++
		}
	}
	return patch, deletions, nil
}

// diffListsOfScalars compares two lists of primitives as sets: values only
// in modified are added, values only in original are deleted.
func diffListsOfScalars(original, modified []any, opts diffOptions) ([]any, []any) {
	originalSorted := sortScalars(original)
	modifiedSorted := sortScalars(modified)
	add := []any{}
	var deletions []any
	i, j := 0, 0
	for i < len(originalSorted) || j < len(modifiedSorted) {
		var o, m string
		if i < len(originalSorted) {
			o = fmt.Sprint(originalSorted[i])
		}
		if j < len(modifiedSorted) {
			m = fmt.Sprint(modifiedSorted[j])
		}
		switch {
		case i < len(originalSorted) && j < len(modifiedSorted) && o == m:
			i++
			j++
		case i >= len(originalSorted) || (j < len(modifiedSorted) && o > m):
			if !opts.ignoreChangesAndAdditions {
				add = append(add, modifiedSorted[j])
			}
			j++
		default:
			if !opts.ignoreDeletions {
				deletions = append(deletions, originalSorted[i])
			}
			i++
		}
	}
	return add, uniqueScalars(deletions)
}

// isOrderSame reports whether two lists hold the same merge keys in the
// same order.
func isOrderSame(original, modified []any, mergeKey string) (bool, error) {
	if len(original) != len(modified) {
		return false, nil
	}
	for i := range modified {
		a, err := mergeKeyValue(original[i], mergeKey)
		if err != nil {
			return false, err
		}
		b, err := mergeKeyValue(modified[i], mergeKey)
		if err != nil {
			return false, err
		}
		if a != b {
			return false, nil
		}
	}
	return true, nil
}

// sortByMergeKey returns a copy of a list of maps sorted by the text of
// their merge key.
func sortByMergeKey(list []any, mergeKey string) ([]any, error) {
	sorted := append([]any(nil), list...)
	for _, item := range sorted {
		if _, err := mergeKeyValue(item, mergeKey); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(sorted, func(a, b int) bool {
		ka, _ := mergeKeyValue(sorted[a], mergeKey)
		kb, _ := mergeKeyValue(sorted[b], mergeKey)
		return fmt.Sprint(ka) < fmt.Sprint(kb)
	})
	return sorted, nil
}

// sortScalars returns a copy of a list of primitives sorted by their text.
func sortScalars(list []any) []any {
	sorted := append([]any(nil), list...)
	sort.SliceStable(sorted, func(a, b int) bool { return fmt.Sprint(sorted[a]) < fmt.Sprint(sorted[b]) })
	return sorted
}
