package protobuf

// This file is the protobuf wire format itself, below any knowledge of
// Kubernetes types: a message is a sequence of fields, each a key (field
// number and wire type packed into one varint) followed by a value whose
// shape the wire type gives. See https://protobuf.dev/programming-guides/encoding/.

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// wireType says how a field's value is laid out after its key.
type wireType uint8

// The wire types. Groups (3 and 4) are a deprecated proto2 feature that no
// Kubernetes message uses; the reader refuses them.
const (
	wireVarint  wireType = 0 // int32, int64, uint*, bool, enum
	wireFixed64 wireType = 1 // fixed64, sfixed64, double
	wireBytes   wireType = 2 // string, bytes, embedded messages, packed repeated scalars
	wireFixed32 wireType = 5 // fixed32, sfixed32, float
)

// maxFieldNumber is the largest field number protobuf allows (2^29-1).
const maxFieldNumber = 1<<29 - 1

// Errors for malformed input. They are wrapped with the path of the field
// being read, so a client learns where its body went wrong.
var (
	errTruncated     = errors.New("unexpected end of data")
	errVarintTooLong = errors.New("varint overflows 64 bits")
	errBadFieldKey   = errors.New("invalid field number")
)

// reader walks the fields of one message. Every read is bounds-checked
// against buf, so no input can make it index out of range or allocate more
// than the input's own size.
type reader struct {
	buf []byte
	pos int
}

// done reports whether every byte of the message has been read.
func (r *reader) done() bool { return r.pos >= len(r.buf) }

// varint reads a base-128 varint: seven bits per byte, least significant
// group first, high bit set on every byte but the last.
func (r *reader) varint() (uint64, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, errVarintTooLong
		}
		if r.pos >= len(r.buf) {
			return 0, errTruncated
		}
		b := r.buf[r.pos]
		r.pos++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
}

// key reads a field key: the field number in the high bits, the wire type
// in the low three.
func (r *reader) key() (int, wireType, error) {
	k, err := r.varint()
	if err != nil {
		return 0, 0, err
	}
	num := k >> 3
	if num == 0 || num > maxFieldNumber {
		return 0, 0, fmt.Errorf("%w %d", errBadFieldKey, num)
	}
	return int(num), wireType(k & 7), nil
}

// bytes reads a length-delimited value and returns it without copying.
func (r *reader) bytes() ([]byte, error) {
	n, err := r.varint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(r.buf)-r.pos) {
		return nil, errTruncated
	}
	b := r.buf[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

// fixed32 reads four little-endian bytes.
func (r *reader) fixed32() (uint32, error) {
	if len(r.buf)-r.pos < 4 {
		return 0, errTruncated
	}
	v := binary.LittleEndian.Uint32(r.buf[r.pos:])
	r.pos += 4
	return v, nil
}

// fixed64 reads eight little-endian bytes.
func (r *reader) fixed64() (uint64, error) {
	if len(r.buf)-r.pos < 8 {
		return 0, errTruncated
	}
	v := binary.LittleEndian.Uint64(r.buf[r.pos:])
	r.pos += 8
	return v, nil
}

// skip passes over the value of a field the Go type does not know. Skipping
// unknown fields is what lets an older reader accept messages from a newer
// writer, the property protobuf is built around.
func (r *reader) skip(wt wireType) error {
	var err error
	switch wt {
	case wireVarint:
		_, err = r.varint()
	case wireFixed64:
		_, err = r.fixed64()
	case wireBytes:
		_, err = r.bytes()
	case wireFixed32:
		_, err = r.fixed32()
	default:
		err = fmt.Errorf("unsupported wire type %d", wt)
	}
	return err
}

// writer appends fields to a message.
type writer struct {
	buf []byte
}

// varint appends v as a base-128 varint.
func (w *writer) varint(v uint64) {
	w.buf = binary.AppendUvarint(w.buf, v)
}

// key appends a field key.
func (w *writer) key(num int, wt wireType) {
	w.varint(uint64(num)<<3 | uint64(wt))
}

// bytesField appends a length-delimited field.
func (w *writer) bytesField(num int, b []byte) {
	w.key(num, wireBytes)
	w.varint(uint64(len(b)))
	w.buf = append(w.buf, b...)
}

// varintField appends a varint field.
func (w *writer) varintField(num int, v uint64) {
	w.key(num, wireVarint)
	w.varint(v)
}

// fixed32Field appends a four-byte field.
func (w *writer) fixed32Field(num int, v uint32) {
	w.key(num, wireFixed32)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, v)
}

// fixed64Field appends an eight-byte field.
func (w *writer) fixed64Field(num int, v uint64) {
	w.key(num, wireFixed64)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, v)
}
