package structural

import (
	"encoding/json"
	"testing"

	"kplane/pkg/api"
)

// FuzzSchemaAndObject feeds arbitrary schemas and objects through every
// entry point: bad input must give errors, never a panic. Run longer with
// go test -fuzz=FuzzSchemaAndObject ./pkg/apiextensions/structural/
func FuzzSchemaAndObject(f *testing.F) {
	seeds := []struct{ schema, object string }{
		{`{"type":"object","properties":{"spec":{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":1,"multipleOf":3,"default":3}}}}}`,
			`{"spec":{"a":"x","b":[1,2]}}`},
		{`{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","properties":{"k":{"type":"string","default":"d"}}}}}}`,
			`{"l":[{"k":"a"},{"k":"a"},null,3]}`},
		{`{"type":"object","properties":{"t":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"default":{"apiVersion":"v1","kind":"X"}}}}`,
			`{"t":{"metadata":"nope","kind":7}}`},
		{`{"type":"object","properties":{"v":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}],"allOf":[{"pattern":"(("}],"oneOf":[{"minimum":1},{"maxLength":2}],"not":{"enum":[1]}}}}`,
			`{"v":null}`},
		{`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"number","multipleOf":-1,"format":"double","default":null}}}}`,
			`{"m":{"a":1.5,"b":null,"c":{}}}`},
		{`{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"a":{"type":"string","format":"date-time","enum":["x",{"y":1}]}},"items":[{"type":"string"}]}`,
			`{"a":5,"z":[[[]]]}`},
	}
	for _, s := range seeds {
		f.Add([]byte(s.schema), []byte(s.object))
	}
	f.Fuzz(func(t *testing.T, schemaJSON, objectJSON []byte) {
		s := &api.JSONSchemaProps{}
		if err := json.Unmarshal(schemaJSON, s); err != nil {
			return
		}
		value, err := decodeJSON(objectJSON)
		if err != nil {
			return
		}
		obj, ok := value.(map[string]any)
		if !ok {
			return
		}
		_ = ValidateCRDSchema("spec.versions[0].schema.openAPIV3Schema", s)
		_ = Validate(s, obj)
		Prune(obj, s)
		Default(obj, s)
		_ = Validate(s, obj)
		for _, e := range Validate(s, obj) {
			_ = e.Error()
		}
	})
}
