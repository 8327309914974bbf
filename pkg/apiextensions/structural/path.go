package structural

import "strconv"

// Field paths are built the way upstream's field.Path prints them:
// "spec.template" for a child, "spec.ports[0]" for an index and
// "spec.labels[app]" for a map key. An empty string is the root.

// childPath is p.name, or name at the root.
func childPath(p, name string) string {
	if p == "" {
		return name
	}
	return p + "." + name
}

// indexPath is p[i].
func indexPath(p string, i int) string {
	return p + "[" + strconv.Itoa(i) + "]"
}

// keyPath is p[key].
func keyPath(p, key string) string {
	return p + "[" + key + "]"
}

// propertyPath is the path of a property's schema: p.properties[name].
func propertyPath(p, name string) string {
	return keyPath(childPath(p, "properties"), name)
}

// rootOr names the root as upstream's nil field.Path prints: "<nil>".
func rootOr(p string) string {
	if p == "" {
		return "<nil>"
	}
	return p
}
