// Package jsonpath is the template language of `ctl get -o jsonpath=…`, the
// subset of kubectl's JSONPath (k8s.io/client-go/util/jsonpath) that people
// type on a command line:
//
//	{.metadata.name}                      a field
//	{.spec.containers[0].image}           an index (negative counts from the end)
//	{.items[*].metadata.name}             every element, printed space-separated
//	{.items[1:3].metadata.name}           a slice [start:end:step]
//	{..image}                             recursive descent: every "image" below
//	{.metadata.labels['app']}             a quoted key (for keys with dots)
//	{.metadata.annotations.a\.b/c}        an escaped dot inside a key
//	{.items[?(@.status.phase=="Running")]} a filter (==, !=, <, <=, >, >=, or
//	                                      a bare path for "exists")
//	{range .items[*]}…{end}               a loop; @ is the current element
//	{"\n"}, {"\t"}                        string literals
//	{$}, {@}                              the root, the current value
//
// Text outside braces is printed as is. Like kubectl (which runs with
// --allow-missing-template-keys=true), a missing field prints nothing, but an
// index out of range is an error. Strings print raw, maps and lists as
// compact JSON, null as "null". Not supported: unions ([0,1] or ['a','b'])
// and filters combining conditions with && or ||.
//
// Reading order: parse.go turns a template into nodes, eval.go walks a
// decoded JSON document (maps, slices, strings, numbers, bools, nil) with
// them.
package jsonpath

import (
	"fmt"
	"strconv"
	"strings"
)

// node is one piece of a parsed template.
type node interface{ isNode() }

// textNode is literal text, from outside braces or a {"…"} literal.
type textNode struct{ text string }

// pathNode is an expression whose results are printed.
type pathNode struct{ path path }

// rangeNode loops over the results of path, running body once per result.
type rangeNode struct {
	path path
	body []node
}

func (textNode) isNode()  {}
func (pathNode) isNode()  {}
func (rangeNode) isNode() {}

// path is a chain of steps applied left to right; it starts at the current
// value (@) unless root is set ($).
type path struct {
	root  bool
	steps []step
}

// step is one move along a path.
type step interface{ isStep() }

// fieldStep selects a map member; "*" selects every member.
type fieldStep struct{ name string }

// recursiveStep selects the named member of the current value and of
// everything below it (`..name`).
type recursiveStep struct{ name string }

// indexStep selects one element of a list; negative counts from the end.
type indexStep struct{ index int }

// sliceStep selects elements start:end:step of a list (all for [*]).
type sliceStep struct {
	start, end, step *int
}

// filterStep keeps the list elements for which the condition holds.
type filterStep struct {
	left  path
	op    string // "" means: the left path exists
	right any    // a literal (string, float64, bool, nil) or a path
}

func (fieldStep) isStep()     {}
func (recursiveStep) isStep() {}
func (indexStep) isStep()     {}
func (sliceStep) isStep()     {}
func (filterStep) isStep()    {}

// Template is a parsed template, ready to run on any number of objects.
type Template struct {
	raw   string
	nodes []node
}

// Parse parses a template such as `{range .items[*]}{.metadata.name}{"\n"}{end}`.
func Parse(template string) (*Template, error) {
	p := &parser{input: template}
	nodes, err := p.parseNodes(false)
	if err != nil {
		return nil, err
	}
	return &Template{raw: template, nodes: nodes}, nil
}

// String returns the template as it was given.
func (t *Template) String() string { return t.raw }

// parser reads a template left to right.
type parser struct {
	input string
	pos   int
}

