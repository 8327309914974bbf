package validation

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
)

// maxChangedFields bounds how many changed fields an error lists: enough to
// point at the mistake without flooding the terminal.
const maxChangedFields = 5

// changedFields names the JSON fields that differ between old and new, for
// the "… is immutable" errors that cover a whole spec. Upstream appends a
// Go-syntax diff of the two structs; kplane prints the paths instead, which
// tells a reader the same thing in the vocabulary of their YAML:
//
//	spec: Forbidden: pod updates may not change fields other than …
//	changed: spec.containers[0].ports[0].containerPort
func changedFields(old, new any, prefix string) string {
	oldJSON, oldOK := toJSONValue(old)
	newJSON, newOK := toJSONValue(new)
	if !oldOK || !newOK {
		return ""
	}
	var paths []string
	diffJSON(oldJSON, newJSON, prefix, &paths)
	if len(paths) == 0 {
		return ""
	}
	if len(paths) > maxChangedFields {
		paths = append(paths[:maxChangedFields], "…")
	}
	return "\nchanged: " + strings.Join(paths, ", ")
}

func toJSONValue(v any) (any, bool) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, false
	}
	return out, true
}

// diffJSON appends to paths every leaf (or list) where a and b differ.
func diffJSON(a, b any, path string, paths *[]string) {
	if reflect.DeepEqual(a, b) {
		return
	}
	aMap, aIsMap := a.(map[string]any)
	bMap, bIsMap := b.(map[string]any)
	if aIsMap && bIsMap {
		keys := map[string]bool{}
		for k := range aMap {
			keys[k] = true
		}
		for k := range bMap {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			diffJSON(aMap[k], bMap[k], child(path, k), paths)
		}
		return
	}
	aList, aIsList := a.([]any)
	bList, bIsList := b.([]any)
	if aIsList && bIsList && len(aList) == len(bList) {
		for i := range aList {
			diffJSON(aList[i], bList[i], index(path, i), paths)
		}
		return
	}
	*paths = append(*paths, path)
}
