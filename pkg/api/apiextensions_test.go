package api

import (
	"encoding/json"
	"testing"
)

// The three "or" types of a schema read both of their JSON shapes and write
// back what they read.
func TestJSONSchemaPropsOrTypesRoundTrip(t *testing.T) {
	for _, in := range []string{
		`{"type":"array","items":{"type":"string"}}`,
		`{"type":"array","items":[{"type":"string"},{"type":"integer"}]}`,
		`{"type":"object","additionalProperties":false}`,
		`{"type":"object","additionalProperties":{"type":"integer"}}`,
		`{"dependencies":{"a":["b","c"],"d":{"required":["e"]}}}`,
	} {
		var s JSONSchemaProps
		if err := json.Unmarshal([]byte(in), &s); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != in {
			t.Errorf("round trip of %s gave %s", in, out)
		}
	}
	var s JSONSchemaProps
	if err := json.Unmarshal([]byte(`{"items":"x"}`), &s); err == nil {
		t.Error("items as a string was accepted")
	}
	var b JSONSchemaPropsOrBool
	if err := json.Unmarshal([]byte(`{"type":"string"}`), &b); err != nil || !b.Allows || b.Schema.Type != "string" {
		t.Errorf("a schema for additionalProperties: allows=%v schema=%+v err=%v", b.Allows, b.Schema, err)
	}
}
