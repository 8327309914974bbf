package cel

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"time"

	"cel.dev/cel-go/common/types"
)

// celValue converts a decoded JSON value (map[string]any, []any, string,
// float64 or json.Number, bool, nil) into the Go value whose CEL reading is
// what the schema says: integers as int64, numbers as float64, strings of
// the byte, duration, date and date-time formats as []byte, time.Duration
// and time.Time, objects as maps keyed by the escaped property names that
// rules use. Fields the schema does not declare are left out (a rule cannot
// name them), and so are fields whose value is null, which CEL sees as
// absent.
func (n *schemaNode) celValue(v any) any {
	if v == nil {
		return types.NullValue
	}
	switch n.kind {
	case objectNode:
		m, ok := v.(map[string]any)
		if !ok {
			return dynValue(v)
		}
		out := make(map[string]any, len(n.properties))
		for _, p := range n.properties {
			fv, ok := m[p.jsonName]
			if !ok || fv == nil || p.celName == "" {
				continue
			}
			out[p.celName] = p.node.celValue(fv)
		}
		return out
	case mapNode:
		m, ok := v.(map[string]any)
		if !ok {
			return dynValue(v)
		}
		out := make(map[string]any, len(m))
		for k, fv := range m {
			if fv == nil {
				continue
			}
			out[k] = n.elements.celValue(fv)
		}
		return out
	case listNode:
		l, ok := v.([]any)
		if !ok {
			return dynValue(v)
		}
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = n.elements.celValue(e)
		}
		return newListValue(out, n.schema.XListType, n.schema.XListMapKeys)
	case scalarNode:
		return n.scalarValue(v)
	}
	return dynValue(v)
}

// scalarValue converts a leaf by the schema's type and format. A value of
// the wrong JSON type is passed on as it is: the structural schema
// validation, which runs first, has already reported it.
func (n *schemaNode) scalarValue(v any) any {
	switch n.schemaType {
	case "integer":
		if i, ok := asInt(v); ok {
			return i
		}
	case "number":
		if f, ok := asFloat(v); ok {
			return f
		}
	case "string":
		s, ok := v.(string)
		if !ok {
			break
		}
		switch n.format {
		case "byte":
			if b, err := base64.StdEncoding.DecodeString(s); err == nil {
				return b
			}
			return types.NewErr("invalid base64 in a byte-format string")
		case "duration":
			if d, err := time.ParseDuration(s); err == nil {
				return d
			}
			return types.NewErr("invalid duration %q", s)
		case "date":
			if t, err := time.Parse(time.DateOnly, s); err == nil {
				return t
			}
			return types.NewErr("invalid date %q", s)
		case "date-time":
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				return t
			}
			return types.NewErr("invalid date-time %q", s)
		}
		return s
	}
	return dynValue(v)
}

// dynValue converts a value the schema does not describe (int-or-string,
// preserve-unknown-fields): whole JSON numbers become int64 as they do in
// upstream's decoding, other numbers float64, and maps and lists are
// converted throughout.
func dynValue(v any) any {
	switch v := v.(type) {
	case nil:
		return types.NullValue
	case float64, json.Number, int, int32, int64:
		if i, ok := asInt(v); ok {
			return i
		}
		f, _ := asFloat(v)
		return f
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = dynValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = dynValue(e)
		}
		return out
	}
	return v
}

// asInt reads a whole JSON number as int64.
func asInt(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case int:
		return int64(v), true
	case int32:
		return int64(v), true
	case float64:
		if v == math.Trunc(v) && v >= math.MinInt64 && v < math.MaxInt64 {
			return int64(v), true
		}
	case json.Number:
		i, err := v.Int64()
		return i, err == nil
	}
	return 0, false
}

// asFloat reads any JSON number as float64.
func asFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int64:
		return float64(v), true
	case int:
		return float64(v), true
	case int32:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}
