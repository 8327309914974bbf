package structural

import "testing"

// specSchema wraps properties of spec into a root schema.
func specSchema(specProperties string) string {
	return `{"type":"object","properties":{"spec":{"type":"object","properties":` + specProperties + `}}}`
}

func TestValidateValueChecks(t *testing.T) {
	cases := []struct {
		name       string
		properties string // of spec
		spec       string
		want       []string
	}{
		{"type integer refuses a string", `{"replicas":{"type":"integer"}}`, `{"replicas":"3"}`,
			[]string{`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`}},
		{"type integer accepts an integer", `{"replicas":{"type":"integer"}}`, `{"replicas":3}`, nil},
		{"type integer refuses a fraction", `{"replicas":{"type":"integer"}}`, `{"replicas":1.5}`,
			[]string{`spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"`}},
		{"type number accepts an integer", `{"ratio":{"type":"number"}}`, `{"ratio":2}`, nil},
		{"type boolean refuses an object", `{"on":{"type":"boolean"}}`, `{"on":{}}`,
			[]string{`spec.on: Invalid value: "object": spec.on in body must be of type boolean: "object"`}},
		{"type array refuses a string", `{"list":{"type":"array","items":{"type":"string"}}}`, `{"list":"a"}`,
			[]string{`spec.list: Invalid value: "string": spec.list in body must be of type array: "string"`}},
		{"null refused unless nullable", `{"x":{"type":"string"}}`, `{"x":null}`,
			[]string{`spec.x: Invalid value: "null": spec.x in body must be of type string: "null"`}},
		{"nullable accepts null", `{"x":{"type":"string","nullable":true}}`, `{"x":null}`, nil},
		{"enum", `{"color":{"type":"string","enum":["red","blue"]}}`, `{"color":"pink"}`,
			[]string{`spec.color: Unsupported value: "pink": supported values: "red", "blue"`}},
		{"enum of numbers prints them as JSON", `{"n":{"type":"integer","enum":[1,2]}}`, `{"n":3}`,
			[]string{`spec.n: Unsupported value: 3: supported values: "1", "2"`}},
		{"enum matches numbers by value", `{"n":{"type":"number","enum":[1.0,2.5]}}`, `{"n":1}`, nil},
		{"pattern", `{"name":{"type":"string","pattern":"^[a-z]+$"}}`, `{"name":"x y"}`,
			[]string{`spec.name: Invalid value: "x y": spec.name in body should match '^[a-z]+$'`}},
		{"maxLength counts characters", `{"name":{"type":"string","maxLength":3}}`, `{"name":"äöü"}`, nil},
		{"maxLength", `{"name":{"type":"string","maxLength":3}}`, `{"name":"abcd"}`,
			[]string{`spec.name: Too long: may not be longer than 3`}},
		{"minLength", `{"name":{"type":"string","minLength":2}}`, `{"name":"a"}`,
			[]string{`spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long`}},
		{"only the first string check fails", `{"name":{"type":"string","minLength":2,"pattern":"^[0-9]+$"}}`, `{"name":"a"}`,
			[]string{`spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long`}},
		{"minimum", `{"replicas":{"type":"integer","minimum":0}}`, `{"replicas":-1}`,
			[]string{`spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0`}},
		{"exclusiveMinimum", `{"replicas":{"type":"integer","minimum":0,"exclusiveMinimum":true}}`, `{"replicas":0}`,
			[]string{`spec.replicas: Invalid value: 0: spec.replicas in body should be greater than 0`}},
		{"maximum of a number", `{"ratio":{"type":"number","maximum":1.5}}`, `{"ratio":2.5}`,
			[]string{`spec.ratio: Invalid value: 2.5: spec.ratio in body should be less than or equal to 1.5`}},
		{"exclusiveMaximum", `{"ratio":{"type":"number","maximum":1,"exclusiveMaximum":true}}`, `{"ratio":1}`,
			[]string{`spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1`}},
		{"multipleOf an integer", `{"n":{"type":"integer","multipleOf":5}}`, `{"n":7}`,
			[]string{`spec.n: Invalid value: 7: spec.n in body should be a multiple of 5`}},
		{"multipleOf tolerates float rounding", `{"n":{"type":"number","multipleOf":0.1}}`, `{"n":0.3}`, nil},
		{"multipleOf a fraction", `{"n":{"type":"number","multipleOf":0.5}}`, `{"n":0.7}`,
			[]string{`spec.n: Invalid value: 0.7: spec.n in body should be a multiple of 0.5`}},
		{"maxItems", `{"list":{"type":"array","maxItems":2,"items":{"type":"string"}}}`, `{"list":["a","b","c"]}`,
			[]string{`spec.list: Too many: 3: must have at most 2 items`}},
		{"minItems", `{"list":{"type":"array","minItems":1,"items":{"type":"string"}}}`, `{"list":[]}`,
			[]string{`spec.list: Invalid value: 0: spec.list in body should have at least 1 items`}},
		{"uniqueItems", `{"list":{"type":"array","uniqueItems":true,"items":{"type":"integer"}}}`, `{"list":[1,2,1]}`,
			[]string{`spec.list: Invalid value: "": spec.list in body shouldn't contain duplicates`}},
		{"maxProperties", `{"m":{"type":"object","maxProperties":1,"additionalProperties":{"type":"string"}}}`, `{"m":{"a":"1","b":"2"}}`,
			[]string{`spec.m: Too many: 2: must have at most 1 items`}},
		{"minProperties stops the object's checks", `{"m":{"type":"object","minProperties":2,"additionalProperties":{"type":"string"}}}`, `{"m":{"a":1}}`,
			[]string{`spec.m: Invalid value: 1: spec.m in body should have at least 2 properties`}},
		{"map values", `{"labels":{"type":"object","additionalProperties":{"type":"string"}}}`, `{"labels":{"a":"x","b":2}}`,
			[]string{`spec.labels.b: Invalid value: "integer": spec.labels.b in body must be of type string: "integer"`}},
		{"an absent optional field is fine", `{"size":{"type":"string"}}`, `{}`, nil},
		{"int-or-string accepts both", `{"port":{"x-kubernetes-int-or-string":true}}`, `{"port":"http"}`, nil},
		{"int-or-string refuses a boolean", `{"port":{"x-kubernetes-int-or-string":true}}`, `{"port":true}`,
			[]string{`spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"`}},
		{"items of an array, with their index", `{"items":{"type":"array","items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}}}`,
			`{"items":[{"name":"a"},{}]}`, []string{`spec.items[1].name: Required value`}},
		{"preserve-unknown-fields accepts anything", `{"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}`,
			`{"free":{"a":[1,{"b":null}]}}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSchema(t, specSchema(tc.properties))
			assertLines(t, Validate(s, mustObject(t, `{"spec":`+tc.spec+`}`)), tc.want)
		})
	}
}

func TestValidateReportsEveryError(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"spec":{"type":"object","required":["size"],"properties":{
		"color":{"type":"string","enum":["red","blue"]},
		"name":{"type":"string","pattern":"^[a-z]+$"},
		"replicas":{"type":"integer"},
		"size":{"type":"string"}}}}}`)
	obj := mustObject(t, `{"apiVersion":"example.com/v1","kind":"Foo","metadata":{"name":"x"},
		"spec":{"replicas":"string","color":"pink","name":"x y"}}`)
	assertLines(t, Validate(s, obj), []string{
		`spec.color: Unsupported value: "pink": supported values: "red", "blue"`,
		`spec.name: Invalid value: "x y": spec.name in body should match '^[a-z]+$'`,
		`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`,
		`spec.size: Required value`,
	})
}

func TestValidateRootRequired(t *testing.T) {
	s := mustSchema(t, `{"type":"object","required":["spec"],"properties":{"spec":{"type":"object"}}}`)
	assertLines(t, Validate(s, mustObject(t, `{"kind":"Foo"}`)), []string{`spec: Required value`})
}

func TestValidateIntegralFloatIsAnInteger(t *testing.T) {
	// A JSON decoder that keeps every number as float64 gives 3.0 for 3;
	// kube-openapi accepts it as an integer.
	s := mustSchema(t, specSchema(`{"replicas":{"type":"integer","minimum":1}}`))
	assertLines(t, Validate(s, map[string]any{"spec": map[string]any{"replicas": 3.0}}), nil)
}

func TestValidateJunctors(t *testing.T) {
	cases := []struct {
		name, properties, spec string
		want                   []string
	}{
		{"anyOf passes when one passes",
			`{"v":{"type":"integer","anyOf":[{"minimum":10},{"maximum":0}]}}`, `{"v":-1}`, nil},
		{"anyOf fails with the best alternative's errors",
			`{"v":{"type":"integer","anyOf":[{"minimum":10},{"maximum":0}]}}`, `{"v":5}`,
			[]string{
				`<nil>: Invalid value: "": "spec.v" must validate at least one schema (anyOf)`,
				`spec.v: Invalid value: 5: spec.v in body should be greater than or equal to 10`,
			}},
		{"allOf reports each failing part",
			`{"v":{"type":"string","allOf":[{"minLength":2},{"pattern":"^a"}]}}`, `{"v":"b"}`,
			[]string{
				`spec.v: Invalid value: "b": spec.v in body should be at least 2 chars long`,
				`spec.v: Invalid value: "b": spec.v in body should match '^a'`,
				`<nil>: Invalid value: "": "spec.v" must validate all the schemas (allOf). None validated`,
			}},
		{"oneOf with two valid alternatives",
			`{"v":{"type":"integer","oneOf":[{"minimum":0},{"maximum":10}]}}`, `{"v":5}`,
			[]string{`<nil>: Invalid value: "": "spec.v" must validate one and only one schema (oneOf). Found 2 valid alternatives`}},
		{"oneOf with exactly one valid alternative",
			`{"v":{"type":"integer","oneOf":[{"minimum":0},{"maximum":-10}]}}`, `{"v":5}`, nil},
		{"not",
			`{"v":{"type":"string","not":{"enum":["admin"]}}}`, `{"v":"admin"}`,
			[]string{`<nil>: Invalid value: "": "spec.v" must not validate the schema (not)`}},
		{"int-or-string spelled as anyOf",
			`{"v":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}}`, `{"v":"80%"}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSchema(t, specSchema(tc.properties))
			assertLines(t, Validate(s, mustObject(t, `{"spec":`+tc.spec+`}`)), tc.want)
		})
	}
}

func TestValidateFormats(t *testing.T) {
	cases := []struct {
		format, good, bad string
	}{
		{"uuid", "123e4567-e89b-12d3-a456-426614174000", "abc"},
		{"date", "2024-02-29", "2023-02-29"},
		{"date-time", "2024-01-02T03:04:05Z", "2024-01-02 03:04:05"},
		{"ipv4", "10.0.0.1", "::1"},
		{"ipv6", "fe80::1", "10.0.0.1"},
		{"cidr", "10.0.0.0/8", "10.0.0.0"},
		{"mac", "00:1a:2b:3c:4d:5e", "00:1a"},
		{"hostname", "api.example.com", "-bad-.example"},
		{"email", "a@example.com", "not-an-email"},
		{"uri", "https://example.com/x", "no scheme"},
		{"duration", "1h30m", "soon"},
		{"byte", "aGVsbG8=", "not base64!"},
		{"quantity", "100Mi", "lots"},
		{"isbn10", "0321751043", "0321751044"},
		{"hexcolor", "#fff", "#ggg"},
	}
	for _, tc := range cases {
		t.Run(tc.format, func(t *testing.T) {
			s := mustSchema(t, specSchema(`{"v":{"type":"string","format":"`+tc.format+`"}}`))
			assertLines(t, Validate(s, map[string]any{"spec": map[string]any{"v": tc.good}}), nil)
			assertLines(t, Validate(s, map[string]any{"spec": map[string]any{"v": tc.bad}}), []string{
				`spec.v: Invalid value: "` + tc.bad + `": spec.v in body must be of type ` + tc.format + `: "` + tc.bad + `"`,
			})
		})
	}
	t.Run("unknown formats are ignored", func(t *testing.T) {
		s := mustSchema(t, specSchema(`{"v":{"type":"string","format":"no-such-format"}}`))
		assertLines(t, Validate(s, map[string]any{"spec": map[string]any{"v": "anything"}}), nil)
	})
	t.Run("int32 on an integer is only a type", func(t *testing.T) {
		s := mustSchema(t, specSchema(`{"v":{"type":"integer","format":"int32"}}`))
		assertLines(t, Validate(s, mustObject(t, `{"spec":{"v":5}}`)), nil)
	})
}

func TestValidateListTypes(t *testing.T) {
	s := mustSchema(t, specSchema(`{
		"tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
		"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
			"items":{"type":"object","properties":{"name":{"type":"string"},"port":{"type":"integer"}}}},
		"routes":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["host","path"],
			"items":{"type":"object","properties":{"host":{"type":"string"},"path":{"type":"string"}}}}}`))
	cases := []struct {
		name, spec string
		want       []string
	}{
		{"unique items pass", `{"tags":["a","b"],"ports":[{"name":"http"},{"name":"https"}]}`, nil},
		{"a set reports each duplicate once", `{"tags":["a","b","a","a","b"]}`,
			[]string{`spec.tags[2]: Duplicate value: "a"`, `spec.tags[4]: Duplicate value: "b"`}},
		{"a map list compares its key", `{"ports":[{"name":"http","port":80},{"name":"http","port":8080}]}`,
			[]string{`spec.ports[1]: Duplicate value: {"name":"http"}`}},
		{"an absent key is a value of its own", `{"ports":[{"port":1},{"port":2}]}`,
			[]string{`spec.ports[1]: Duplicate value: {}`}},
		{"several keys", `{"routes":[{"host":"a","path":"/"},{"host":"a","path":"/x"},{"host":"a","path":"/"}]}`,
			[]string{`spec.routes[2]: Duplicate value: {"host":"a","path":"/"}`}},
		{"items of a map list must be objects", `{"ports":["http"]}`, []string{
			`spec.ports[0]: Invalid value: "string": spec.ports[0] in body must be of type object: "string"`,
			`spec.ports[0]: Invalid value: "http": must be an object for an array of list-type map`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assertLines(t, Validate(s, mustObject(t, `{"spec":`+tc.spec+`}`)), tc.want)
		})
	}
}

func TestValidateEmbeddedResource(t *testing.T) {
	s := mustSchema(t, specSchema(`{"template":{"type":"object","x-kubernetes-embedded-resource":true,
		"x-kubernetes-preserve-unknown-fields":true}}`))
	cases := []struct {
		name, template string
		want           []string
	}{
		{"a whole object passes", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"x"}}}`, nil},
		{"the name may be left out", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"app":"x"}}}`, nil},
		{"apiVersion and kind are required", `{"metadata":{}}`,
			[]string{`spec.template.apiVersion: Required value`, `spec.template.kind: Required value`}},
		{"bad apiVersion and kind", `{"apiVersion":"a/b/c","kind":"bad kind"}`, []string{
			`spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
			`spec.template.kind: Invalid value: "bad kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
		}},
		{"metadata is ObjectMeta", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a/b","labels":{"-x":"y"}}}`, []string{
			`spec.template.metadata.name: Invalid value: "a/b": may not contain '/'`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Validate(s, mustObject(t, `{"spec":{"template":`+tc.template+`}}`))
			if tc.name == "metadata is ObjectMeta" {
				// ObjectMeta's own messages are kplane's validation
				// package's; check the name error and that labels are
				// checked too.
				if len(got) < 2 || got[0].Error() != tc.want[0] {
					t.Fatalf("got %q, want %q first and a label error", lines(got), tc.want)
				}
				return
			}
			assertLines(t, got, tc.want)
		})
	}
}
