package fieldmanager

import (
	"reflect"

	"kplane/pkg/api/schema"
)

// TypedShape is the server-side apply shape of a built-in object of Go
// type t, read from its schema.Type as upstream reads k8s.io/api's
// OpenAPI (schema.ListMergeOf, schema.AtomicStruct): lists merge by their
// patch tags and upstream's few exceptions, objects and maps field by
// field; the root's metadata merges as ObjectMeta.
func TypedShape(t reflect.Type) Shape {
	return ObjectShape(typedShape{t: schema.Of(t)})
}

// typedShape answers Shape from one schema.Type node; list is how it
// merges when the node is a list field.
type typedShape struct {
	t    *schema.Type
	list schema.ListMerge
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
		return typedShape{t: f.Type, list: schema.ListMergeOf(n.t, f)}
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
	if n.list.Type == "" {
		return ListAtomic
	}
	return n.list.Type
}

func (n typedShape) ListMapKeys() []string { return n.list.Keys }

// ListMapKeyDefaults are the values a map list's item takes for keys it
// leaves out, as upstream's OpenAPI defaults them.
func (n typedShape) ListMapKeyDefaults() map[string]any { return n.list.KeyDefaults }

func (n typedShape) Atomic() bool { return schema.AtomicStruct(n.t) }
