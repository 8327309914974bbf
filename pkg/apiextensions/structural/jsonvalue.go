package structural

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
)

// A JSON value here is what the apiserver decodes a custom object into:
// nil, bool, string, int64 (integral numbers), float64 (other numbers),
// []any and map[string]any.

// decodeJSON turns raw JSON (a default or an enum value) into a JSON value,
// integral numbers as int64 like the rest of the object.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode JSON value: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("decode JSON value: trailing data after the value")
	}
	return fromJSONNumbers(v), nil
}

// fromJSONNumbers replaces every json.Number by int64 or float64.
func fromJSONNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = fromJSONNumbers(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = fromJSONNumbers(v[k])
		}
	}
	return v
}

// deepCopyJSON copies a JSON value so a default stored in the schema is
// never shared with (and then mutated through) an object.
func deepCopyJSON(v any) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i := range v {
			out[i] = deepCopyJSON(v[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = deepCopyJSON(x)
		}
		return out
	}
	return v
}

// jsonEqual compares two JSON values, numbers by value whatever their Go type.
func jsonEqual(a, b any) bool {
	if fa, ok := asFloat(a); ok {
		fb, ok := asFloat(b)
		return ok && fa == fb
	}
	switch a := a.(type) {
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, x := range a {
			y, found := b[k]
			if !found || !jsonEqual(x, y) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// asFloat reads any Go number as a float64.
func asFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case int:
		return float64(v), true
	case int32:
		return float64(v), true
	case float64:
		return v, true
	case float32:
		return float64(v), true
	}
	return 0, false
}

// isIntegral says whether f has no fractional part (and fits a JSON integer).
func isIntegral(f float64) bool {
	return !math.IsInf(f, 0) && !math.IsNaN(f) && f == math.Trunc(f)
}
