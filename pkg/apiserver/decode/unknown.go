package decode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"kplane/pkg/api/schema"
)

// maxFieldErrors caps how many unknown or duplicate fields are reported,
// as upstream's strict decoder does, so a hostile body cannot make the
// error message (or a Warning header list) arbitrarily large.
const maxFieldErrors = 100

// UnknownFields lists the problems upstream's strict decoder would report
// for jsonBody decoded into type t, in document order:
//
//	unknown field "spec.template.spec.containers[0].imagee"
//	duplicate field "spec.replicas"
//
// Field names are matched case-sensitively, as in Kubernetes: "Replicas"
// is unknown even though encoding/json would accept it for "replicas".
// Values of types that encode themselves (api.Time, api.Quantity, `any`)
// are not looked into. A body that is not valid JSON is an error, with
// encoding/json's message.
func UnknownFields(jsonBody []byte, t reflect.Type) (unknown []string, err error) {
	w, err := walkFields(jsonBody, schema.Of(t))
	if err != nil {
		return nil, err
	}
	return w.problems, nil
}

// walkFields reads jsonBody alongside typ and returns the walker with the
// problems it found.
func walkFields(jsonBody []byte, typ *schema.Type) (*fieldWalker, error) {
	if !json.Valid(jsonBody) {
		return nil, syntaxError(jsonBody)
	}
	dec := json.NewDecoder(bytes.NewReader(jsonBody))
	dec.UseNumber()
	w := &fieldWalker{dec: dec, seen: map[string]bool{}}
	if err := w.value(typ, ""); err != nil {
		return nil, fmt.Errorf("find unknown fields: %w", err)
	}
	return w, nil
}

// syntaxError returns encoding/json's own error for an invalid body
// ("invalid character 'x' looking for beginning of object key string",
// "unexpected end of JSON input"), which is what clients are used to.
func syntaxError(jsonBody []byte) error {
	var discard json.RawMessage
	if err := json.Unmarshal(jsonBody, &discard); err != nil {
		return err
	}
	return fmt.Errorf("invalid JSON")
}

// fieldWalker reads a JSON document token by token alongside its schema.
// Reading tokens (rather than decoding into maps) is what lets it see
// duplicate keys, which a map would silently collapse.
type fieldWalker struct {
	dec        *json.Decoder
	problems   []string
	seen       map[string]bool // problems already reported, to report each once
	hasUnknown bool            // whether any member is unknown (not merely duplicated)
}

func (w *fieldWalker) report(problem, path string) {
	message := fmt.Sprintf("%s field %q", problem, path)
	if len(w.problems) >= maxFieldErrors || w.seen[message] {
		return
	}
	w.seen[message] = true
	w.problems = append(w.problems, message)
}

// value reads one JSON value that should have shape typ (nil: unknown).
func (w *fieldWalker) value(typ *schema.Type, path string) error {
	token, err := w.dec.Token()
	if err != nil {
		return err
	}
	delim, isDelim := token.(json.Delim)
	if !isDelim {
		return nil // a scalar: nothing inside to check
	}
	switch {
	case delim == '{' && typ != nil && (typ.Kind == schema.Object || typ.Kind == schema.Map):
		return w.object(typ, path)
	case delim == '[' && typ != nil && typ.Kind == schema.List:
		for i := 0; w.dec.More(); i++ {
			if err := w.value(typ.Elem, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		_, err := w.dec.Token() // ']'
		return err
	default:
		// A Leaf, or a shape that does not match the type: decoding proper
		// reports the type mismatch, here there is nothing to look into.
		return w.skipRest()
	}
}

// object reads the members of an object (the '{' is consumed) that is an
// Object or a Map of typ.
func (w *fieldWalker) object(typ *schema.Type, path string) error {
	keys := map[string]bool{}
	for w.dec.More() {
		token, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := token.(string)
		var fieldPath string
		var fieldType *schema.Type
		if typ.Kind == schema.Map {
			fieldPath = path + "[" + key + "]"
			if path == "" {
				fieldPath = key
			}
			fieldType = typ.Elem
		} else {
			fieldPath = key
			if path != "" {
				fieldPath = path + "." + key
			}
			field := typ.Field(key)
			if field == nil {
				w.hasUnknown = true
				w.report("unknown", fieldPath)
				if err := w.skipValue(); err != nil {
					return err
				}
				continue
			}
			fieldType = field.Type
		}
		if keys[key] {
			w.report("duplicate", fieldPath)
		}
		keys[key] = true
		if err := w.value(fieldType, fieldPath); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // '}'
	return err
}

// skipValue reads and discards one whole value.
func (w *fieldWalker) skipValue() error {
	token, err := w.dec.Token()
	if err != nil {
		return err
	}
	if _, isDelim := token.(json.Delim); isDelim {
		return w.skipRest()
	}
	return nil
}

// skipRest discards the rest of an object or array whose opening delimiter
// was just read. It counts depth instead of recursing, so a deeply nested
// unknown value costs no stack.
func (w *fieldWalker) skipRest() error {
	for depth := 1; depth > 0; {
		token, err := w.dec.Token()
		if err != nil {
			return err
		}
		if delim, ok := token.(json.Delim); ok {
			if delim == '{' || delim == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}
