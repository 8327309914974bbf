package structural

import "testing"

func TestDefault(t *testing.T) {
	cases := []struct {
		name, schema, obj, want string
	}{
		{"an absent field gets its default",
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer","default":1}}}}}`,
			`{"spec":{}}`, `{"spec":{"replicas":1}}`},
		{"a present field keeps its value",
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer","default":1}}}}}`,
			`{"spec":{"replicas":5}}`, `{"spec":{"replicas":5}}`},
		{"defaults apply only inside objects that exist",
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer","default":1}}}}}`,
			`{}`, `{}`},
		{"a defaulted object gets its properties' defaults",
			`{"type":"object","properties":{"spec":{"type":"object","default":{},"properties":{"replicas":{"type":"integer","default":1},"mode":{"type":"string","default":"fast"}}}}}`,
			`{}`, `{"spec":{"mode":"fast","replicas":1}}`},
		{"every item of an array of objects",
			`{"type":"object","properties":{"ports":{"type":"array","items":{"type":"object","properties":{"protocol":{"type":"string","default":"TCP"},"port":{"type":"integer"}}}}}}`,
			`{"ports":[{"port":80},{"port":53,"protocol":"UDP"}]}`,
			`{"ports":[{"port":80,"protocol":"TCP"},{"port":53,"protocol":"UDP"}]}`},
		{"every value of a map",
			`{"type":"object","properties":{"routes":{"type":"object","additionalProperties":{"type":"object","properties":{"weight":{"type":"integer","default":100}}}}}}`,
			`{"routes":{"a":{},"b":{"weight":5}}}`,
			`{"routes":{"a":{"weight":100},"b":{"weight":5}}}`},
		{"a null that is not nullable counts as absent",
			`{"type":"object","properties":{"mode":{"type":"string","default":"fast"}}}`,
			`{"mode":null}`, `{"mode":"fast"}`},
		{"a null that is not nullable and has no default is dropped",
			`{"type":"object","properties":{"mode":{"type":"string"}}}`,
			`{"mode":null}`, `{}`},
		{"a nullable null stays",
			`{"type":"object","properties":{"mode":{"type":"string","nullable":true,"default":"fast"}}}`,
			`{"mode":null}`, `{"mode":null}`},
		{"null list items and map values take the items' default",
			`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","default":"x"}},"m":{"type":"object","additionalProperties":{"type":"integer","default":7}}}}`,
			`{"l":["a",null],"m":{"k":null}}`, `{"l":["a","x"],"m":{"k":7}}`},
		{"a default is pruned by its schema",
			`{"type":"object","properties":{"spec":{"type":"object","default":{"replicas":2,"unknown":true},"properties":{"replicas":{"type":"integer"}}}}}`,
			`{}`, `{"spec":{"replicas":2}}`},
		{"an embedded resource's default keeps its type and object meta",
			`{"type":"object","properties":{"t":{"type":"object","x-kubernetes-embedded-resource":true,"default":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{},"junk":1},"properties":{"data":{"type":"object","additionalProperties":{"type":"string"}}}}}}`,
			`{}`, `{"t":{"apiVersion":"v1","data":{},"kind":"ConfigMap","metadata":{"name":"x"}}}`},
		{"below preserve-unknown-fields, known properties still default",
			`{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"mode":{"type":"string","default":"fast"}}}}}`,
			`{"spec":{"free":1}}`, `{"spec":{"free":1,"mode":"fast"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := mustObject(t, tc.obj)
			Default(obj, mustSchema(t, tc.schema))
			if got, want := asJSON(t, obj), asJSON(t, mustObject(t, tc.want)); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

func TestDefaultValuesAreCopies(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"spec":{"type":"object","default":{"tags":["a"]},"properties":{"tags":{"type":"array","items":{"type":"string"}}}}}}`)
	first := map[string]any{}
	Default(first, s)
	first["spec"].(map[string]any)["tags"].([]any)[0] = "changed"
	second := map[string]any{}
	Default(second, s)
	if got := asJSON(t, second); got != `{"spec":{"tags":["a"]}}` {
		t.Errorf("second object got %s: the first object's change leaked into the default", got)
	}
}
