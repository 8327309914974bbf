package apiserver

import (
	"bytes"
	"strconv"
)

// An object has two JSON forms in the apiserver: the value etcd holds,
// without metadata.resourceVersion (the revision of the write is that
// version, so it cannot be inside the write), and the form readers get —
// responses, LISTs and watch events — with it. They differ by that one
// field only, so the write path encodes an object once and derives the
// other form by cutting the field out (storageValueOf) or putting it in
// (readerJSONOf), instead of running encoding/json twice.

// storageValueOf is what etcd holds for a cached object whose JSON (made
// by newStoredObject at revision) is raw: the same bytes without the
// metadata's resourceVersion, which encodeForStorage leaves out. Cutting
// it out spares guaranteedUpdate a second encoding of every object it
// updates from the cache. The first "resourceVersion" key in raw is the
// metadata's: only fixed keys and string values come before it in
// ObjectMeta, and a quote inside a string value is escaped. ok is false
// when raw does not hold it as expected; the caller encodes then. A wrong
// cut could only make the value differ from what a new encoding would
// give, never match it falsely, so at worst an update that changes
// nothing would be written.
func storageValueOf(raw []byte, revision int64) (value []byte, ok bool) {
	field := `"resourceVersion":"` + strconv.FormatInt(revision, 10) + `"`
	at := bytes.Index(raw, []byte(field))
	if at < 0 {
		return nil, false
	}
	end := at + len(field)
	switch {
	case end < len(raw) && raw[end] == ',':
		end++ // a field follows: take its comma
	case at > 0 && raw[at-1] == ',':
		at-- // the last field: take the comma before it
	}
	value = make([]byte, 0, len(raw)-(end-at))
	value = append(append(value, raw[:at]...), raw[end:]...)
	return value, true
}

// readerJSONOf is the JSON readers get for an object just written at
// revision whose stored value (made by encodeForStorage) is value: the same
// bytes with "resourceVersion":"<revision>" right after the metadata's uid,
// where encoding/json puts it (ObjectMeta declares ResourceVersion right
// after UID). It spares every create and update a second encoding of the
// object. The first "uid" key in value is the metadata's: only kind,
// apiVersion, name, generateName and namespace come before it, and a quote
// inside a string value is escaped, so no value can hold the key. ok is
// false when uid is empty (the field would then follow another one) or
// holds a character encoding/json would escape, or when value does not hold
// it; the caller encodes then.
func readerJSONOf(value []byte, uid string, revision int64) (raw []byte, ok bool) {
	if uid == "" || !plainJSONString(uid) {
		return nil, false
	}
	uidField := `"uid":"` + uid + `"`
	at := bytes.Index(value, []byte(uidField))
	if at < 0 {
		return nil, false
	}
	end := at + len(uidField)
	const rvKey = `,"resourceVersion":"`
	raw = make([]byte, 0, len(value)+len(rvKey)+21)
	raw = append(raw, value[:end]...)
	raw = append(raw, rvKey...)
	raw = strconv.AppendInt(raw, revision, 10)
	raw = append(raw, '"')
	raw = append(raw, value[end:]...)
	return raw, true
}

// plainJSONString reports whether encoding/json writes s between its quotes
// as it is: letters, digits and a few punctuation marks, which a UUID (every
// uid the server generates) is made of.
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}
