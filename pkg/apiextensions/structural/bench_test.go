package structural

import (
	"encoding/json"
	"testing"
)

// benchSchema is a typical operator's CRD: a spec with scalars, a map, a
// list-type map of ports and an embedded pod template.
const benchSchema = `{"type":"object","properties":{
	"spec":{"type":"object","required":["image"],"properties":{
		"image":{"type":"string","pattern":"^[a-z0-9./:-]+$"},
		"replicas":{"type":"integer","minimum":0,"default":1},
		"mode":{"type":"string","enum":["fast","safe"],"default":"safe"},
		"labels":{"type":"object","additionalProperties":{"type":"string","maxLength":63}},
		"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
			"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"port":{"type":"integer","maximum":65535},"protocol":{"type":"string","default":"TCP"}}}},
		"template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}},
	"status":{"type":"object","properties":{"ready":{"type":"boolean"},"conditions":{"type":"array","items":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}}`

const benchObject = `{"apiVersion":"example.com/v1","kind":"Website","metadata":{"name":"w","namespace":"default"},
	"spec":{"image":"nginx:1.27","replicas":3,"labels":{"app":"w","tier":"web"},"unknown":true,
		"ports":[{"name":"http","port":80},{"name":"https","port":443,"extra":1}],
		"template":{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"app":"w"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}},
	"status":{"ready":true}}`

// BenchmarkWritePath measures what the apiserver does to a custom object
// on every write: prune, default, validate.
func BenchmarkWritePath(b *testing.B) {
	s := mustSchema(b, benchSchema)
	raw := []byte(benchObject)
	b.ReportAllocs()
	for b.Loop() {
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err != nil {
			b.Fatal(err)
		}
		Prune(obj, s)
		Default(obj, s)
		if errs := Validate(s, obj); len(errs) != 0 {
			b.Fatalf("unexpected errors: %v", lines(errs))
		}
	}
}
