package protobuf

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"kplane/pkg/api"
)

// fuzzTargets are the types a fuzzed body is decoded into, chosen by the
// fuzzer's first argument; between them they use every kind of field.
var fuzzTargets = []func() any{
	func() any { return &api.Pod{} },
	func() any { return &api.Deployment{} },
	func() any { return &api.Secret{} },
	func() any { return &api.ControllerRevision{} },
	func() any { return &api.Lease{} },
	func() any { return &api.HorizontalPodAutoscaler{} },
	func() any { return &api.Eviction{} },
	func() any { return &recursive{} },
}

// FuzzDecode checks that no body makes Decode panic, and that whatever it
// accepts survives Encode and a second Decode unchanged (compared as the
// JSON kplane would store).
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.pb")
	for i, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), b)
		f.Add(uint8(i), b[:len(b)/2])
	}
	f.Add(uint8(0), hexBody(f, configMapGolden))
	f.Add(uint8(1), hexBody(f, deploymentGolden))
	f.Add(uint8(0), body(msg(str(2, str(14, str(4, []byte{2, 0xac, 0x02}))))))
	f.Add(uint8(3), body(str(2, str(1, `{"a":[1,2,{"b":null}]}`))))
	f.Add(uint8(4), body(str(2, str(4, msg(num(1, 1700000000), num(2, 123456789))))))
	f.Add(uint8(0), []byte("k8s\x00"))
	f.Add(uint8(0), []byte{})
	f.Fuzz(func(t *testing.T, target uint8, in []byte) {
		newObj := fuzzTargets[int(target)%len(fuzzTargets)]
		first := newObj()
		if err := Decode(in, first); err != nil {
			return
		}
		apiVersion, kind, err := DecodeTypeMeta(in)
		if err != nil {
			t.Fatalf("Decode accepted a body DecodeTypeMeta rejects: %v", err)
		}
		again, err := Encode(first, apiVersion, kind)
		if err != nil {
			t.Fatalf("Encode of a decoded object failed: %v", err)
		}
		second := newObj()
		if err := Decode(again, second); err != nil {
			t.Fatalf("Decode of re-encoded object failed: %v", err)
		}
		a, errA := json.Marshal(first)
		b, errB := json.Marshal(second)
		if errA != nil || errB != nil {
			t.Fatalf("decoded objects do not marshal to JSON: %v, %v", errA, errB)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("object changed on re-encoding:\n%s\n%s", a, b)
		}
	})
}
