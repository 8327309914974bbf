package jsonpath

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
)

// Execute runs the template on data, a decoded JSON document (maps,
// slices, strings, json.Number or other numbers, bools and nil), and writes
// the output to w.
func (t *Template) Execute(w io.Writer, data any) error {
	var out bytes.Buffer
	if err := execNodes(&out, t.nodes, data, data); err != nil {
		return err
	}
	_, err := w.Write(out.Bytes())
	return err
}

// execNodes runs nodes with cur as @ and root as $.
func execNodes(out *bytes.Buffer, nodes []node, root, cur any) error {
	for _, n := range nodes {
		switch n := n.(type) {
		case textNode:
			out.WriteString(n.text)
		case pathNode:
			results, err := n.path.eval(root, cur)
			if err != nil {
				return err
			}
			for i, r := range results {
				if i > 0 {
					out.WriteByte(' ')
				}
				if err := writeValue(out, r); err != nil {
					return err
				}
			}
		case rangeNode:
			results, err := n.path.eval(root, cur)
			if err != nil {
				return err
			}
			for _, r := range results {
				if err := execNodes(out, n.body, root, r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// writeValue prints one result the way kubectl does: maps and lists as
// compact JSON, null as "null", everything else as its text.
func writeValue(out *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		out.WriteString("null")
	case string:
		out.WriteString(v)
	case map[string]any, []any:
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		out.Write(data)
	default:
		fmt.Fprint(out, v)
	}
	return nil
}

// eval applies the path's steps to $ or @ and returns every value reached.
func (p path) eval(root, cur any) ([]any, error) {
	values := []any{cur}
	if p.root {
		values = []any{root}
	}
	for _, st := range p.steps {
		var next []any
		for _, v := range values {
			results, err := applyStep(st, root, v)
			if err != nil {
				return nil, err
			}
			next = append(next, results...)
		}
		values = next
	}
	return values, nil
}

// applyStep applies one step to one value.
func applyStep(st step, root, v any) ([]any, error) {
	switch st := st.(type) {
	case fieldStep:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil
		}
		if st.name == "*" {
			var all []any
			for _, k := range sortedKeys(m) {
				all = append(all, m[k])
			}
			return all, nil
		}
		if value, found := m[st.name]; found {
			return []any{value}, nil
		}
		// A missing key prints nothing (kubectl's default
		// --allow-missing-template-keys=true).
		return nil, nil
	case recursiveStep:
		var found []any
		collect(v, st.name, &found)
		return found, nil
	case indexStep:
		list, ok := v.([]any)
		if !ok {
			return nil, nil
		}
		i := st.index
		if i < 0 {
			i += len(list)
		}
		if i < 0 || i >= len(list) {
			return nil, fmt.Errorf("array index out of bounds: index %d, length %d", st.index, len(list))
		}
		return []any{list[i]}, nil
	case sliceStep:
		list, ok := v.([]any)
		if !ok {
			if m, isMap := v.(map[string]any); isMap && st.start == nil && st.end == nil {
				// [*] on a map: its values, as kubectl does.
				var all []any
				for _, k := range sortedKeys(m) {
					all = append(all, m[k])
				}
				return all, nil
			}
			return nil, nil
		}
		return sliceOf(list, st), nil
	case filterStep:
		list, ok := v.([]any)
		if !ok {
			return nil, nil
		}
		var kept []any
		for _, item := range list {
			ok, err := st.matches(root, item)
			if err != nil {
				return nil, err
			}
			if ok {
				kept = append(kept, item)
			}
		}
		return kept, nil
	}
	return nil, fmt.Errorf("unknown step %T", st)
}

// sliceOf returns list[start:end:step] with Python-like bounds: negative
// values count from the end and out-of-range bounds are clamped.
func sliceOf(list []any, st sliceStep) []any {
	n := len(list)
	clamp := func(p *int, def int) int {
		if p == nil {
			return def
		}
		i := *p
		if i < 0 {
			i += n
		}
		return min(max(i, 0), n)
	}
	start, end, step := clamp(st.start, 0), clamp(st.end, n), 1
	if st.step != nil {
		step = *st.step
	}
	var out []any
	for i := start; i < end; i += step {
		out = append(out, list[i])
	}
	return out
}

// collect appends, depth first, the values of every member called name in
// v and below it.
func collect(v any, name string, found *[]any) {
	switch v := v.(type) {
	case map[string]any:
		if value, ok := v[name]; ok {
			*found = append(*found, value)
		}
		for _, k := range sortedKeys(v) {
			collect(v[k], name, found)
		}
	case []any:
		for _, item := range v {
			collect(item, name, found)
		}
	}
}

// matches evaluates the filter condition with item as @.
func (f filterStep) matches(root, item any) (bool, error) {
	lefts, err := f.left.eval(root, item)
	if err != nil {
		return false, err
	}
	if f.op == "" {
		return len(lefts) > 0, nil
	}
	rights := []any{f.right}
	if p, isPath := f.right.(path); isPath {
		if rights, err = p.eval(root, item); err != nil {
			return false, err
		}
	}
	for _, l := range lefts {
		for _, r := range rights {
			if compare(l, f.op, r) {
				return true, nil
			}
		}
	}
	return false, nil
}

// compare applies op to two JSON values: numbers compare as numbers,
// everything else by its printed text (== and != only make sense there).
func compare(l any, op string, r any) bool {
	lf, lok := toFloat(l)
	rf, rok := toFloat(r)
	if lok && rok {
		switch op {
		case "==":
			return lf == rf
		case "!=":
			return lf != rf
		case "<":
			return lf < rf
		case "<=":
			return lf <= rf
		case ">":
			return lf > rf
		case ">=":
			return lf >= rf
		}
		return false
	}
	ls, rs := fmt.Sprint(l), fmt.Sprint(r)
	switch op {
	case "==":
		return ls == rs
	case "!=":
		return ls != rs
	case "<":
		return ls < rs
	case "<=":
		return ls <= rs
	case ">":
		return ls > rs
	case ">=":
		return ls >= rs
	}
	return false
}

// toFloat reads a JSON number of any Go representation.
func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int64:
		return float64(v), true
	case int:
		return float64(v), true
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		return f, err == nil
	}
	return 0, false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return slices.Clip(keys)
}
