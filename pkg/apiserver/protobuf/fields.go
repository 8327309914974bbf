package protobuf

// This file maps Go struct types to protobuf messages by their struct tags.
// kplane's API types carry upstream's tags, e.g.
//
//	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
//
// of which the decoder needs only the field number (1) and, for error
// messages, the name. How a value is laid out on the wire follows from the
// field's Go type (a test keeps the tag's first element in agreement).

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// field is one struct field that has a protobuf field number.
type field struct {
	num   int
	name  string // the protobuf name, used in error paths
	index int    // the Go field's index in its struct
}

// message is the protobuf view of a Go struct type.
type message struct {
	fields []field     // ordered by field number, the order encoders write
	byNum  map[int]int // field number → position in fields
}

// messages caches message tables by Go type; building one walks the tags,
// and a request body uses the same few types again and again.
var messages sync.Map // reflect.Type → *message

// messageOf returns the protobuf view of struct type t. Fields without a
// protobuf tag are not part of the message: embedded TypeMeta travels in the
// runtime.Unknown envelope instead, as upstream's does.
func messageOf(t reflect.Type) (*message, error) {
	if m, ok := messages.Load(t); ok {
		return m.(*message), nil
	}
	m := &message{byNum: map[int]int{}}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("protobuf")
		if !ok || !sf.IsExported() {
			continue
		}
		num, name, err := parseTag(tag)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t.Name(), sf.Name, err)
		}
		if name == "" {
			name = sf.Name
		}
		if slices.ContainsFunc(m.fields, func(f field) bool { return f.num == num }) {
			return nil, fmt.Errorf("%s.%s: field number %d used twice", t.Name(), sf.Name, num)
		}
		m.fields = append(m.fields, field{num: num, name: name, index: i})
	}
	slices.SortFunc(m.fields, func(a, b field) int { return a.num - b.num })
	for i, f := range m.fields {
		m.byNum[f.num] = i
	}
	actual, _ := messages.LoadOrStore(t, m)
	return actual.(*message), nil
}

// parseTag reads a tag such as "bytes,11,rep,name=labels": the wire type,
// the field number, the cardinality, then key=value options.
func parseTag(tag string) (num int, name string, err error) {
	parts := strings.Split(tag, ",")
	if len(parts) < 2 {
		return 0, "", fmt.Errorf("protobuf tag %q has no field number", tag)
	}
	num, err = strconv.Atoi(parts[1])
	if err != nil || num <= 0 || num > maxFieldNumber {
		return 0, "", fmt.Errorf("protobuf tag %q has an invalid field number", tag)
	}
	for _, p := range parts[2:] {
		if v, ok := strings.CutPrefix(p, "name="); ok {
			name = v
		}
	}
	return num, name, nil
}
