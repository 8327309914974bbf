package structural

import (
	"strings"
	"testing"
)

func TestPrune(t *testing.T) {
	cases := []struct {
		name, schema, obj string
		wantObj           string
		wantPruned        []string
	}{
		{"unknown fields go, the root's type and object meta stay",
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}`,
			`{"apiVersion":"example.com/v1","kind":"Foo","metadata":{"name":"x","whatever":1},"spec":{"replicas":1,"replcas":3},"extra":true}`,
			`{"apiVersion":"example.com/v1","kind":"Foo","metadata":{"name":"x","whatever":1},"spec":{"replicas":1}}`,
			[]string{"extra", "spec.replcas"}},
		{"arrays of objects are pruned item by item",
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"ports":{"type":"array","items":{"type":"object","properties":{"port":{"type":"integer"}}}}}}}}`,
			`{"spec":{"ports":[{"port":80,"x":1},{"port":443},{"y":2}]}}`,
			`{"spec":{"ports":[{"port":80},{"port":443},{}]}}`,
			[]string{"spec.ports[0].x", "spec.ports[2].y"}},
		{"arrays of arrays",
			`{"type":"object","properties":{"m":{"type":"array","items":{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"}}}}}}}`,
			`{"m":[[{"a":"1","b":"2"}]]}`,
			`{"m":[[{"a":"1"}]]}`,
			[]string{"m[0][0].b"}},
		{"maps keep every key and prune each value",
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"routes":{"type":"object","additionalProperties":{"type":"object","properties":{"port":{"type":"integer"}}}}}}}}`,
			`{"spec":{"routes":{"a":{"port":1,"zzz":2},"b":{}}}}`,
			`{"spec":{"routes":{"a":{"port":1},"b":{}}}}`,
			[]string{"spec.routes.a.zzz"}},
		{"preserve-unknown-fields keeps unknown fields and prunes known ones",
			`{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"known":{"type":"object","properties":{"a":{"type":"string"}}}}}}}`,
			`{"spec":{"free":{"deep":[1,{"x":2}]},"known":{"a":"1","b":"2"}}}`,
			`{"spec":{"free":{"deep":[1,{"x":2}]},"known":{"a":"1"}}}`,
			[]string{"spec.known.b"}},
		{"preserve-unknown-fields on an array prunes its items by their schema",
			`{"type":"object","properties":{"l":{"type":"array","x-kubernetes-preserve-unknown-fields":true,"items":{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}}}}`,
			`{"l":[{"a":{"b":"1","c":"2"},"free":true}]}`,
			`{"l":[{"a":{"b":"1"},"free":true}]}`,
			[]string{"l[0].a.c"}},
		{"preserve-unknown-fields at the root",
			`{"type":"object","x-kubernetes-preserve-unknown-fields":true}`,
			`{"anything":{"at":"all"}}`,
			`{"anything":{"at":"all"}}`,
			nil},
		{"an embedded resource keeps its type and object meta",
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"template":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object","properties":{"image":{"type":"string"}}}}}}}}}`,
			`{"spec":{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"b"}},"spec":{"image":"x","bad":1},"status":{}}}}`,
			`{"spec":{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"b"}},"spec":{"image":"x"}}}}`,
			[]string{"spec.template.spec.bad", "spec.template.status"}},
		{"apiVersion, kind and metadata inside a plain object are pruned",
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"ref":{"type":"object","properties":{"name":{"type":"string"}}}}}}}`,
			`{"spec":{"ref":{"name":"x","kind":"Pod","metadata":{}}}}`,
			`{"spec":{"ref":{"name":"x"}}}`,
			[]string{"spec.ref.kind", "spec.ref.metadata"}},
		{"scalars where an object is specified are left to validation",
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}}}}}`,
			`{"spec":"oops"}`,
			`{"spec":"oops"}`,
			nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := mustObject(t, tc.obj)
			pruned := Prune(obj, mustSchema(t, tc.schema))
			if got, want := asJSON(t, obj), asJSON(t, mustObject(t, tc.wantObj)); got != want {
				t.Errorf("object:\n  got:  %s\n  want: %s", got, want)
			}
			if strings.Join(pruned, ",") != strings.Join(tc.wantPruned, ",") {
				t.Errorf("pruned paths: got %q, want %q", pruned, tc.wantPruned)
			}
		})
	}
}

func TestPruneNilSchemaKeepsOnlyObjectMeta(t *testing.T) {
	obj := mustObject(t, `{"apiVersion":"v1","kind":"X","metadata":{},"spec":{}}`)
	if got := Prune(obj, nil); strings.Join(got, ",") != "spec" {
		t.Errorf("pruned %q, want [spec]", got)
	}
}
