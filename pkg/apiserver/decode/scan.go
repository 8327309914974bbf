package decode

import (
	"bytes"
	"encoding/json"
	"slices"

	"kplane/pkg/api/schema"
)

// This file is Into's fast path. Nearly every body a client sends has no
// unknown or duplicate fields, and for those the token-by-token walk in
// unknown.go is wasted work: json.Decoder.Token allocates for every token,
// which made the walk cost about twice as much as the decoding itself.
//
// knownFieldsOnly answers a single yes/no question (is there anything to
// report?) in one pass over the raw bytes, without allocating. When the
// answer is no, Into only has to call json.Unmarshal. For anything else
// (an unknown, duplicate or wrongly cased key, or a syntax error) Into takes
// the slow path, which works out what exactly is wrong and words the
// messages. So the scanner could afford to be cautious (answer "look
// closer" for anything unusual) but must never be optimistic. On valid JSON
// it is in fact exact: FuzzInto checks that it agrees with the slow path.
//
// The scanner does not validate JSON. It does not have to: json.Unmarshal
// checks the whole body before it decodes anything, and reports the same
// syntax error the slow path would.

// maxNesting is encoding/json's limit on how deeply values may nest. A body
// nested deeper is invalid, so the scanner gives up rather than recurse
// further.
const maxNesting = 10000

// knownFieldsOnly reports whether body, read with the shape typ, has only
// object members typ knows, under their exact (case-sensitive) JSON names,
// and no member twice in the same object. False means "look closer": the
// body has an unknown or duplicate field, or is not valid JSON, or has
// something the scanner does not bother to understand.
func knownFieldsOnly(body []byte, typ *schema.Type) bool {
	s := fieldScanner{data: body}
	if !s.value(typ, 0) {
		return false
	}
	s.skipSpace()
	return s.pos == len(s.data)
}

// fieldScanner reads a JSON body byte by byte alongside its schema. Every
// method returns false to abandon the scan (see knownFieldsOnly).
type fieldScanner struct {
	data []byte
	pos  int // the next byte to read
}

// value reads one value that should have shape typ (nil: a member the
// schema does not describe).
func (s *fieldScanner) value(typ *schema.Type, depth int) bool {
	if depth > maxNesting {
		return false
	}
	kind := schema.Leaf
	if typ != nil {
		kind = typ.Kind
	}
	switch s.next() {
	case '{':
		if kind == schema.Object {
			return s.object(typ, depth)
		}
		if kind == schema.Map {
			return s.mapObject(typ, depth)
		}
	case '[':
		if kind == schema.List {
			return s.list(typ.Elem, depth)
		}
	}
	// A scalar, a Leaf (api.Time, api.Quantity, `any`, ...) or a value whose
	// shape does not match its type, which json.Unmarshal will report:
	// there is nothing inside to check.
	return s.skipValue()
}

// object reads a JSON object that is the Object typ: every key must be one
// of its fields, and appear once.
func (s *fieldScanner) object(typ *schema.Type, depth int) bool {
	// One bit per field, set when the field appears. The buffer fits
	// structs of up to 128 fields without allocating.
	var seenBuf [2]uint64
	seen := append(seenBuf[:0], make([]uint64, (len(typ.Fields)+63)/64)...)
	return s.members(depth, func(key []byte) (*schema.Type, bool) {
		i := fieldIndex(typ, key)
		if i < 0 {
			return nil, false // unknown, or known only in another case
		}
		word, bit := i/64, uint64(1)<<(i%64)
		if seen[word]&bit != 0 {
			return nil, false // duplicate
		}
		seen[word] |= bit
		return typ.Fields[i].Type, true
	})
}

// mapObject reads a JSON object that is the Map typ. Its keys are data
// (label names, ConfigMap keys), so any key will do, but only once.
func (s *fieldScanner) mapObject(typ *schema.Type, depth int) bool {
	var keysBuf [16][]byte
	keys := keysBuf[:0]
	return s.members(depth, func(key []byte) (*schema.Type, bool) {
		keys = append(keys, key)
		return typ.Elem, true
	}) && !hasDuplicates(keys)
}

