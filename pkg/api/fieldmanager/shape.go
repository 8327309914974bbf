package fieldmanager

import "kplane/pkg/api/schema"

// List types a Shape can give an array, as x-kubernetes-list-type names
// them.
const (
	// ListAtomic lists are owned and replaced whole.
	ListAtomic = schema.ListAtomic
	// ListSet lists of scalars merge item by item, an item being its value.
	ListSet = schema.ListSet
	// ListMap lists of objects merge item by item, an item being named by
	// the values of its map keys.
	ListMap = schema.ListMap
)

// Shape is what the merge needs to know of a schema node: how its lists
// and objects merge. A nil Shape is "deduced" (objects granular, lists
// atomic), as upstream treats a node its schema does not describe.
type Shape interface {
	// Field is the shape of an object's field, or of a map's value.
	Field(name string) Shape
	// Items is the shape of an array's items.
	Items() Shape
	// ListType is ListAtomic, ListSet or ListMap, for an array.
	ListType() string
	// ListMapKeys are the fields naming an item of a ListMap array.
	ListMapKeys() []string
	// Atomic says an object is owned and replaced whole
	// (x-kubernetes-map-type: atomic).
	Atomic() bool
}

func fieldShape(s Shape, name string) Shape {
	if s == nil {
		return nil
	}
	return s.Field(name)
}

func itemShape(s Shape) Shape {
	if s == nil {
		return nil
	}
	return s.Items()
}

func listType(s Shape) string {
	if s == nil {
		return ListAtomic
	}
	return s.ListType()
}

func atomicObject(s Shape) bool { return s != nil && s.Atomic() }

// itemElement is the path element of a list item, by the list's type; ok
// is false for an atomic list, or an item a keyed list cannot name.
func itemElement(s Shape, item any) (string, bool) {
	switch listType(s) {
	case ListSet:
		return valueElement(item), true
	case ListMap:
		return keyElement(item, s.ListMapKeys(), keyDefaults(s))
	}
	return "", false
}

// keyDefaulter is a Shape whose map list keys have defaults, as upstream's
// OpenAPI gives a port's protocol: an item leaving such a key out is the
// item with the default.
type keyDefaulter interface {
	ListMapKeyDefaults() map[string]any
}

func keyDefaults(s Shape) map[string]any {
	if d, ok := s.(keyDefaulter); ok {
		return d.ListMapKeyDefaults()
	}
	return nil
}

// metadataShape is how the root's metadata merges (upstream's ObjectMeta
// tags): labels and annotations key by key, finalizers as a set,
// ownerReferences by uid.
type metadataShape struct{}

func (metadataShape) Field(name string) Shape {
	switch name {
	case "finalizers":
		return listShape{listType: ListSet}
	case "ownerReferences":
		return listShape{listType: ListMap, keys: []string{"uid"}}
	}
	return nil
}
func (metadataShape) Items() Shape          { return nil }
func (metadataShape) ListType() string      { return ListAtomic }
func (metadataShape) ListMapKeys() []string { return nil }
func (metadataShape) Atomic() bool          { return false }

// listShape is a list with deduced items.
type listShape struct {
	listType string
	keys     []string
}

func (listShape) Field(string) Shape      { return nil }
func (listShape) Items() Shape            { return nil }
func (l listShape) ListType() string      { return l.listType }
func (l listShape) ListMapKeys() []string { return l.keys }
func (listShape) Atomic() bool            { return false }

// objectShape is a root object: its metadata merges as ObjectMeta, the
// rest as body says.
type objectShape struct{ body Shape }

// ObjectShape is the shape of a whole object whose fields but metadata
// have the shape body.
func ObjectShape(body Shape) Shape { return objectShape{body: body} }

func (o objectShape) Field(name string) Shape {
	if name == "metadata" {
		return metadataShape{}
	}
	return fieldShape(o.body, name)
}
func (objectShape) Items() Shape          { return nil }
func (objectShape) ListType() string      { return ListAtomic }
func (objectShape) ListMapKeys() []string { return nil }
func (objectShape) Atomic() bool          { return false }