// parseNodes reads nodes until the input ends or, inside a range, until
// {end}.
func (p *parser) parseNodes(inRange bool) ([]node, error) {
	var nodes []node
	for p.pos < len(p.input) {
		open := strings.IndexByte(p.input[p.pos:], '{')
		if open < 0 {
			nodes = append(nodes, textNode{p.input[p.pos:]})
			p.pos = len(p.input)
			break
		}
		if open > 0 {
			nodes = append(nodes, textNode{p.input[p.pos : p.pos+open]})
		}
		p.pos += open + 1
		inner, err := p.action()
		if err != nil {
			return nil, err
		}
		inner = strings.TrimSpace(inner)
		switch {
		case inner == "end":
			if !inRange {
				return nil, fmt.Errorf("not in range, nothing to end")
			}
			return nodes, nil
		case strings.HasPrefix(inner, "range ") || strings.HasPrefix(inner, "range\t"):
			rangePath, err := parsePath(strings.TrimSpace(inner[len("range"):]))
			if err != nil {
				return nil, err
			}
			body, err := p.parseNodes(true)
			if err != nil {
				return nil, err
			}
			nodes = append(nodes, rangeNode{path: rangePath, body: body})
		case strings.HasPrefix(inner, `"`):
			text, err := strconv.Unquote(inner)
			if err != nil {
				return nil, fmt.Errorf("invalid string literal %s: %w", inner, err)
			}
			nodes = append(nodes, textNode{text})
		default:
			expr, err := parsePath(inner)
			if err != nil {
				return nil, err
			}
			nodes = append(nodes, pathNode{expr})
		}
	}
	if inRange {
		return nil, fmt.Errorf("unclosed action: range without {end}")
	}
	return nodes, nil
}

// action returns the text up to the matching '}', skipping braces inside
// quotes so that {"}"} and filters with string literals work.
func (p *parser) action() (string, error) {
	start := p.pos
	var quote byte
	for p.pos < len(p.input) {
		c := p.input[p.pos]
		switch {
		case quote != 0 && c == '\\':
			p.pos++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == '}':
			inner := p.input[start:p.pos]
			p.pos++
			return inner, nil
		}
		p.pos++
	}
	return "", fmt.Errorf("unclosed action")
}

// parsePath parses an expression such as `.items[*].metadata.name`, `$`,
// `@.status` or `..image`.
func parsePath(s string) (path, error) {
	var out path
	i := 0
	switch {
	case strings.HasPrefix(s, "$"):
		out.root = true
		i = 1
	case strings.HasPrefix(s, "@"):
		i = 1
	}
	for i < len(s) {
		switch c := s[i]; {
		case strings.HasPrefix(s[i:], ".."):
			name, next := readName(s, i+2)
			if name == "" {
				return path{}, fmt.Errorf("unrecognized identifier after '..' in %q", s)
			}
			out.steps = append(out.steps, recursiveStep{name})
			i = next
		case c == '.':
			name, next := readName(s, i+1)
			if name == "" {
				// A lone dot is the current value ({.} prints it).
				i++
				continue
			}
			out.steps = append(out.steps, fieldStep{name})
			i = next
		case c == '[':
			end := matchingBracket(s, i)
			if end < 0 {
				return path{}, fmt.Errorf("unterminated array in %q", s)
			}
			st, err := parseBracket(s[i+1 : end])
			if err != nil {
				return path{}, err
			}
			out.steps = append(out.steps, st)
			i = end + 1
		case c == ' ' || c == '\t':
			return path{}, fmt.Errorf("unrecognized character in action: %q in %q", c, s)
		default:
			// kubectl accepts a bare first field ({metadata.name}).
			if i == 0 {
				name, next := readName(s, i)
				if name != "" {
					out.steps = append(out.steps, fieldStep{name})
					i = next
					continue
				}
			}
			return path{}, fmt.Errorf("unrecognized character in action: %q in %q", c, s)
		}
	}
	return out, nil
}

// readName reads a field name starting at i: anything up to '.', '[' or a
// space, where `\.` is a literal dot (for annotation keys). "*" is a name.
func readName(s string, i int) (string, int) {
	var b strings.Builder
	for i < len(s) {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			b.WriteByte(s[i+1])
			i += 2
			continue
		}
		if c == '.' || c == '[' || c == ' ' || c == '\t' || c == '=' || c == '!' || c == '<' || c == '>' || c == ')' {
			break
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), i
}

