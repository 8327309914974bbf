package cel

import (
	"regexp"
	"strconv"
	"strings"
)

// Field paths are plain strings in kplane's field errors. The root of an
// object is "" while walking and is printed as "<nil>", because upstream
// validates a custom resource with a nil *field.Path and a rule on the root
// therefore reports `<nil>: Invalid value: "object": …`.

// rootFieldName is how upstream prints the path of the object itself.
const rootFieldName = "<nil>"

// childPath is parent.name (or name at the root).
func childPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// indexPath is parent[i], for a list element.
func indexPath(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// keyPath is parent[key], for a map value.
func keyPath(parent, key string) string {
	return parent + "[" + key + "]"
}

// printedPath is the path as an error shows it.
func printedPath(p string) string {
	if p == "" {
		return rootFieldName
	}
	return p
}

// CEL sees an object's properties as fields, so a property name must be a
// CEL identifier. Upstream escapes the characters JSON allows and CEL does
// not: "-" becomes __dash__, "." __dot__, "/" __slash__, and a literal "__"
// __underscores__; a name that is a CEL reserved word is wrapped as
// __name__. A property whose name still is no identifier (one that starts
// with a digit, say) cannot be reached from a rule.

// celReservedWords are the words CEL keeps for itself (the language
// keywords and the ones reserved for future use).
var celReservedWords = map[string]bool{
	"true": true, "false": true, "null": true, "in": true,
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true,
	"var": true, "void": true, "while": true,
}

// escapablePropertyName is what a property name may look like to be
// reachable once escaped.
var escapablePropertyName = regexp.MustCompile(`^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$`)

// propertyNameEscaper performs the replacements in one pass, so that the
// "__" of an inserted escape is never escaped again.
var propertyNameEscaper = strings.NewReplacer("__", "__underscores__", ".", "__dot__", "-", "__dash__", "/", "__slash__")

// escapePropertyName returns the name a rule uses for the property, and
// false when no rule can name it.
func escapePropertyName(name string) (string, bool) {
	if celReservedWords[name] {
		return "__" + name + "__", true
	}
	if !escapablePropertyName.MatchString(name) {
		return "", false
	}
	return propertyNameEscaper.Replace(name), true
}
