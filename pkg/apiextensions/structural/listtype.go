package structural

import (
	"encoding/json"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// validateListSetsAndMaps checks the lists whose schema says
// x-kubernetes-list-type: set (no item twice) or map (no two items with the
// same values of the x-kubernetes-list-map-keys; an absent key counts as a
// value of its own). Server-side apply merges such lists item by item, which
// is only well defined when items are unique.
func validateListSetsAndMaps(path string, s *api.JSONSchemaProps, data any) apierrors.FieldErrorList {
	if s == nil {
		return nil
	}
	var errs apierrors.FieldErrorList
	switch data := data.(type) {
	case map[string]any:
		for _, k := range sortedKeys(data) {
			if prop, ok := s.Properties[k]; ok {
				errs = append(errs, validateListSetsAndMaps(childPath(path, k), &prop, data[k])...)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
				errs = append(errs, validateListSetsAndMaps(keyPath(path, k), s.AdditionalProperties.Schema, data[k])...)
			}
		}
	case []any:
		if s.XListType != nil {
			switch *s.XListType {
			case "set":
				for _, i := range duplicateIndexes(data) {
					errs = append(errs, apierrors.Duplicate(indexPath(path, i), data[i]))
				}
			case "map":
				errs = append(errs, validateListMap(path, s.XListMapKeys, data)...)
			}
		}
		if s.Items != nil && s.Items.Schema != nil {
			for i, item := range data {
				errs = append(errs, validateListSetsAndMaps(indexPath(path, i), s.Items.Schema, item)...)
			}
		}
	}
	return errs
}

// duplicateIndexes lists, for each value that appears more than once, the
// index of its second appearance (upstream reports each duplicate once).
func duplicateIndexes(items []any) []int {
	seen := make(map[string]int, len(items))
	var dups []int
	for i, item := range items {
		key := canonicalJSON(item)
		seen[key]++
		if seen[key] == 2 {
			dups = append(dups, i)
		}
	}
	return dups
}

// canonicalJSON is a value's JSON with map keys sorted (encoding/json sorts
// them), so equal values give equal strings; numbers print by value.
func canonicalJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "\x00unencodable"
	}
	return string(b)
}

// validateListMap checks a list-type map: every item is an object (or
// null), and no two share their key values.
func validateListMap(path string, keys []string, items []any) apierrors.FieldErrorList {
	for i, item := range items {
		if _, ok := item.(map[string]any); item != nil && !ok {
			return apierrors.FieldErrorList{apierrors.Invalid(indexPath(path, i), item, "must be an object for an array of list-type map")}
		}
	}
	if len(items) <= 1 {
		return nil
	}
	keyValues := make([]map[string]any, len(items))
	asStrings := make([]any, len(items))
	for i, item := range items {
		obj, _ := item.(map[string]any)
		kv := map[string]any{}
		for _, k := range keys {
			if v, found := obj[k]; found {
				kv[k] = v
			}
		}
		keyValues[i] = kv
		// Marshalling kv cannot tell an absent key from a present one in a
		// one-key map, so absent keys are marked explicitly.
		if len(keys) == 1 {
			if v, found := kv[keys[0]]; found {
				asStrings[i] = v
			} else {
				asStrings[i] = absentKeyMarker
			}
		} else {
			asStrings[i] = kv
		}
	}
	var errs apierrors.FieldErrorList
	for _, i := range duplicateIndexes(asStrings) {
		errs = append(errs, apierrors.Duplicate(indexPath(path, i), keyValues[i]))
	}
	return errs
}

// absentKeyMarker is how an absent single key is compared: a value no JSON
// decoding produces.
var absentKeyMarker = map[string]any{"\x00absent": true}
