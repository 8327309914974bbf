package cel

import (
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
)

// A list's x-kubernetes-list-type says what equality means for it, and CEL
// follows it as upstream does: an atomic list (the default) is a sequence,
// equal to another with the same elements in the same order; a set is
// equal to another with the same elements in any order; a map-list is
// equal to another whose elements match by key and are equal. So
// self == oldSelf on a set or map-list does not fail because a client
// reordered it.

// unorderedList is a set or map-list inside CEL: a CEL list in every way
// except equality.
type unorderedList struct {
	traits.Lister
	// mapKeys are the key fields of a map-list, by the names rules use;
	// nil for a set.
	mapKeys []string
}

// Equal compares without regard to order.
func (l unorderedList) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.False
	}
	if l.Size() != o.Size() {
		return types.False
	}
	size := int64(l.Size().(types.Int))
	for i := int64(0); i < size; i++ {
		if !containsMatching(o, size, l.Get(types.Int(i)), l.mapKeys) {
			return types.False
		}
	}
	return types.True
}

// containsMatching reports whether list holds an element equal to e; in a
// map-list, whose keys are unique, the one element with e's keys must be.
func containsMatching(list traits.Lister, size int64, e ref.Val, mapKeys []string) bool {
	for j := int64(0); j < size; j++ {
		candidate := list.Get(types.Int(j))
		if mapKeys != nil {
			if !sameMapKeys(e, candidate, mapKeys) {
				continue
			}
			return candidate.Equal(e) == types.True
		}
		if candidate.Equal(e) == types.True {
			return true
		}
	}
	return false
}

// sameMapKeys compares two map-list elements' key fields.
func sameMapKeys(a, b ref.Val, keys []string) bool {
	am, aok := a.(traits.Mapper)
	bm, bok := b.(traits.Mapper)
	if !aok || !bok {
		return false
	}
	for _, k := range keys {
		av, afound := am.Find(types.String(k))
		bv, bfound := bm.Find(types.String(k))
		if afound != bfound || afound && av.Equal(bv) != types.True {
			return false
		}
	}
	return true
}

// newListValue wraps a converted list by its list type: sets and map-lists
// compare without order, atomic lists stay plain.
func newListValue(elements []any, listType *string, mapKeys []string) any {
	if listType == nil || (*listType != "set" && *listType != "map") {
		return elements
	}
	lister, ok := types.DefaultTypeAdapter.NativeToValue(elements).(traits.Lister)
	if !ok {
		return elements
	}
	if *listType == "set" {
		return unorderedList{Lister: lister}
	}
	keys := make([]string, 0, len(mapKeys))
	for _, k := range mapKeys {
		if name, ok := escapePropertyName(k); ok {
			keys = append(keys, name)
		}
	}
	return unorderedList{Lister: lister, mapKeys: keys}
}
