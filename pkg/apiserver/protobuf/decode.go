package protobuf

// This file decodes a protobuf message into a Go struct by reflection.
// Each field number is looked up in the struct's tags; the Go type of the
// field then says how to read the value:
//
//	bool, intN, uintN        varint
//	float32 / float64        fixed32 / fixed64
//	string, []byte           length-delimited
//	struct                   length-delimited, holding a nested message
//	pointer                  the pointee, allocated on first sight
//	[]T                      one field occurrence per element, or (numbers
//	                         only) all elements packed into one bytes value
//	map[K]V                  one occurrence per entry, each a message with
//	                         the key as field 1 and the value as field 2
//
// Time, MicroTime, Quantity, IntOrString and raw JSON (json.RawMessage and
// interface fields) have messages of their own; wellknown.go reads those.

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// maxDepth bounds message nesting. The deepest legitimate kplane objects (a
// CronJob's pod template's affinity terms' label selectors, say) nest fewer
// than 20 messages; the limit keeps a crafted body from recursing without end.
const maxDepth = 64

// errTooDeep is returned for a body nested deeper than maxDepth.
var errTooDeep = fmt.Errorf("messages nested more than %d deep", maxDepth)

// fieldError says where in the object decoding failed, as the path of
// protobuf field names from the top, e.g. spec.template.spec.containers[0].
type fieldError struct {
	path []string
	err  error
}

// Error prints the path and the problem.
func (e *fieldError) Error() string { return strings.Join(e.path, ".") + ": " + e.err.Error() }

// Unwrap returns the problem.
func (e *fieldError) Unwrap() error { return e.err }

// atField puts name in front of err's path.
func atField(name string, err error) error {
	if fe, ok := err.(*fieldError); ok {
		fe.path = append([]string{name}, fe.path...)
		return fe
	}
	return &fieldError{path: []string{name}, err: err}
}

// decodeMessage fills struct v from the message in buf. A field that occurs
// more than once is merged as protobuf specifies: scalars take the last
// value, messages merge, repeated fields and maps accumulate.
func decodeMessage(buf []byte, v reflect.Value, depth int) error {
	if depth > maxDepth {
		return errTooDeep
	}
	m, err := messageOf(v.Type())
	if err != nil {
		return err
	}
	r := reader{buf: buf}
	for !r.done() {
		num, wt, err := r.key()
		if err != nil {
			return err
		}
		i, known := m.byNum[num]
		if !known {
			if err := r.skip(wt); err != nil {
				return atField(fmt.Sprintf("<unknown field %d>", num), err)
			}
			continue
		}
		f := m.fields[i]
		fv := v.Field(f.index)
		name := f.name
		if fv.Kind() == reflect.Slice && !isBytes(fv.Type()) {
			name = fmt.Sprintf("%s[%d]", f.name, fv.Len())
		}
		if err := decodeField(&r, wt, fv, depth); err != nil {
			return atField(name, err)
		}
	}
	return nil
}

// decodeField reads one occurrence of a field into v, appending to it if
// it is repeated or a map.
func decodeField(r *reader, wt wireType, v reflect.Value, depth int) error {
	t := v.Type()
	switch {
	case t.Kind() == reflect.Map:
		return decodeMapEntry(r, wt, v, depth)
	case t.Kind() == reflect.Slice && !isBytes(t):
		if wt == wireBytes && isPackable(t.Elem()) {
			return decodePacked(r, v)
		}
		elem := reflect.New(t.Elem()).Elem()
		if err := decodeValue(r, wt, elem, depth); err != nil {
			return err
		}
		v.Set(reflect.Append(v, elem))
		return nil
	default:
		return decodeValue(r, wt, v, depth)
	}
}

// decodeValue reads a single, non-repeated value into v.
func decodeValue(r *reader, wt wireType, v reflect.Value, depth int) error {
	if isWellKnown(v.Type()) {
		b, err := lengthDelimited(r, wt)
		if err != nil {
			return err
		}
		return decodeWellKnown(b, v, depth)
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return decodeValue(r, wt, v.Elem(), depth)
	case reflect.Struct:
		b, err := lengthDelimited(r, wt)
		if err != nil {
			return err
		}
		return decodeMessage(b, v, depth+1)
	case reflect.Slice:
		if !isBytes(v.Type()) {
			return fmt.Errorf("%w %s", errUnsupported, v.Type())
		}
		b, err := lengthDelimited(r, wt)
		if err != nil {
			return err
		}
		v.SetBytes(append([]byte{}, b...))
		return nil
	default:
		return decodeScalar(r, wt, v)
	}
}

