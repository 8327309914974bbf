package fieldmanager

import (
	"reflect"

	"kplane/pkg/api/schema"
)

// TypedShape is the server-side apply shape of a built-in object of Go
// type t, read from its schema.Type as upstream reads k8s.io/api's
// OpenAPI: a list with patchStrategy merge and a patchMergeKey is a map
// list keyed by that key, a merge list of scalars is a set, other lists
// are atomic, and objects and maps merge field by field. Where upstream's
// +listType markers differ from the patch tags, listExceptions and
// atomicStructs say so; the root's metadata merges as ObjectMeta.
func TypedShape(t reflect.Type) Shape {
	return ObjectShape(typedShape{t: schema.Of(t)})
}

// typedShape answers Shape from one schema.Type node; field is the struct
// field that holds it, whose tags decide how a list merges.
type typedShape struct {
	t      *schema.Type
	field  *schema.Field
	parent *schema.Type
}

// listKey is how upstream's OpenAPI keys one list of a struct, where it is
// not the list's patchMergeKey.
type listKey struct {
	keys     []string
	defaults map[string]any
}

// listExceptions are the lists whose upstream +listMapKey markers name more
// than the patchMergeKey, by "GoStructName.jsonField": a port is keyed by
// its number and its protocol, which defaults to TCP.
var listExceptions = map[string]listKey{
	"Container.ports":          {keys: []string{"containerPort", "protocol"}, defaults: map[string]any{"protocol": "TCP"}},
	"EphemeralContainer.ports": {keys: []string{"containerPort", "protocol"}, defaults: map[string]any{"protocol": "TCP"}},
	"ServiceSpec.ports":        {keys: []string{"port", "protocol"}, defaults: map[string]any{"protocol": "TCP"}},
}

// atomicStructs are the structs upstream marks +structType=atomic: owned
// and replaced whole.
var atomicStructs = map[string]bool{
	"LabelSelector": true,
}

func (n typedShape) Field(name string) Shape {
	if n.t == nil {
		return nil
	}
	switch n.t.Kind {
	case schema.Object:
		f := n.t.Field(name)
		if f == nil {
			return nil
		}
		return typedShape{t: f.Type, field: f, parent: n.t}
	case schema.Map:
		return typedShape{t: n.t.Elem}
	}
	return nil
}

func (n typedShape) Items() Shape {
	if n.t == nil || n.t.Kind != schema.List {
		return nil
	}
	return typedShape{t: n.t.Elem}
}

func (n typedShape) ListType() string {
	if n.t == nil || n.t.Kind != schema.List || !n.field.HasPatchStrategy(schema.StrategyMerge) {
		return ListAtomic
	}
	if n.t.Elem == nil || n.t.Elem.Kind == schema.Leaf {
		return ListSet
	}
	if _, ok := n.exception(); ok || n.field.PatchMergeKey != "" {
		return ListMap
	}
	return ListAtomic
}

func (n typedShape) ListMapKeys() []string {
	if exception, ok := n.exception(); ok {
		return exception.keys
	}
	if n.field == nil || n.field.PatchMergeKey == "" {
		return nil
	}
	return []string{n.field.PatchMergeKey}
}

// ListMapKeyDefaults are the values a map list's item takes for keys it
// leaves out, as upstream's OpenAPI defaults them.
func (n typedShape) ListMapKeyDefaults() map[string]any {
	exception, _ := n.exception()
	return exception.defaults
}

func (n typedShape) Atomic() bool {
	return n.t != nil && n.t.Kind == schema.Object && n.t.Go != nil && atomicStructs[n.t.Go.Name()]
}

func (n typedShape) exception() (listKey, bool) {
	if n.field == nil || n.parent == nil || n.parent.Go == nil {
		return listKey{}, false
	}
	exception, ok := listExceptions[n.parent.Go.Name()+"."+n.field.Name]
	return exception, ok
}
