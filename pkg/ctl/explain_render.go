package ctl

import (
	"fmt"
	"io"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// This file renders kubectl's plaintext explain template
// (k8s.io/kubectl/pkg/explain/v2/templates/plaintext.tmpl, v1.32) in Go.
// The template reads the document as untyped JSON, and so does this code,
// with the template's notion of truth: a missing member, an empty object,
// an empty list and an empty string are all "not there". Each method below
// is one of the template's named templates.

// explainResource writes the explanation of gvr (or of the field at
// fieldPath in it) from its group-version's OpenAPI document. As kubectl
// does, it writes the GROUP/KIND/VERSION header before looking for the
// field, so an unknown field's error follows a printed header.
func explainResource(w io.Writer, doc map[string]any, gvr groupVersionResource, fieldPath []string, recursive bool) error {
	gvk := findGroupVersionKind(doc, gvr)
	if gvk == nil {
		return fmt.Errorf("error: GVR (%s) not found in OpenAPI schema", gvr)
	}
	var header strings.Builder
	if group := stringAt(gvk, "group"); group != "" {
		fmt.Fprintf(&header, "GROUP:      %s\n", group)
	}
	fmt.Fprintf(&header, "KIND:       %s\n", textOf(gvk["kind"]))
	fmt.Fprintf(&header, "VERSION:    %s\n\n", textOf(gvk["version"]))
	if _, err := w.Write([]byte(header.String())); err != nil {
		return err
	}

	kindSchema := findKindSchema(doc, gvk)
	if kindSchema == nil {
		return fmt.Errorf("error: GVK %v not found in OpenAPI schema", gvk)
	}
	e := &explainer{document: doc, recursive: recursive}
	body := e.output(kindSchema, nil, fieldPath)
	if body == "" && len(fieldPath) > 0 {
		return fmt.Errorf("error: field %q does not exist", fieldPath[len(fieldPath)-1])
	}
	_, err := w.Write([]byte(body + "\n"))
	return err
}

// findGroupVersionKind finds the kind of gvr in the operations of its
// paths: the list and item paths, cluster-scoped then namespaced, and in
// each the first operation tagged with x-kubernetes-group-version-kind.
// Like the template, a later path that exists overrides an earlier one.
func findGroupVersionKind(doc map[string]any, gvr groupVersionResource) map[string]any {
	prefix := "/api"
	if gvr.Group != "" {
		prefix = "/apis/" + gvr.Group
	}
	base := prefix + "/" + gvr.Version
	searchPaths := []string{
		base + "/" + gvr.Resource,
		base + "/" + gvr.Resource + "/{name}",
		base + "/namespaces/{namespace}/" + gvr.Resource,
		base + "/namespaces/{namespace}/" + gvr.Resource + "/{name}",
	}
	paths := objectAt(doc, "paths")
	var gvk map[string]any
	for _, p := range searchPaths {
		item := objectAt(paths, p)
		if item == nil {
			continue
		}
		for _, method := range []string{"get", "post", "put", "patch", "delete"} {
			operation := objectAt(item, method)
			if operation == nil {
				continue
			}
			gvk = objectAt(operation, "x-kubernetes-group-version-kind")
			if gvk != nil {
				break
			}
		}
	}
	return gvk
}

// findKindSchema returns the first component schema, in name order, whose
// x-kubernetes-group-version-kind list holds gvk.
func findKindSchema(doc map[string]any, gvk map[string]any) map[string]any {
	schemas := objectAt(objectAt(doc, "components"), "schemas")
	for _, name := range sortedKeys(schemas) {
		s, _ := schemas[name].(map[string]any)
		kinds, _ := s["x-kubernetes-group-version-kind"].([]any)
		for _, k := range kinds {
			if reflect.DeepEqual(k, any(gvk)) {
				return s
			}
		}
	}
	return nil
}

// explainer renders parts of one document.
type explainer struct {
	document  map[string]any
	recursive bool
}

// output follows fieldPath down from schema s and, when the path is used
// up, prints the description and the fields of where it arrived; it
// returns "" when the path leads nowhere. A property step prints the
// "FIELD:" line when it is the last; lists, maps and allOf are looked
// through. history holds the $refs resolved since the last property step,
// so a reference that leads back to itself ends the search.
func (e *explainer) output(s map[string]any, history map[string]bool, fieldPath []string) string {
	ref := stringAt(s, "$ref")
	next := withRef(history, ref)
	resolved := e.resolveOr(ref, s)

	if len(fieldPath) == 0 {
		var b strings.Builder
		b.WriteString("DESCRIPTION:\n")
		description := e.description(resolved, nil)
		if description == "" {
			description = "<empty>"
		}
		b.WriteString(indent(wordWrap(description, 76), 4) + "\n")
		if fields := e.fieldList(resolved, 1, nil); fields != "" {
			b.WriteString("FIELDS:\n" + fields)
		}
		return b.String()
	}
	if ref != "" && history[ref] {
		return "" // a cycle
	}
	if property := objectAt(objectAt(resolved, "properties"), fieldPath[0]); property != nil {
		var b strings.Builder
		if len(fieldPath) == 1 {
			fmt.Fprintf(&b, "FIELD: %s <%s>\n", fieldPath[0], e.typeGuess(property))
			b.WriteString(enumLong(property) + "\n\n")
		}
		b.WriteString(e.output(property, nil, fieldPath[1:]))
		return b.String()
	}
	if items := objectAt(resolved, "items"); items != nil {
		return e.output(items, next, fieldPath)
	}
	if values := additionalProperties(resolved); values != nil {
		return e.output(values, next, fieldPath)
	}
	for _, alternative := range objectsAt(resolved, "allOf") {
		if out := e.output(alternative, next, fieldPath); out != "" {
			return out
		}
	}
	return ""
}

// fieldList lists the properties of s, sorted by name, each with its
// details (fieldDetail) and, when recursive, its own fields one level
// deeper; the fields of allOf members, list items and map values are
// listed at the same level. A $ref already on the way down is skipped.
func (e *explainer) fieldList(s map[string]any, level int, history map[string]bool) string {
	ref := stringAt(s, "$ref")
	if ref != "" && history[ref] {
		return ""
	}
	next := withRef(history, ref)
	resolved := e.resolveOr(ref, s)

	var b strings.Builder
	properties := objectAt(resolved, "properties")
	for _, name := range sortedKeys(properties) {
		b.WriteString(e.fieldDetail(resolved, name, level))
		if e.recursive {
			property, _ := properties[name].(map[string]any)
			b.WriteString(e.fieldList(property, level+1, next))
		}
	}
	for _, member := range objectsAt(resolved, "allOf") {
		b.WriteString(e.fieldList(member, level, next))
	}
	if items := objectAt(resolved, "items"); items != nil {
		b.WriteString(e.fieldList(items, level, next))
	}
	if values := additionalProperties(resolved); values != nil {
		b.WriteString(e.fieldList(values, level, next))
	}
	return b.String()
}

// fieldDetail is one property of parent: "name\t<type>", " -required-"
// when parent requires it, its enum values, and (unless recursive) its
// description wrapped to the width left after the indentation.
func (e *explainer) fieldDetail(parent map[string]any, name string, level int) string {
	indentation := 2 * level
	property := objectAt(objectAt(parent, "properties"), name)
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s\t<%s>", strings.Repeat(" ", indentation), name, e.typeGuess(property))
	if required, _ := parent["required"].([]any); slices.Contains(required, any(name)) {
		b.WriteString(" -required-")
	}
	b.WriteString(enumShort(property, indentation))
	b.WriteString("\n")
	if !e.recursive {
		description := stringAt(property, "description")
		if description == "" {
			description = "<no description>"
		}
		b.WriteString(indent(wordWrap(description, 78-indentation), indentation+2) + "\n\n")
	}
	return b.String()
}

// description is the description of s followed by those of what it is
// made of — its allOf members, list items and map values — each ending its
// line: a field's own description, then its type's. A $ref that leads back
// to itself (in history) ends the walk, where kubectl's template would
// recurse until it hits its depth limit.
func (e *explainer) description(s map[string]any, history map[string]bool) string {
	ref := stringAt(s, "$ref")
	if ref != "" && history[ref] {
		return ""
	}
	history = withRef(history, ref)
	s = e.resolveOr(ref, s)
	var b strings.Builder
	if d := stringAt(s, "description"); d != "" {
		b.WriteString(d + "\n")
	}
	for _, member := range objectsAt(s, "allOf") {
		b.WriteString(e.description(member, history))
	}
	if items := objectAt(s, "items"); items != nil {
		b.WriteString(e.description(items, history))
	}
	if values := additionalProperties(s); values != nil {
		b.WriteString(e.description(values, history))
	}
	return b.String()
}

// typeGuess is the type hint in angle brackets: []T for a list, map[string]T
// for a map, the last part of a referenced schema's name when that schema
// is an object or has no type (<PodSpec>, <Quantity>), else the JSON type
// (<string>, <integer>), and Object when nothing says more. kubectl's
// template fails on an empty schema; ctl calls it Object.
func (e *explainer) typeGuess(s map[string]any) string {
	if items := objectAt(s, "items"); items != nil {
		return "[]" + e.typeGuess(items)
	}
	if values := additionalProperties(s); values != nil {
		return "map[string]" + e.typeGuess(values)
	}
	if members := objectsAt(s, "allOf"); len(members) == 1 && objectAt(s, "properties") == nil {
		return e.typeGuess(members[0])
	}
	if ref := stringAt(s, "$ref"); ref != "" {
		target := e.resolveRef(ref)
		if typ := stringAt(target, "type"); typ != "" && typ != "object" {
			return typ
		}
		name := ref[strings.LastIndex(ref, "/")+1:]
		if name = name[strings.LastIndex(name, ".")+1:]; name == "" {
			return "Object"
		}
		return name
	}
	if typ := stringAt(s, "type"); typ != "" && typ != "object" {
		return typ
	}
	return "Object"
}

// enumLong lists a field's enum values under its FIELD line, one per
// indented line after "ENUM:"; "" when it has none.
func enumLong(s map[string]any) string {
	values, _ := s["enum"].([]any)
	if len(values) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("ENUM:")
	for _, v := range values {
		b.WriteString("\n    " + enumValue(v))
	}
	return b.String()
}

// enumShort lists up to four of a field's enum values on a line of their
// own after the field's line in a field list, then ", ...." if there are
// more.
func enumShort(s map[string]any, indentation int) string {
	values, _ := s["enum"].([]any)
	if len(values) == 0 {
		return ""
	}
	const limit = 4
	var b strings.Builder
	b.WriteString("\n" + strings.Repeat(" ", indentation) + "enum: ")
	for i, v := range values {
		if i >= limit {
			b.WriteString(", ....")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(enumValue(v))
	}
	return b.String()
}

// enumValue prints one enum value; the empty string shows as "".
func enumValue(v any) string {
	if v == "" {
		return `""`
	}
	return textOf(v)
}

// resolveRef returns the schema a "#/components/schemas/…" reference
// points at in the document, or nil. References to other documents are
// not followed.
func (e *explainer) resolveRef(ref string) map[string]any {
	u, err := url.Parse(ref)
	if ref == "" || err != nil || !strings.HasPrefix(ref, "#") {
		return nil
	}
	current := e.document
	for _, part := range strings.Split(u.Fragment, "/") {
		if part == "" {
			continue
		}
		next, ok := current[part].(map[string]any)
		if !ok {
			return nil
		}
		current = next
	}
	return current
}

// resolveOr returns the schema ref points at, or s when ref resolves to
// nothing (or to an empty schema).
func (e *explainer) resolveOr(ref string, s map[string]any) map[string]any {
	if target := e.resolveRef(ref); len(target) > 0 {
		return target
	}
	return s
}

// withRef returns a copy of history that also holds ref.
func withRef(history map[string]bool, ref string) map[string]bool {
	next := make(map[string]bool, len(history)+1)
	for k := range history {
		next[k] = true
	}
	next[ref] = true
	return next
}

// objectAt returns m[key] when it is a non-empty JSON object, else nil.
func objectAt(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	if len(v) == 0 {
		return nil
	}
	return v
}

// objectsAt returns the JSON objects of the list m[key].
func objectsAt(m map[string]any, key string) []map[string]any {
	list, _ := m[key].([]any)
	var objects []map[string]any
	for _, v := range list {
		object, _ := v.(map[string]any)
		objects = append(objects, object)
	}
	return objects
}

// additionalProperties returns a map schema's value schema; nil when
// additionalProperties is absent, empty, or a boolean.
func additionalProperties(s map[string]any) map[string]any {
	return objectAt(s, "additionalProperties")
}

// stringAt returns m[key] when it is a string, else "".
func stringAt(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// textOf prints a JSON value as Go's templates do.
func textOf(v any) string {
	if v == nil {
		return "<no value>"
	}
	return fmt.Sprint(v)
}

// sortedKeys returns m's keys in order: Go templates range over maps so.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// indent is the template's indent: every line, including an empty last
// one, starts with n spaces.
func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

// wordWrap is the template's wrap in kubectl 1.32, which is
// github.com/mitchellh/go-wordwrap's WrapString: lines break at whitespace
// so as to hold at most width runes; a word of width runes or more is
// never broken and may overflow; the newlines already in s are kept; the
// whitespace at a break is dropped, other runs of whitespace are kept as
// they are.
func wordWrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	var out strings.Builder
	lineLength := 0   // runes written on the current output line
	var spaces []rune // whitespace seen after the last word, not yet written
	var word []rune   // the word being read, not yet written
	flush := func() {
		lineLength += len(spaces) + len(word)
		out.WriteString(string(spaces))
		out.WriteString(string(word))
		spaces, word = spaces[:0], word[:0]
	}
	for _, r := range s {
		switch {
		case r == '\n':
			if len(word) > 0 {
				flush()
			} else if lineLength+len(spaces) <= width {
				out.WriteString(string(spaces)) // trailing spaces that fit
			}
			spaces = spaces[:0]
			out.WriteRune('\n')
			lineLength = 0
		case unicode.IsSpace(r) && r != '\u00a0': // a no-break space is part of a word
			if len(word) > 0 || len(spaces) == 0 {
				flush()
			}
			spaces = append(spaces, r)
		default:
			word = append(word, r)
			if lineLength+len(spaces)+len(word) > width && len(word) < width {
				// The word no longer fits: it starts the next line, and
				// the whitespace before it goes.
				out.WriteRune('\n')
				lineLength = 0
				spaces = spaces[:0]
			}
		}
	}
	if len(word) > 0 {
		flush()
	} else if lineLength+len(spaces) <= width {
		out.WriteString(string(spaces))
	}
	return out.String()
}
