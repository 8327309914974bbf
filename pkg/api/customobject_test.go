package api

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestCustomObjectRoundTrip: type and metadata are typed, the rest is
// Content with int64/float64 numbers, and encoding gives apiVersion, kind
// and metadata first, then the other fields sorted.
func TestCustomObjectRoundTrip(t *testing.T) {
	in := `{"spec":{"replicas":3,"ratio":0.5,"big":9007199254740993},"apiVersion":"stable.example.com/v1","kind":"CronTab",` +
		`"metadata":{"name":"x","namespace":"default","labels":{"a":"b"}},"status":{"ok":true},"data":null}`
	var obj CustomObject
	if err := json.Unmarshal([]byte(in), &obj); err != nil {
		t.Fatal(err)
	}
	if obj.APIVersion != "stable.example.com/v1" || obj.Kind != "CronTab" || obj.Name != "x" || obj.Labels["a"] != "b" {
		t.Errorf("typed parts = %+v %+v", obj.TypeMeta, obj.ObjectMeta)
	}
	wantContent := map[string]any{
		"spec":   map[string]any{"replicas": int64(3), "ratio": 0.5, "big": int64(9007199254740993)},
		"status": map[string]any{"ok": true},
		"data":   nil,
	}
	if !reflect.DeepEqual(obj.Content, wantContent) {
		t.Errorf("content = %#v, want %#v", obj.Content, wantContent)
	}
	out, err := json.Marshal(&obj)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","namespace":"default","creationTimestamp":null,"labels":{"a":"b"}},` +
		`"data":null,"spec":{"big":9007199254740993,"ratio":0.5,"replicas":3},"status":{"ok":true}}`
	if string(out) != want {
		t.Errorf("encoded\n%s\nwant\n%s", out, want)
	}
	copied := DeepCopy(&obj)
	copied.Content["spec"].(map[string]any)["replicas"] = int64(4)
	if obj.Content["spec"].(map[string]any)["replicas"] != int64(3) {
		t.Error("DeepCopy shares the content")
	}
}

// TestCustomObjectRejectsBadTypeMeta: a kind that is not a string, or
// metadata that is not an object, is a decoding error.
func TestCustomObjectRejectsBadTypeMeta(t *testing.T) {
	for _, in := range []string{`{"kind":3}`, `{"metadata":"x"}`, `[1]`, `null`} {
		var obj CustomObject
		if err := json.Unmarshal([]byte(in), &obj); err == nil {
			t.Errorf("decoding %s succeeded", in)
		}
	}
}
