package structural

import "testing"

// P is where the apiserver puts a version's schema.
const P = "spec.versions[0].schema.openAPIV3Schema"

func TestValidateCRDSchemaAcceptsAStructuralSchema(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{
		"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},
		"spec":{"type":"object","required":["image"],"properties":{
			"image":{"type":"string","description":"the image","pattern":"^[a-z]"},
			"replicas":{"type":"integer","format":"int32","minimum":0,"default":1},
			"port":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
			"labels":{"type":"object","additionalProperties":{"type":"string"}},
			"mode":{"type":"string","enum":["a","b"],"allOf":[{"pattern":"^a"}]},
			"tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
			"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
				"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"protocol":{"type":"string","default":"TCP"}}}},
			"template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
			"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
		"status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}`)
	assertLines(t, ValidateCRDSchema(P, s), nil)
}

func TestValidateCRDSchemaRefusals(t *testing.T) {
	cases := []struct {
		name, schema string
		want         []string
	}{
		{"no schema", ``, []string{P + `: Required value: schemas are required`}},
		{"no type at the root", `{"properties":{"spec":{"type":"object"}}}`,
			[]string{P + `.type: Required value: must not be empty at the root`}},
		{"the root is not an object", `{"type":"string"}`,
			[]string{P + `.type: Invalid value: "string": must be object at the root`}},
		{"nullable root", `{"type":"object","nullable":true}`,
			[]string{P + `.nullable: Forbidden: nullable cannot be true at the root`}},
		{"a field without a type", `{"type":"object","properties":{"spec":{"properties":{"a":{"type":"string"}}}}}`,
			[]string{P + `.properties[spec].type: Required value: must not be empty for specified object fields`}},
		{"array items without a type", `{"type":"object","properties":{"l":{"type":"array","items":{}}}}`,
			[]string{P + `.properties[l].items.type: Required value: must not be empty for specified array items`}},
		{"an array without items", `{"type":"object","properties":{"l":{"type":"array"}}}`,
			[]string{P + `.properties[l].items: Required value: must be specified`}},
		{"an unknown type", `{"type":"object","properties":{"a":{"type":"float"}}}`,
			[]string{P + `.properties[a].type: Unsupported value: "float": supported values: "array", "boolean", "integer", "number", "object", "string"`}},
		{"type null", `{"type":"object","properties":{"a":{"type":"null"}}}`, []string{
			P + `.properties[a].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
			P + `.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
		}},
		{"a type inside allOf", `{"type":"object","properties":{"a":{"type":"string","allOf":[{"type":"string","description":"x"}]}}}`, []string{
			P + `.properties[a].allOf[0].description: Forbidden: must be empty to be structural`,
			P + `.properties[a].allOf[0].type: Forbidden: must be empty to be structural`,
		}},
		{"a default inside anyOf", `{"type":"object","properties":{"a":{"type":"string","anyOf":[{"default":"x"},{"nullable":true}]}}}`, []string{
			P + `.properties[a].anyOf[0].default: Forbidden: must be undefined to be structural`,
			P + `.properties[a].anyOf[1].nullable: Forbidden: must be false to be structural`,
		}},
		{"int-or-string as the first part of an allOf is structural", `{"type":"object","properties":{"a":{"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"pattern":"^[0-9]+%?$"}]}}}`, nil},
		{"items inside a junctor", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},"allOf":[{"items":{"type":"string","maxLength":3}}]}}}`, []string{
			P + `.properties[l].allOf[0].items.type: Forbidden: must be empty to be structural`,
		}},
		{"items only a junctor specifies", `{"type":"object","properties":{"o":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"anyOf":[{"items":{"maxLength":3}}]}}}`, []string{
			P + `.properties[o].items: Required value: because it is defined in ` + P + `.properties[o].anyOf[0].items`,
		}},
		{"a field only a junctor specifies", `{"type":"object","properties":{"a":{"type":"object","oneOf":[{"properties":{"x":{"minLength":1}}}]}}}`, []string{
			P + `.properties[a].properties[x]: Required value: because it is defined in ` + P + `.properties[a].oneOf[0].properties[x]`,
		}},
		{"metadata in a nested context", `{"type":"object","not":{"properties":{"metadata":{}}},"properties":{"metadata":{"type":"object"}}}`, []string{
			P + `.not.properties[metadata]: Forbidden: must not be specified in a nested context`,
		}},
		{"properties and additionalProperties", `{"type":"object","properties":{"m":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"string"}}}}`,
			[]string{P + `.properties[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`}},
		{"additionalProperties at the root", `{"type":"object","additionalProperties":{"type":"string"}}`,
			[]string{P + `.additionalProperties: Forbidden: must not be used at the root`}},
		{"preserve-unknown-fields false", `{"type":"object","properties":{"a":{"type":"object","x-kubernetes-preserve-unknown-fields":false}}}`,
			[]string{P + `.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`}},
		{"int-or-string with preserve-unknown-fields", `{"type":"object","properties":{"a":{"x-kubernetes-int-or-string":true,"x-kubernetes-preserve-unknown-fields":true}}}`,
			[]string{P + `.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`}},
		{"int-or-string with other anyOf types", `{"type":"object","properties":{"a":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"boolean"}]}}}`, []string{
			P + `.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`,
			P + `.properties[a].anyOf[1].type: Forbidden: must be empty to be structural`,
		}},
		{"metadata restricting more than the name", `{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string"},"labels":{"type":"object"}}}}}`,
			[]string{P + `.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`}},
		{"a default in the root's metadata", `{"type":"object","properties":{"metadata":{"type":"object","default":{}}}}`,
			[]string{P + `.properties[metadata].default: Forbidden: must not be set in top-level metadata`}},
		{"an embedded resource that is not an object", `{"type":"object","properties":{"t":{"type":"string","x-kubernetes-embedded-resource":true}}}`, []string{
			P + `.properties[t].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
			P + `.properties[t].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
		}},
		{"uniqueItems", `{"type":"object","properties":{"l":{"type":"array","uniqueItems":true,"items":{"type":"string"}}}}`,
			[]string{P + `.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`}},
		{"$ref and patternProperties", `{"type":"object","properties":{"a":{"type":"object","$ref":"#/x","patternProperties":{"^x":{"type":"string"}}}}}`, []string{
			P + `.properties[a].patternProperties: Forbidden: patternProperties is not supported`,
			P + `.properties[a].$ref: Forbidden: $ref is not supported`,
		}},
		{"an invalid pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"(("}}}`,
			[]string{P + `.properties[a].pattern: Invalid value: "((": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): ` + "`((`"}},
		{"a list type on a non-array", `{"type":"object","properties":{"a":{"type":"string","x-kubernetes-list-type":"set"}}}`,
			[]string{P + `.properties[a].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`}},
		{"an unknown list type", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"bag"}}}`,
			[]string{P + `.properties[a].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`}},
		{"a map list without keys", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object"},"x-kubernetes-list-type":"map"}}}`,
			[]string{P + `.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`}},
		{"map keys that are not required", `{"type":"object","properties":{"a":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name","missing"],
			"items":{"type":"object","properties":{"name":{"type":"string"}}}}}}`, []string{
			P + `.properties[a].x-kubernetes-list-map-keys: Invalid value: ["name","missing"]: entries must all be names of item properties`,
			P + `.properties[a].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
		}},
		{"list map keys without a map list", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object"},"x-kubernetes-list-map-keys":["k"]}}}`,
			[]string{P + `.properties[a].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`}},
		{"set items that are granular objects", `{"type":"object","properties":{"a":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object"}}}}`,
			[]string{P + `.properties[a].items.x-kubernetes-map-type: Invalid value: must be atomic as item of a list with x-kubernetes-list-type=set`}},
		{"a default of the wrong type", `{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer","default":"one"}}}}}`,
			[]string{P + `.properties[spec].properties[replicas].default: Invalid value: "string":  in body must be of type integer: "string"`}},
		{"a default that fails a nested check", `{"type":"object","properties":{"spec":{"type":"object","default":{"replicas":-1},"properties":{"replicas":{"type":"integer","minimum":0}}}}}`,
			[]string{P + `.properties[spec].default.replicas: Invalid value: -1: replicas in body should be greater than or equal to 0`}},
		{"a default with unknown fields", `{"type":"object","properties":{"spec":{"type":"object","default":{"a":"x","b":1},"properties":{"a":{"type":"string"}}}}}`,
			[]string{P + `.properties[spec].default: Invalid value: {"a":"x","b":1}: must not have unknown fields`}},
		{"structural errors come before the others", `{"type":"object","properties":{"l":{"type":"array","uniqueItems":true}}}`, []string{
			P + `.properties[l].items: Required value: must be specified`,
			P + `.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
		}},
		{"validation rules need a rule and a one-line message", `{"type":"object","x-kubernetes-validations":[{"rule":" "},{"rule":"self.a\n== 1"},{"rule":"true","message":"two\nlines"}]}`, []string{
			P + `.x-kubernetes-validations[0].rule: Required value: rule is not specified`,
			P + `.x-kubernetes-validations[1].message: Required value: message must be specified if rule contains line breaks`,
			P + `.x-kubernetes-validations[2].message: Invalid value: "two\nlines": message must not contain line breaks`,
		}},
		{"an embedded default without apiVersion", `{"type":"object","properties":{"t":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"default":{"kind":"Pod"}}}}`,
			[]string{P + `.properties[t].default.apiVersion: Required value`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.schema == "" {
				assertLines(t, ValidateCRDSchema(P, nil), tc.want)
				return
			}
			assertLines(t, ValidateCRDSchema(P, mustSchema(t, tc.schema)), tc.want)
		})
	}
}

func TestValidateCRDSchemaChecksDefaultsOnlyWhenStructural(t *testing.T) {
	// Upstream validates defaults only once the schema is structural: a
	// non-structural schema has no single place a default would apply.
	s := mustSchema(t, `{"type":"object","properties":{"a":{"type":"integer","default":"x"},"b":{}}}`)
	assertLines(t, ValidateCRDSchema(P, s), []string{
		P + `.properties[b].type: Required value: must not be empty for specified object fields`,
	})
}
