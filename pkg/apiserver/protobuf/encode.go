package protobuf

// This file writes Go structs as protobuf messages, the mirror of decode.go.
// It reproduces what upstream's generated (gogo-protobuf, proto2) code
// writes: fields in field-number order; non-pointer scalars and structs
// always, even when zero; pointers, slices and byte slices only when
// non-nil; repeated numbers unpacked; map entries sorted by key.

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
)

// encodeMessage appends the fields of struct v to w.
func encodeMessage(w *writer, v reflect.Value) error {
	m, err := messageOf(v.Type())
	if err != nil {
		return err
	}
	for _, f := range m.fields {
		if err := encodeField(w, f.num, v.Field(f.index)); err != nil {
			return atField(f.name, err)
		}
	}
	return nil
}

// encodeField appends every occurrence of one field: one per element of a
// repeated field, one per entry of a map.
func encodeField(w *writer, num int, v reflect.Value) error {
	t := v.Type()
	switch {
	case t.Kind() == reflect.Map:
		return encodeMap(w, num, v)
	case t.Kind() == reflect.Slice && !isBytes(t):
		for i := range v.Len() {
			if err := encodeValue(w, num, v.Index(i)); err != nil {
				return err
			}
		}
		return nil
	default:
		return encodeValue(w, num, v)
	}
}

// encodeMap appends one entry message per key, keys in sorted order so the
// same map always encodes to the same bytes.
func encodeMap(w *writer, num int, v reflect.Value) error {
	if v.Type().Key().Kind() != reflect.String {
		return fmt.Errorf("%w %s (map keys must be strings)", errUnsupported, v.Type())
	}
	keys := v.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	for _, k := range keys {
		var entry writer
		if err := encodeValue(&entry, 1, k); err != nil {
			return err
		}
		if err := encodeValue(&entry, 2, v.MapIndex(k)); err != nil {
			return err
		}
		w.bytesField(num, entry.buf)
	}
	return nil
}

// encodeValue appends a single value as field num.
func encodeValue(w *writer, num int, v reflect.Value) error {
	if isWellKnown(v.Type()) {
		msg, write, err := encodeWellKnown(v)
		if write {
			w.bytesField(num, msg)
		}
		return err
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return encodeValue(w, num, v.Elem())
	case reflect.Struct:
		var sub writer
		if err := encodeMessage(&sub, v); err != nil {
			return err
		}
		w.bytesField(num, sub.buf)
	case reflect.Slice:
		if !isBytes(v.Type()) {
			return fmt.Errorf("%w %s", errUnsupported, v.Type())
		}
		if !v.IsNil() {
			w.bytesField(num, v.Bytes())
		}
	case reflect.Bool:
		var x uint64
		if v.Bool() {
			x = 1
		}
		w.varintField(num, x)
	case reflect.Int, reflect.Int32, reflect.Int64:
		// Negative numbers are sign-extended to 64 bits, ten bytes on the wire.
		w.varintField(num, uint64(v.Int()))
	case reflect.Uint, reflect.Uint32, reflect.Uint64:
		w.varintField(num, v.Uint())
	case reflect.Float32:
		w.fixed32Field(num, math.Float32bits(float32(v.Float())))
	case reflect.Float64:
		w.fixed64Field(num, math.Float64bits(v.Float()))
	case reflect.String:
		w.bytesField(num, []byte(v.String()))
	default:
		return fmt.Errorf("%w %s", errUnsupported, v.Type())
	}
	return nil
}
