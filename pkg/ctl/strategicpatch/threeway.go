// Package strategicpatch computes the strategic merge patch `ctl apply`
// sends: the client half of Kubernetes' strategic merge patch, whose server
// half (applying a patch) is pkg/apiserver/patch. Both read the merge keys
// and patch strategies from the Go API types through pkg/api/schema, so the
// two halves agree on which lists merge by which key.
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
// This port keeps upstream's structure (diffMaps, diffLists, then a merge of
// the two patches) and its ordering rules, so the bytes it produces are the
// ones kubectl sends; the tests check that against a patch captured from
// kubectl 1.32.
package strategicpatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	"kplane/pkg/api/schema"
)

// The directives a strategic merge patch may carry (see pkg/apiserver/patch
// for what each means when applied).
const (
	directiveMarker               = "$patch"
	deleteDirective               = "delete"
	replaceDirective              = "replace"
	retainKeysDirective           = "$retainKeys"
	deleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList"
	setElementOrderPrefix         = "$setElementOrder"
)

// CreateThreeWayMergePatch returns the patch that makes current match
// modified, and deletes what original had and modified no longer has. typ
// describes the kind (schema.Of(reflect.TypeFor[api.Deployment]())); nil
// means no list merges by key. original may be empty (no previous apply).
// The result is "{}" when there is nothing to change.
func CreateThreeWayMergePatch(original, modified, current []byte, typ *schema.Type) ([]byte, error) {
	originalMap, err := decodeMap(original)
	if err != nil {
		return nil, fmt.Errorf("decode the last applied configuration: %w", err)
	}
	modifiedMap, err := decodeMap(modified)
	if err != nil {
		return nil, fmt.Errorf("decode the modified configuration: %w", err)
	}
	currentMap, err := decodeMap(current)
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

// decodeMap decodes a JSON object with numbers kept as json.Number; empty
// input is an empty object.
func decodeMap(data []byte) (map[string]any, error) {
	m := map[string]any{}
	if len(bytes.TrimSpace(data)) == 0 {
		return m, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("invalid data after the top-level JSON object")
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// fieldInfo is what the schema says about one member of an object.
type fieldInfo struct {
	typ        *schema.Type
	merge      bool // patchStrategy merge: a list merges element by element
	replace    bool // patchStrategy replace: a map is replaced whole
	retainKeys bool // patchStrategy retainKeys: the patch lists the fields to keep
	mergeKey   string
}

// lookup finds what parent's schema says about its member key. Unknown
// members have no schema: their lists are replaced and maps merged.
func lookup(parent *schema.Type, key string) fieldInfo {
	if parent == nil {
		return fieldInfo{}
	}
	switch parent.Kind {
	case schema.Object:
		f := parent.Field(key)
		if f == nil {
			return fieldInfo{}
		}
		return fieldInfo{
			typ:        f.Type,
			merge:      f.HasPatchStrategy(schema.StrategyMerge),
			replace:    f.HasPatchStrategy(schema.StrategyReplace),
			retainKeys: f.HasPatchStrategy(schema.StrategyRetainKeys),
			mergeKey:   f.PatchMergeKey,
		}
	case schema.Map:
		return fieldInfo{typ: parent.Elem}
	}
	return fieldInfo{}
}

// elem is the element type of a list type (nil when unknown).
func elem(t *schema.Type) *schema.Type {
	if t == nil || t.Kind != schema.List {
		return nil
	}
	return t.Elem
}

// sortedKeys returns m's keys in order, so that patches are computed the
// same way every time (upstream walks Go maps in random order, which only
// changes the order of equal-ranked list elements, never the result).
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
	// on lists and objects; a merge key is a name or a port, so anything
	// else is a malformed manifest.
	switch v.(type) {
	case map[string]any, []any:
		return nil, fmt.Errorf("map: %v has a list or object as its merge key %s: merge keys must be strings, numbers or booleans", m, mergeKey)
	}
	return v, nil
}

// isDirectiveKey reports the parallel-list directives of a field
// ("$setElementOrder/containers", "$deleteFromPrimitiveList/finalizers").
func isDirectiveKey(key, prefix string) (field string, ok bool) {
	if !strings.HasPrefix(key, prefix+"/") {
		return "", false
	}
	return key[len(prefix)+1:], true
}

// sameType reports whether two decoded JSON values have the same Go type.
func sameType(a, b any) bool { return reflect.TypeOf(a) == reflect.TypeOf(b) }
