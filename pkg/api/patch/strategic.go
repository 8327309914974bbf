// This file is the vocabulary of the strategic merge patch: the rules a
// patch follows, the directives it may carry, what the API types' struct
// tags say about each field, and the small helpers on decoded JSON that
// both halves use. The two halves live beside it:
//
//   - strategic_apply.go applies a patch to an object (the apiserver, and
//     ctl for --dry-run=client and rollout history);
//   - strategic_diff.go and strategic_threeway.go compute the patch that
//     `ctl apply` and `ctl edit` send.
//
// Upstream keeps both halves in one package too,
// k8s.io/apimachinery/pkg/util/strategicpatch, where they read the struct
// tags through a LookupPatchMeta interface. kplane's halves read them from
// pkg/api/schema, which walks the Go types once; sharing one lookup here is
// what keeps the two halves agreeing on which lists merge by which key.

package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

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
//     The client sends it for fields whose patchStrategy includes
//     "retainKeys".
//   - "$deleteFromPrimitiveList/<field>": [...] removes those values from
//     a merging list of primitives (a finalizer kubectl apply no longer sees).
//   - "$setElementOrder/<field>": [...] gives the order of a merging list:
//     the full list of keys (or values) kubectl has in its file, so that
//     elements the patch does not otherwise mention still end up in the
//     file's order.
//
// Any other '$' member is an error. An applied result never contains
// directives.
const (
	directiveMarker               = "$patch"
	retainKeysDirective           = "$retainKeys"
	deleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList/"
	setElementOrderPrefix         = "$setElementOrder/"

	deleteDirective  = "delete"
	replaceDirective = "replace"
	mergeDirective   = "merge"
)

// fieldInfo is what the schema says about one member of an object: its
// type (nil when unknown) and its patch tags.
type fieldInfo struct {
	typ        *schema.Type
	merge      bool // patchStrategy merge: merge a list instead of replacing it
	replace    bool // patchStrategy replace: replace a map instead of merging it
	retainKeys bool // patchStrategy retainKeys: the patch lists the members to keep
	mergeKey   string
}

// lookup finds what parent's schema says about its member key. Members of
// a Map all share the value type. An unknown member has no schema: its
// lists are replaced and its objects merged generically (the apiserver
// drops it later, when it decodes the result).
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
			typ:        field.Type,
			merge:      field.HasPatchStrategy(schema.StrategyMerge),
			replace:    field.HasPatchStrategy(schema.StrategyReplace),
			retainKeys: field.HasPatchStrategy(schema.StrategyRetainKeys),
			mergeKey:   field.PatchMergeKey,
		}
	case schema.Map:
		return fieldInfo{typ: parent.Elem}
	default:
		return fieldInfo{}
	}
}

// elemType is the element type of a List schema, or nil.
func elemType(typ *schema.Type) *schema.Type {
	if typ != nil && typ.Kind == schema.List {
		return typ.Elem
	}
	return nil
}

// errNullObject is decodeObject's error for the document null.
var errNullObject = errors.New("expected a JSON object, got null")

// decodeObject decodes a document holding one JSON object. Numbers are
// kept as json.Number, so they pass through a patch exactly (a replicas of
// 30000000000000000001 is not rounded to a float64).
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
		return nil, errNullObject
	}
	return object, nil
}

// sortedKeys returns m's keys in order. Go walks maps in random order; a
// patch must be applied, and computed, the same way every time.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}

// scalarKey returns v if it can identify a list element (a JSON string,
// number, bool or null), which also makes it safe as a Go map key and
// with ==. A merge key is a name or a port; a list or an object in its
// place is a malformed document.
func scalarKey(v any) (any, bool) {
	switch v.(type) {
	case string, json.Number, bool, nil:
		return v, true
	default:
		return nil, false
	}
}

// uniqueScalars drops repeated primitives from list, keeping the first of
// each in place; elements that are not primitives are all kept.
func uniqueScalars(list []any) []any {
	seen := map[any]bool{}
	unique := []any{}
	for _, item := range list {
		if key, ok := scalarKey(item); ok {
			if seen[key] {
				continue
			}
			seen[key] = true
		}
		unique = append(unique, item)
	}
	return unique
}

// interleave merges two runs of a list's elements, each already in its
// final order: serverOnly, the elements only the object had, and ordered,
// the elements the patch or the file puts in order. A server-only element
// goes before an ordered one only when originalPosition knows both and it
// came first; otherwise the ordered element goes first. This is the rule
// (upstream's mergeSortedSlice) by which elements a file never mentions
// keep their place among those it does, and both halves follow it.
func interleave(serverOnly, ordered []any, originalPosition func(any) (int, bool)) []any {
	result := make([]any, 0, len(serverOnly)+len(ordered))
	i, j := 0, 0
	for i < len(serverOnly) && j < len(ordered) {
		serverAt, serverKnown := originalPosition(serverOnly[i])
		orderedAt, orderedKnown := originalPosition(ordered[j])
		if serverKnown && orderedKnown && serverAt < orderedAt {
			result = append(result, serverOnly[i])
			i++
		} else {
			result = append(result, ordered[j])
			j++
		}
	}
	result = append(result, serverOnly[i:]...)
	return append(result, ordered[j:]...)
}
