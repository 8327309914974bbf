package schema

// How server-side apply merges the lists and structs of the Go types, in
// the vocabulary of upstream's OpenAPI (x-kubernetes-list-type,
// x-kubernetes-list-map-keys, x-kubernetes-map-type). The apply merge
// (package fieldmanager) and the published OpenAPI both read it here.

// List types, as x-kubernetes-list-type names them.
const (
	// ListAtomic lists are owned and replaced whole.
	ListAtomic = "atomic"
	// ListSet lists of scalars merge by value.
	ListSet = "set"
	// ListMap lists of objects merge by the values of their map keys.
	ListMap = "map"
)

// ListMerge is how server-side apply merges one list field.
type ListMerge struct {
	// Type is ListAtomic, ListSet or ListMap.
	Type string
	// Keys are the fields naming an item of a ListMap.
	Keys []string
	// KeyDefaults are the values of keys an item leaves out, as upstream's
	// OpenAPI defaults them (a port's protocol is TCP).
	KeyDefaults map[string]any
}

// listMergeExceptions are the lists whose upstream +listMapKey markers name
// more than their patchMergeKey, by "GoStructName.jsonField": a port is
// keyed by its number and its protocol, which defaults to TCP.
var listMergeExceptions = map[string]ListMerge{
	"Container.ports":          {Type: ListMap, Keys: []string{"containerPort", "protocol"}, KeyDefaults: map[string]any{"protocol": "TCP"}},
	"EphemeralContainer.ports": {Type: ListMap, Keys: []string{"containerPort", "protocol"}, KeyDefaults: map[string]any{"protocol": "TCP"}},
	"ServiceSpec.ports":        {Type: ListMap, Keys: []string{"port", "protocol"}, KeyDefaults: map[string]any{"protocol": "TCP"}},
}

// atomicStructs are the structs upstream marks +structType=atomic: owned
// and replaced whole by an apply.
var atomicStructs = map[string]bool{
	"LabelSelector": true,
}

// ListMergeOf is how an apply merges the list field f of struct owner: a
// list with patchStrategy merge and a patchMergeKey is a map list keyed by
// that key, a merge list of scalars a set, any other list atomic, but for
// the few lists whose upstream markers say otherwise.
func ListMergeOf(owner *Type, f *Field) ListMerge {
	if f == nil || f.Type == nil || f.Type.Kind != List {
		return ListMerge{Type: ListAtomic}
	}
	if owner != nil && owner.Go != nil {
		if exception, ok := listMergeExceptions[owner.Go.Name()+"."+f.Name]; ok {
			return exception
		}
	}
	if !f.HasPatchStrategy(StrategyMerge) {
		return ListMerge{Type: ListAtomic}
	}
	switch {
	case f.Type.Elem == nil || f.Type.Elem.Kind == Leaf:
		return ListMerge{Type: ListSet}
	case f.PatchMergeKey != "":
		return ListMerge{Type: ListMap, Keys: []string{f.PatchMergeKey}}
	}
	return ListMerge{Type: ListAtomic}
}

// AtomicStruct says an apply owns and replaces an object of type t whole,
// as upstream's +structType=atomic (a LabelSelector).
func AtomicStruct(t *Type) bool {
	return t != nil && t.Kind == Object && t.Go != nil && atomicStructs[t.Go.Name()]
}