// members reads the members of the object that starts at s.pos. For each
// it calls member with the key, which returns the shape of the value (or
// false to abandon the scan).
func (s *fieldScanner) members(depth int, member func(key []byte) (*schema.Type, bool)) bool {
	s.pos++ // '{'
	if s.next() == '}' {
		s.pos++
		return true
	}
	for {
		key, ok := s.key()
		if !ok {
			return false
		}
		valueType, ok := member(key)
		if !ok || s.next() != ':' {
			return false
		}
		s.pos++
		if !s.value(valueType, depth+1) {
			return false
		}
		switch s.next() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return true
		default:
			return false
		}
	}
}

// list reads an array whose items have shape elem.
func (s *fieldScanner) list(elem *schema.Type, depth int) bool {
	s.pos++ // '['
	if s.next() == ']' {
		s.pos++
		return true
	}
	for {
		if !s.value(elem, depth+1) {
			return false
		}
		switch s.next() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return true
		default:
			return false
		}
	}
}

// key reads an object key and returns it decoded. Keys are nearly always
// plain ASCII and are then returned as a slice of the body, without
// copying.
func (s *fieldScanner) key() ([]byte, bool) {
	if s.next() != '"' {
		return nil, false
	}
	start := s.pos + 1
	for i := start; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.pos = i + 1
			return s.data[start:i], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return s.unusualKey()
		}
	}
	return nil, false
}

// unusualKey reads a key that has escapes (`"met\u0061data"` is the key
// "metadata") or non-ASCII bytes. encoding/json decodes it, so that it means
// exactly what it means to json.Unmarshal, including the replacement of
// invalid UTF-8 and lone surrogates by U+FFFD (two different byte strings
// can thus be the same key).
func (s *fieldScanner) unusualKey() ([]byte, bool) {
	start := s.pos
	if !s.skipString() {
		return nil, false
	}
	var key string
	if err := json.Unmarshal(s.data[start:s.pos], &key); err != nil {
		return nil, false
	}
	return []byte(key), true
}

// fieldIndex returns the position in typ.Fields of the field named key,
// or -1. A linear search is quick at the size of API structs, and unlike a
// map lookup it needs no string made from key.
func fieldIndex(typ *schema.Type, key []byte) int {
	for i, field := range typ.Fields {
		if field.Name == string(key) {
			return i
		}
	}
	return -1
}

// hasDuplicates reports whether keys has a key twice. It sorts keys.
func hasDuplicates(keys [][]byte) bool {
	if len(keys) < 2 {
		return false
	}
	slices.SortFunc(keys, bytes.Compare)
	for i := 1; i < len(keys); i++ {
		if bytes.Equal(keys[i-1], keys[i]) {
			return true
		}
	}
	return false
}

// skipValue steps over one value without looking inside it.
func (s *fieldScanner) skipValue() bool {
	switch s.next() {
	case '"':
		return s.skipString()
	case '{', '[':
		return s.skipNested()
	default:
		// A number, true, false or null: it runs up to the next delimiter.
		start := s.pos
		for s.pos < len(s.data) && !isDelimiter(s.data[s.pos]) {
			s.pos++
		}
		return s.pos > start
	}
}

// skipNested steps over an object or array. It counts brackets instead of
// recursing, so a deeply nested value costs no stack. (It does not check
// that they match; json.Unmarshal does.)
func (s *fieldScanner) skipNested() bool {
	depth := 0
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '"':
			if !s.skipString() {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.pos++
				return true
			}
		}
		s.pos++
	}
	return false
}

// skipString steps over the string that starts at s.pos. It searches for
// the closing quote and for backslashes with bytes.IndexByte, which is much
// faster than a byte loop on long values such as a ConfigMap's files.
func (s *fieldScanner) skipString() bool {
	i := s.pos + 1
	for {
		quote := bytes.IndexByte(s.data[i:], '"')
		if quote < 0 {
			return false
		}
		quote += i
		// A backslash escapes the byte after it, which may be this quote.
		for {
			backslash := bytes.IndexByte(s.data[i:quote], '\\')
			if backslash < 0 {
				s.pos = quote + 1
				return true
			}
			i += backslash + 2
			if i > quote {
				break // the quote was escaped: look for the next one
			}
		}
	}
}

// next skips whitespace and returns the byte at s.pos, or 0 at the end.
func (s *fieldScanner) next() byte {
	s.skipSpace()
	if s.pos == len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

// skipSpace skips the whitespace JSON allows between tokens.
func (s *fieldScanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// isDelimiter reports whether c ends a number or literal.
func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ':', '"', '{', '[', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
