package protobuf

// This file holds the types whose protobuf message is not simply their Go
// struct: timestamps, quantities, int-or-strings, and embedded raw JSON.
// Each has a small message of its own upstream, described here by a Go
// struct with tags so the ordinary codec can read and write it.

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"kplane/pkg/api"
)

// The Go types with messages of their own.
var (
	timeType        = reflect.TypeFor[api.Time]()
	microTimeType   = reflect.TypeFor[api.MicroTime]()
	quantityType    = reflect.TypeFor[api.Quantity]()
	intOrStringType = reflect.TypeFor[api.IntOrString]()
	rawJSONType     = reflect.TypeFor[json.RawMessage]()
)

// timestamp is the message behind metav1.Time and metav1.MicroTime, laid
// out like google.protobuf.Timestamp: seconds since the Unix epoch and a
// non-negative nanosecond remainder. An empty message is the zero time.
type timestamp struct {
	Seconds int64 `protobuf:"varint,1,opt,name=seconds"`
	Nanos   int32 `protobuf:"varint,2,opt,name=nanos"`
}

// quantityMessage is resource.Quantity on the wire: its canonical string.
type quantityMessage struct {
	String string `protobuf:"bytes,1,opt,name=string"`
}

// intOrStringMessage is intstr.IntOrString on the wire: all three members,
// Type saying which one counts.
type intOrStringMessage struct {
	Type   int64  `protobuf:"varint,1,opt,name=type"`
	IntVal int32  `protobuf:"varint,2,opt,name=intVal"`
	StrVal string `protobuf:"bytes,3,opt,name=strVal"`
}

// rawExtension is runtime.RawExtension (and metav1.FieldsV1) on the wire:
// bytes that hold an embedded document, JSON for every field kplane has.
type rawExtension struct {
	Raw []byte `protobuf:"bytes,1,opt,name=raw"`
}

// The range of seconds a timestamp may hold: 0001-01-01T00:00:00Z through
// 9999-12-31T23:59:59Z, the years RFC 3339 (and so the JSON kplane stores)
// can write.
const (
	minTimestampSeconds = -62135596800
	maxTimestampSeconds = 253402300799
)

// isWellKnown reports whether t is read and written by this file. An empty
// interface (such as ManagedFieldsEntry.FieldsV1) holds decoded JSON, so it
// is treated as a raw extension.
func isWellKnown(t reflect.Type) bool {
	switch t {
	case timeType, microTimeType, quantityType, intOrStringType, rawJSONType:
		return true
	}
	return t.Kind() == reflect.Interface && t.NumMethod() == 0
}

// decodeWellKnown reads the message b into v, whose type isWellKnown.
func decodeWellKnown(b []byte, v reflect.Value, depth int) error {
	switch v.Type() {
	case timeType:
		t, err := decodeTimestamp(b, time.Second, depth)
		v.Set(reflect.ValueOf(api.Time{Time: t}))
		return err
	case microTimeType:
		t, err := decodeTimestamp(b, time.Microsecond, depth)
		v.Set(reflect.ValueOf(api.MicroTime{Time: t}))
		return err
	case quantityType:
		return decodeQuantity(b, v, depth)
	case intOrStringType:
		return decodeIntOrString(b, v, depth)
	case rawJSONType:
		raw, err := decodeRawJSON(b, depth)
		if raw != nil {
			v.SetBytes(raw)
		}
		return err
	default: // an empty interface: whatever the JSON decodes to
		raw, err := decodeRawJSON(b, depth)
		if err != nil || raw == nil {
			return err
		}
		var x any
		if err := json.Unmarshal(raw, &x); err != nil {
			return err
		}
		if x != nil {
			v.Set(reflect.ValueOf(x))
		}
		return nil
	}
}

