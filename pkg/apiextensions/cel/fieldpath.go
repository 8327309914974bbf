package cel

import (
	"fmt"
	"strings"
)

// resolveFieldPath reads a rule's fieldPath, a relative JSON path such as
// ".spec.replicas" or ".labels['app.kubernetes.io/name']", checks that
// each step names a property of the schema below n, and returns the steps.
// A failing rule reports its error at the node's path plus these steps, so
// the user is pointed at the field the rule is about rather than the object
// that holds the rule.
func resolveFieldPath(n *schemaNode, fieldPath string) ([]fieldPathStep, error) {
	var steps []fieldPathStep
	rest := fieldPath
	for rest != "" {
		var name string
		switch {
		case strings.HasPrefix(rest, "['"):
			end := strings.Index(rest, "']")
			if end < 0 {
				return nil, fmt.Errorf("fieldPath must be a valid path: unclosed bracket in %q", fieldPath)
			}
			name, rest = rest[2:end], rest[end+2:]
		case strings.HasPrefix(rest, "."):
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			name, rest = rest[:end], rest[end:]
		default:
			return nil, fmt.Errorf("fieldPath must be a valid path: expected '.' or \"['\" at %q", rest)
		}
		if name == "" {
			return nil, fmt.Errorf("fieldPath must be a valid path: empty field name in %q", fieldPath)
		}
		next, ok := propertyNamed(n, name)
		if !ok {
			return nil, fmt.Errorf("fieldPath must be a valid path: does not refer to a valid field in the schema: %s", name)
		}
		steps = append(steps, fieldPathStep{name: name, mapKey: n.kind == mapNode})
		n = next
	}
	return steps, nil
}

// fieldPathStep is one step of a fieldPath: a property, or a key of a map.
type fieldPathStep struct {
	name   string
	mapKey bool
}

// appendTo extends a field path by the step: path.name or path[key].
func (s fieldPathStep) appendTo(path string) string {
	if s.mapKey {
		return keyPath(path, s.name)
	}
	return childPath(path, s.name)
}

// propertyNamed finds an object node's property, or a map's value type,
// by JSON name.
func propertyNamed(n *schemaNode, name string) (*schemaNode, bool) {
	switch n.kind {
	case objectNode:
		for _, p := range n.properties {
			if p.jsonName == name {
				return p.node, true
			}
		}
	case mapNode:
		return n.elements, true
	}
	return nil, false
}