// decodeScalar reads a number, bool or string.
func decodeScalar(r *reader, wt wireType, v reflect.Value) error {
	if v.Kind() != reflect.String && !isPackable(v.Type()) {
		return fmt.Errorf("%w %s", errUnsupported, v.Type())
	}
	want := scalarWireType(v.Type())
	if wt != want {
		return fmt.Errorf("wire type %d cannot hold a %s (want %d)", wt, v.Type(), want)
	}
	switch v.Kind() {
	case reflect.Bool:
		x, err := r.varint()
		v.SetBool(x != 0)
		return err
	case reflect.Int32:
		// Like upstream's generated code, an int32 keeps the low 32 bits;
		// negative values arrive sign-extended to ten bytes.
		x, err := r.varint()
		v.SetInt(int64(int32(x)))
		return err
	case reflect.Int, reflect.Int64:
		x, err := r.varint()
		v.SetInt(int64(x))
		return err
	case reflect.Uint32:
		x, err := r.varint()
		v.SetUint(uint64(uint32(x)))
		return err
	case reflect.Uint, reflect.Uint64:
		x, err := r.varint()
		v.SetUint(x)
		return err
	case reflect.Float32:
		x, err := r.fixed32()
		v.SetFloat(float64(math.Float32frombits(x)))
		return err
	case reflect.Float64:
		x, err := r.fixed64()
		v.SetFloat(math.Float64frombits(x))
		return err
	default: // string; other kinds were refused above
		b, err := r.bytes()
		v.SetString(string(b))
		return err
	}
}

// decodePacked reads a packed repeated field: one bytes value holding the
// elements back to back, without keys. proto3 writers pack numbers by
// default; upstream's proto2 messages do not, but a reader must accept both.
func decodePacked(r *reader, v reflect.Value) error {
	b, err := r.bytes()
	if err != nil {
		return err
	}
	elemType := v.Type().Elem()
	wt := scalarWireType(elemType)
	packed := reader{buf: b}
	for !packed.done() {
		elem := reflect.New(elemType).Elem()
		if err := decodeScalar(&packed, wt, elem); err != nil {
			return err
		}
		v.Set(reflect.Append(v, elem))
	}
	return nil
}

// decodeMapEntry reads one map entry, a message whose field 1 is the key and
// field 2 the value; a missing key or value is its type's zero value.
func decodeMapEntry(r *reader, wt wireType, v reflect.Value, depth int) error {
	b, err := lengthDelimited(r, wt)
	if err != nil {
		return err
	}
	if depth+1 > maxDepth {
		return errTooDeep
	}
	t := v.Type()
	key := reflect.New(t.Key()).Elem()
	val := reflect.New(t.Elem()).Elem()
	entry := reader{buf: b}
	for !entry.done() {
		num, wt, err := entry.key()
		if err != nil {
			return err
		}
		switch num {
		case 1:
			err = decodeValue(&entry, wt, key, depth+1)
		case 2:
			err = decodeValue(&entry, wt, val, depth+1)
		default:
			err = entry.skip(wt)
		}
		if err != nil {
			return err
		}
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(t))
	}
	v.SetMapIndex(key, val)
	return nil
}

// lengthDelimited reads a bytes value, after checking that the field's wire
// type is the one that carries it.
func lengthDelimited(r *reader, wt wireType) ([]byte, error) {
	if wt != wireBytes {
		return nil, fmt.Errorf("wire type %d where a length-delimited value belongs", wt)
	}
	return r.bytes()
}

// scalarWireType is the wire type a scalar Go type travels in.
func scalarWireType(t reflect.Type) wireType {
	switch t.Kind() {
	case reflect.Float32:
		return wireFixed32
	case reflect.Float64:
		return wireFixed64
	case reflect.String:
		return wireBytes
	}
	return wireVarint
}

// isBytes reports whether t is a byte slice (a bytes field, not a repeated one).
func isBytes(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8
}

// isPackable reports whether a repeated field of t may be packed: numbers
// and bools may, strings and messages may not.
func isPackable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint32,
		reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// errUnsupported marks a Go type the codec cannot map; it is a bug in a type
// definition, not in the body.
var errUnsupported = errors.New("unsupported Go type")
