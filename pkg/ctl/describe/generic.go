package describe

import (
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// genericSkip are the fields the generic describer leaves out: shown in
// the header already, or (managedFields) only noise.
var genericSkip = []string{".metadata.managedFields", ".metadata.name", ".metadata.namespace", ".metadata.labels", ".metadata.annotations"}

// describeGeneric prints any object, as kubectl's genericDescriber does
// for kinds without a describer: the usual header, then every field in
// key order, a field name turned into words ("holderIdentity" → "Holder
// Identity"), maps and lists nested one level deeper, then Events.
func describeGeneric(in Input, s Settings) string {
	meta, _ := in.Object["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	namespace, _ := meta["namespace"].(string)
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", name)
		w.write(level0, "Namespace:\t%s\n", namespace)
		printLabelsMultiline(w, "Labels", stringMap(meta["labels"]))
		printAnnotationsMultiline(w, "Annotations", stringMap(meta["annotations"]))
		printUnstructured(w, level0, in.Object, "")
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	})
}

// printUnstructured prints the fields of content at level; path is the
// dotted path of content, to match genericSkip.
func printUnstructured(w prefixWriter, level int, content map[string]any, path string) {
	for _, field := range slices.Sorted(maps.Keys(content)) {
		fieldPath := path + "." + field
		if slices.Contains(genericSkip, fieldPath) {
			continue
		}
		switch value := content[field].(type) {
		case map[string]any:
			w.write(level, "%s:\n", smartLabel(field))
			printUnstructured(w, level+1, value, fieldPath)
		case []any:
			w.write(level, "%s:\n", smartLabel(field))
			for _, item := range value {
				if m, ok := item.(map[string]any); ok {
					printUnstructured(w, level+1, m, fieldPath)
				} else {
					w.write(level+1, "%v\n", item)
				}
			}
		default:
			w.write(level, "%s:\t%v\n", smartLabel(field), value)
		}
	}
}

// stringMap reads a map of strings (labels, annotations) from JSON.
func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k], _ = v.(string)
	}
	return out
}

// commonAcronyms stay in capitals in a smart label.
var commonAcronyms = []string{"API", "URL", "UID", "OSB", "GUID"}

// smartLabel turns a camelCase field name into capitalised words
// ("apiVersion" → "API Version"); a name with characters other than
// letters and '-' is kept as it is (kubectl's smartLabelFor).
func smartLabel(field string) string {
	if strings.IndexFunc(field, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) != -1 {
		return field
	}
	var words []string
	for _, part := range splitCamelCase(field) {
		if part == "_" {
			continue
		}
		if slices.Contains(commonAcronyms, strings.ToUpper(part)) {
			part = strings.ToUpper(part)
		} else {
			r, size := utf8.DecodeRuneInString(part)
			part = string(unicode.ToUpper(r)) + part[size:]
		}
		words = append(words, part)
	}
	return strings.Join(words, " ")
}

// splitCamelCase splits a word at changes between lower case, upper case,
// digits and other characters, keeping an upper-case letter with the
// lower-case run it starts ("PDFLoader" → "PDF", "Loader"), as the
// fatih/camelcase package kubectl uses does.
func splitCamelCase(s string) []string {
	if !utf8.ValidString(s) {
		return []string{s}
	}
	class := func(r rune) int {
		switch {
		case unicode.IsLower(r):
			return 1
		case unicode.IsUpper(r):
			return 2
		case unicode.IsDigit(r):
			return 3
		}
		return 4
	}
	var runs [][]rune
	last := 0
	for _, r := range s {
		c := class(r)
		if c == last {
			runs[len(runs)-1] = append(runs[len(runs)-1], r)
		} else {
			runs = append(runs, []rune{r})
		}
		last = c
	}
	for i := 0; i < len(runs)-1; i++ {
		if unicode.IsUpper(runs[i][0]) && unicode.IsLower(runs[i+1][0]) {
			runs[i+1] = append([]rune{runs[i][len(runs[i])-1]}, runs[i+1]...)
			runs[i] = runs[i][:len(runs[i])-1]
		}
	}
	var out []string
	for _, r := range runs {
		if len(r) > 0 {
			out = append(out, string(r))
		}
	}
	return out
}