// decodeTimestamp reads a timestamp at the given precision: upstream's Time
// keeps whole seconds (its JSON form has no fraction) and MicroTime
// microseconds. Times come back in the local zone, as JSON decoding leaves them.
func decodeTimestamp(b []byte, precision time.Duration, depth int) (time.Time, error) {
	if len(b) == 0 {
		return time.Time{}, nil
	}
	var ts timestamp
	if err := decodeMessage(b, reflect.ValueOf(&ts).Elem(), depth+1); err != nil {
		return time.Time{}, err
	}
	if ts.Seconds < minTimestampSeconds || ts.Seconds > maxTimestampSeconds {
		return time.Time{}, fmt.Errorf("timestamp seconds %d out of range", ts.Seconds)
	}
	if ts.Nanos < 0 || ts.Nanos >= 1e9 {
		return time.Time{}, fmt.Errorf("timestamp nanos %d out of range", ts.Nanos)
	}
	t := time.Unix(ts.Seconds, int64(ts.Nanos)).Truncate(precision)
	if t.IsZero() {
		// 0001-01-01T00:00:00Z is Go's zero time, which JSON writes as null.
		return time.Time{}, nil
	}
	return t.Local(), nil
}

// decodeQuantity reads a quantity's string and parses it; an empty message
// is the zero quantity.
func decodeQuantity(b []byte, v reflect.Value, depth int) error {
	var m quantityMessage
	if err := decodeMessage(b, reflect.ValueOf(&m).Elem(), depth+1); err != nil {
		return err
	}
	if m.String == "" {
		v.Set(reflect.Zero(quantityType))
		return nil
	}
	q, err := api.ParseQuantity(m.String)
	if err != nil {
		return fmt.Errorf("quantity %q: %w", m.String, err)
	}
	v.Set(reflect.ValueOf(q))
	return nil
}

// decodeIntOrString reads an int-or-string.
func decodeIntOrString(b []byte, v reflect.Value, depth int) error {
	var m intOrStringMessage
	if err := decodeMessage(b, reflect.ValueOf(&m).Elem(), depth+1); err != nil {
		return err
	}
	switch api.IntOrStringType(m.Type) {
	case api.IntOrStringInt:
		v.Set(reflect.ValueOf(api.FromInt32(m.IntVal)))
	case api.IntOrStringString:
		v.Set(reflect.ValueOf(api.FromString(m.StrVal)))
	default:
		return fmt.Errorf("int-or-string type %d is neither 0 (int) nor 1 (string)", m.Type)
	}
	return nil
}

// errInvalidJSON is returned for a raw extension whose bytes are not JSON,
// which kplane could neither store nor serve.
var errInvalidJSON = errors.New("embedded raw document is not valid JSON")

// decodeRawJSON reads a raw extension and checks that it holds JSON; it
// returns nil for an empty one.
func decodeRawJSON(b []byte, depth int) (json.RawMessage, error) {
	var m rawExtension
	if err := decodeMessage(b, reflect.ValueOf(&m).Elem(), depth+1); err != nil {
		return nil, err
	}
	if len(m.Raw) == 0 {
		return nil, nil
	}
	if !json.Valid(m.Raw) {
		return nil, errInvalidJSON
	}
	return m.Raw, nil
}

// encodeWellKnown returns the message for v, whose type isWellKnown, and
// whether to write it at all (a nil interface is left out).
func encodeWellKnown(v reflect.Value) (msg []byte, write bool, err error) {
	var m any
	switch v.Type() {
	case timeType:
		t := v.Interface().(api.Time).Time
		if t.IsZero() {
			return []byte{}, true, nil
		}
		// Upstream writes whole seconds and a zero nanos field.
		m = timestamp{Seconds: t.Unix()}
	case microTimeType:
		t := v.Interface().(api.MicroTime).Time
		if t.IsZero() {
			return []byte{}, true, nil
		}
		m = timestamp{Seconds: t.Unix(), Nanos: int32(t.Nanosecond() / 1000 * 1000)}
	case quantityType:
		q := v.Interface().(api.Quantity)
		m = quantityMessage{String: q.String()}
	case intOrStringType:
		ios := v.Interface().(api.IntOrString)
		m = intOrStringMessage{Type: int64(ios.Type), IntVal: ios.IntVal, StrVal: ios.StrVal}
	case rawJSONType:
		m = rawExtension{Raw: v.Bytes()}
	default: // an empty interface
		if v.IsNil() {
			return nil, false, nil
		}
		raw, err := json.Marshal(v.Interface())
		if err != nil {
			return nil, false, err
		}
		m = rawExtension{Raw: raw}
	}
	var w writer
	if err := encodeMessage(&w, reflect.ValueOf(m)); err != nil {
		return nil, false, err
	}
	return w.buf, true, nil
}