// matchingBracket finds the ']' closing the '[' at open, skipping quotes
// and nested brackets (a filter may contain paths with indexes).
func matchingBracket(s string, open int) int {
	depth := 0
	var quote byte
	for i := open; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == '[':
			depth++
		case quote == 0 && c == ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// parseBracket parses what is between '[' and ']': *, an index, a slice, a
// quoted key or a filter.
func parseBracket(inner string) (step, error) {
	inner = strings.TrimSpace(inner)
	switch {
	case inner == "*":
		return sliceStep{}, nil
	case strings.HasPrefix(inner, "?(") && strings.HasSuffix(inner, ")"):
		return parseFilter(strings.TrimSpace(inner[2 : len(inner)-1]))
	case strings.HasPrefix(inner, "'") || strings.HasPrefix(inner, `"`):
		key, err := unquote(inner)
		if err != nil {
			return nil, err
		}
		return fieldStep{key}, nil
	case strings.Contains(inner, ","):
		return nil, fmt.Errorf("unions such as [%s] are not supported", inner)
	case strings.Contains(inner, ":"):
		parts := strings.Split(inner, ":")
		if len(parts) > 3 {
			return nil, fmt.Errorf("invalid array slice [%s]", inner)
		}
		var st sliceStep
		targets := []**int{&st.start, &st.end, &st.step}
		for k, part := range parts {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			n, err := strconv.Atoi(part)
			if err != nil {
				return nil, fmt.Errorf("invalid array index %q in [%s]", part, inner)
			}
			*targets[k] = &n
		}
		if st.step != nil && *st.step <= 0 {
			return nil, fmt.Errorf("invalid array slice [%s]: step must be positive", inner)
		}
		return st, nil
	default:
		n, err := strconv.Atoi(inner)
		if err != nil {
			return nil, fmt.Errorf("invalid array index %q", inner)
		}
		return indexStep{n}, nil
	}
}

// filterOperators in the order they must be tried (two-character ones first).
var filterOperators = []string{"==", "!=", "<=", ">=", "<", ">"}

// parseFilter parses the condition of [?(…)]: `@.a.b == "x"`, `@.n > 2`,
// or a bare `@.a` meaning "has a".
func parseFilter(cond string) (step, error) {
	for _, op := range filterOperators {
		i := indexOutsideQuotes(cond, op)
		if i < 0 {
			continue
		}
		left, err := parsePath(strings.TrimSpace(cond[:i]))
		if err != nil {
			return nil, err
		}
		right, err := parseOperand(strings.TrimSpace(cond[i+len(op):]))
		if err != nil {
			return nil, err
		}
		return filterStep{left: left, op: op, right: right}, nil
	}
	left, err := parsePath(cond)
	if err != nil {
		return nil, err
	}
	return filterStep{left: left}, nil
}

// parseOperand parses the right side of a filter: a quoted string, a
// number, true/false/null, or a path.
func parseOperand(s string) (any, error) {
	switch {
	case strings.HasPrefix(s, "'") || strings.HasPrefix(s, `"`):
		return unquote(s)
	case s == "true", s == "false":
		return s == "true", nil
	case s == "null":
		return nil, nil
	case strings.HasPrefix(s, "@") || strings.HasPrefix(s, "$") || strings.HasPrefix(s, "."):
		return parsePath(s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("unrecognized filter operand %q", s)
	}
	return f, nil
}

// unquote reads a single- or double-quoted string.
func unquote(s string) (string, error) {
	if len(s) < 2 || s[len(s)-1] != s[0] {
		return "", fmt.Errorf("unterminated quoted string %s", s)
	}
	if s[0] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], `\'`, `'`), nil
	}
	return strconv.Unquote(s)
}

// indexOutsideQuotes finds sub in s, ignoring quoted parts.
func indexOutsideQuotes(s, sub string) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && strings.HasPrefix(s[i:], sub):
			return i
		}
	}
	return -1
}
