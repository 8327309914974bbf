package protobuf

import (
	"errors"
	"math"
	"testing"
)

func TestReaderVarint(t *testing.T) {
	for _, tc := range []struct {
		in      []byte
		want    uint64
		wantErr error
	}{
		{[]byte{0x00}, 0, nil},
		{[]byte{0x01}, 1, nil},
		{[]byte{0x7f}, 127, nil},
		{[]byte{0x80, 0x01}, 128, nil},
		{[]byte{0xac, 0x02}, 300, nil},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, math.MaxUint64, nil},
		{nil, 0, errTruncated},
		{[]byte{0x80}, 0, errTruncated},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0, errVarintTooLong},
	} {
		r := reader{buf: tc.in}
		got, err := r.varint()
		if !errors.Is(err, tc.wantErr) || (err == nil && got != tc.want) {
			t.Errorf("varint(% x) = %d, %v; want %d, %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestWriterVarintRoundTrip(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 300, 1 << 32, math.MaxUint64} {
		var w writer
		w.varint(v)
		r := reader{buf: w.buf}
		got, err := r.varint()
		if err != nil || got != v || !r.done() {
			t.Errorf("varint round trip of %d: got %d, %v (done %v)", v, got, err, r.done())
		}
	}
}

func TestReaderSkip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wt      wireType
		in      []byte
		wantPos int
		wantErr bool
	}{
		{"varint", wireVarint, []byte{0x96, 0x01, 0xff}, 2, false},
		{"fixed64", wireFixed64, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, 8, false},
		{"fixed32", wireFixed32, []byte{1, 2, 3, 4, 5}, 4, false},
		{"bytes", wireBytes, []byte{0x02, 'h', 'i', 'x'}, 3, false},
		{"short fixed64", wireFixed64, []byte{1, 2, 3}, 0, true},
		{"short fixed32", wireFixed32, []byte{1}, 0, true},
		{"short bytes", wireBytes, []byte{0x05, 'h'}, 0, true},
		{"start group", 3, []byte{0x00}, 0, true},
		{"end group", 4, []byte{0x00}, 0, true},
		{"undefined wire type", 7, []byte{0x00}, 0, true},
	} {
		r := reader{buf: tc.in}
		err := r.skip(tc.wt)
		if (err != nil) != tc.wantErr || (err == nil && r.pos != tc.wantPos) {
			t.Errorf("%s: skip = %v at %d; want error %v at %d", tc.name, err, r.pos, tc.wantErr, tc.wantPos)
		}
	}
}

func TestReaderKey(t *testing.T) {
	for _, tc := range []struct {
		in      []byte
		num     int
		wt      wireType
		wantErr bool
	}{
		{[]byte{0x0a}, 1, wireBytes, false},
		{[]byte{0x08}, 1, wireVarint, false},
		{[]byte{0x5a}, 11, wireBytes, false},
		{[]byte{0x88, 0x01}, 17, wireVarint, false},
		{[]byte{0xfa, 0xff, 0xff, 0xff, 0x0f}, maxFieldNumber, wireBytes, false},
		{[]byte{0x02}, 0, 0, true},                         // field number 0
		{[]byte{0x82, 0x80, 0x80, 0x80, 0x10}, 0, 0, true}, // field number 2^29, one too many
		{[]byte{0x80}, 0, 0, true},                         // truncated
	} {
		r := reader{buf: tc.in}
		num, wt, err := r.key()
		if (err != nil) != tc.wantErr || (err == nil && (num != tc.num || wt != tc.wt)) {
			t.Errorf("key(% x) = %d, %d, %v; want %d, %d, error %v", tc.in, num, wt, err, tc.num, tc.wt, tc.wantErr)
		}
	}
}
