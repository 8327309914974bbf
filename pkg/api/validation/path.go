package validation

import "strconv"

// Field paths are plain strings in JSON notation, built the way upstream's
// field.Path prints them: children joined by ".", list items as "[3]" and map
// keys as "[cpu]".

// child appends a field name to a path: child("spec", "replicas") is
// "spec.replicas".
func child(path string, names ...string) string {
	for _, name := range names {
		if path == "" {
			path = name
		} else {
			path += "." + name
		}
	}
	return path
}

// index appends a list position: index("spec.containers", 0) is
// "spec.containers[0]".
func index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// key appends a map key: key("resources.requests", "cpu") is
// "resources.requests[cpu]".
func key(path, k string) string {
	return path + "[" + k + "]"
}
