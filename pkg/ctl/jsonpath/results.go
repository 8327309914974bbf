package jsonpath

import (
	"fmt"
	"regexp"
)

// Results runs the template's expressions on data and returns what each
// one reached, in order: one slice per {expression} (text and ranges are
// skipped). This is what -o custom-columns prints in a cell and what
// --sort-by compares, where the template is a single expression.
func (t *Template) Results(data any) ([][]any, error) {
	var all [][]any
	for _, n := range t.nodes {
		p, ok := n.(pathNode)
		if !ok {
			continue
		}
		values, err := p.path.eval(data, data)
		if err != nil {
			return nil, err
		}
		all = append(all, values)
	}
	return all, nil
}

// relaxedPattern matches a field path with or without braces and leading
// dot: metadata.name, .metadata.name, {metadata.name}, {.metadata.name}.
var relaxedPattern = regexp.MustCompile(`^\{\.?([^{}]+)\}$|^\.?([^{}]+)$`)

// Relaxed turns the forgiving spelling of a field path that
// --sort-by and custom-columns accept into a template expression:
// "metadata.name", ".metadata.name", "{metadata.name}" all become
// "{.metadata.name}", as kubectl's RelaxedJSONPathExpression does.
func Relaxed(expr string) (string, error) {
	if expr == "" {
		return "", nil
	}
	m := relaxedPattern.FindStringSubmatch(expr)
	if m == nil {
		return "", fmt.Errorf("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'")
	}
	field := m[1]
	if field == "" {
		field = m[2]
	}
	return "{." + field + "}", nil
}
