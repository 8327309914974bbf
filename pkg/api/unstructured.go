package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// JSON has one number type; Go's encoding/json decodes every number into a
// map as float64, which silently rounds integers above 2^53 and turns
// "replicas: 3" into 3.0 for anyone type-switching on it. Like upstream's
// unstructured objects, kplane's dynamic client decodes whole numbers as
// int64 and only the rest as float64. The client's dynamic path and the
// apiserver's custom resources (CustomObject) both decode through here.

// DecodeObjectMap decodes one JSON object into a map with normalized numbers.
func DecodeObjectMap(data []byte) (map[string]any, error) {
	var obj map[string]any
	if err := DecodeUnstructured(data, &obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, errors.New("expected a JSON object, got null")
	}
	NormalizeNumbers(obj)
	return obj, nil
}

// DecodeUnstructured decodes data into v keeping numbers as json.Number;
// call NormalizeNumbers on the maps afterwards.
func DecodeUnstructured(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// NormalizeNumbers replaces, in place, every json.Number in obj (at any
// depth) by an int64 or a float64.
func NormalizeNumbers(obj map[string]any) {
	for k, v := range obj {
		obj[k] = normalizeValue(v)
	}
}

// normalizeValue is one value with its numbers normalized.
func normalizeValue(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i
		}
		if f, err := v.Float64(); err == nil {
			return f
		}
		return string(v)
	case map[string]any:
		NormalizeNumbers(v)
		return v
	case []any:
		for i := range v {
			v[i] = normalizeValue(v[i])
		}
		return v
	}
	return v
}
