package fieldmanager

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// memberKey marks, in fieldsV1, a node that is itself in the set and also
// has children in it.
const memberKey = "."

// Set is a set of field paths, as a tree whose edges are path elements in
// their fieldsV1 spelling ("f:spec", `k:{"name":"web"}`, `v:"a"`). The
// zero Set is empty; a nil *Set is empty too for every read.
type Set struct {
	// member says the path to this node is itself in the set.
	member bool
	// children are the longer paths, by their next element.
	children map[string]*Set
}

// Path is a field path as a list of elements in their fieldsV1 spelling.
type Path []string

// Insert adds path to the set.
func (s *Set) Insert(path Path) {
	node := s
	for _, element := range path {
		if node.children == nil {
			node.children = map[string]*Set{}
		}
		next := node.children[element]
		if next == nil {
			next = &Set{}
			node.children[element] = next
		}
		node = next
	}
	node.member = true
}

// Has says whether path is in the set.
func (s *Set) Has(path Path) bool {
	node := s.node(path)
	return node != nil && node.member
}

// HasUnder says whether path or any path below it is in the set.
func (s *Set) HasUnder(path Path) bool {
	node := s.node(path)
	return node != nil && !node.Empty()
}

// node is the tree node at path, or nil.
func (s *Set) node(path Path) *Set {
	node := s
	for _, element := range path {
		if node == nil {
			return nil
		}
		node = node.children[element]
	}
	return node
}

// Empty says whether the set has no paths.
func (s *Set) Empty() bool {
	if s == nil {
		return true
	}
	if s.member {
		return false
	}
	for _, child := range s.children {
		if !child.Empty() {
			return false
		}
	}
	return true
}

// Paths lists the set's paths in sorted order.
func (s *Set) Paths() []Path {
	var paths []Path
	var walk func(node *Set, prefix Path)
	walk = func(node *Set, prefix Path) {
		if node == nil {
			return
		}
		if node.member {
			paths = append(paths, append(Path(nil), prefix...))
		}
		for _, element := range sortedElements(node.children) {
			walk(node.children[element], append(prefix, element))
		}
	}
	walk(s, nil)
	return paths
}

// Union is the paths in either set.
func (s *Set) Union(other *Set) *Set {
	out := &Set{}
	for _, p := range s.Paths() {
		out.Insert(p)
	}
	for _, p := range other.Paths() {
		out.Insert(p)
	}
	return out
}

// Intersection is the paths in both sets.
func (s *Set) Intersection(other *Set) *Set {
	out := &Set{}
	for _, p := range s.Paths() {
		if other.Has(p) {
			out.Insert(p)
		}
	}
	return out
}

// Difference is the paths of s that are not in other.
func (s *Set) Difference(other *Set) *Set {
	out := &Set{}
	for _, p := range s.Paths() {
		if !other.Has(p) {
			out.Insert(p)
		}
	}
	return out
}

// FieldsV1 is the set as managedFields' fieldsV1 object.
func (s *Set) FieldsV1() map[string]any {
	out := map[string]any{}
	if s == nil {
		return out
	}
	for element, child := range s.children {
		if child.Empty() {
			continue
		}
		encoded := child.FieldsV1()
		if child.member && len(encoded) > 0 {
			encoded[memberKey] = map[string]any{}
		}
		out[element] = encoded
	}
	return out
}

// SetFromFieldsV1 reads a fieldsV1 value (as decoded JSON, or raw JSON
// bytes) back into a Set.
func SetFromFieldsV1(fields any) (*Set, error) {
	if raw, ok := fields.(json.RawMessage); ok {
		var decoded any
		if err := json.Unmarshal(raw, &decoded); err != nil {
			return nil, fmt.Errorf("decode fieldsV1: %w", err)
		}
		fields = decoded
	}
	s := &Set{}
	if fields == nil {
		return s, nil
	}
	object, ok := fields.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("fieldsV1 is a %T, not an object", fields)
	}
	if err := s.readFieldsV1(object, nil); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Set) readFieldsV1(object map[string]any, prefix Path) error {
	for element, value := range object {
		if element == memberKey {
			s.Insert(prefix)
			continue
		}
		if len(element) < 2 || element[1] != ':' || !strings.ContainsRune("fkvi", rune(element[0])) {
			return fmt.Errorf("fieldsV1 key %q is not f:, k:, v: or i:", element)
		}
		child, ok := value.(map[string]any)
		if !ok {
			return fmt.Errorf("fieldsV1 value at %q is not an object", element)
		}
		path := append(append(Path(nil), prefix...), element)
		if len(child) == 0 {
			s.Insert(path)
			continue
		}
		if err := s.readFieldsV1(child, path); err != nil {
			return err
		}
	}
	return nil
}

// String writes a path as upstream's fieldpath does in conflict messages:
// .spec.ports[name="http",protocol="TCP"], .spec.finalizers[="a"], .items[3].
func (p Path) String() string {
	var b strings.Builder
	for _, element := range p {
		kind, body := element[0], element[2:]
		switch kind {
		case 'f':
			b.WriteString("." + body)
		case 'i':
			b.WriteString("[" + body + "]")
		case 'v':
			b.WriteString("[=" + body + "]")
		case 'k':
			var keys map[string]json.RawMessage
			if err := json.Unmarshal([]byte(body), &keys); err != nil {
				b.WriteString("[" + body + "]")
				continue
			}
			names := make([]string, 0, len(keys))
			for name := range keys {
				names = append(names, name)
			}
			sort.Strings(names)
			parts := make([]string, len(names))
			for i, name := range names {
				parts[i] = name + "=" + string(keys[name])
			}
			b.WriteString("[" + strings.Join(parts, ",") + "]")
		}
	}
	return b.String()
}

// field is the path element of an object's field or a map's key.
func field(name string) string { return "f:" + name }

// valueElement is the path element of a set's item.
func valueElement(v any) string {
	encoded, _ := json.Marshal(v)
	return "v:" + string(encoded)
}

// keyElement is the path element of a keyed list's item: its key fields,
// in sorted order as encoding/json writes a map, a key the item leaves out
// taking its default, if it has one; ok is false when the item
// is not an object.
func keyElement(item any, keys []string, defaults map[string]any) (string, bool) {
	object, ok := item.(map[string]any)
	if !ok {
		return "", false
	}
	values := make(map[string]any, len(keys))
	for _, k := range keys {
		if v, ok := object[k]; ok {
			values[k] = v
		} else if v, ok := defaults[k]; ok {
			values[k] = v
		}
	}
	encoded, _ := json.Marshal(values)
	return "k:" + string(encoded), true
}

func sortedElements(children map[string]*Set) []string {
	keys := make([]string, 0, len(children))
	for k := range children {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
