package api

import (
	"reflect"
	"testing"
)

func TestDecodeObjectMapNormalizesNumbers(t *testing.T) {
	got, err := DecodeObjectMap([]byte(`{"spec":{"replicas":3,"big":9007199254740993,"ratio":0.25,"exp":1e3,
		"ports":[{"port":80},{"port":-1}],"neg":-7},"name":"x","ok":true,"none":null}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"spec": map[string]any{
			"replicas": int64(3),
			"big":      int64(9007199254740993), // not representable as float64
			"ratio":    0.25,
			"exp":      float64(1000),
			"ports":    []any{map[string]any{"port": int64(80)}, map[string]any{"port": int64(-1)}},
			"neg":      int64(-7),
		},
		"name": "x", "ok": true, "none": nil,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded\n%#v\nwant\n%#v", got, want)
	}
}

func TestDecodeObjectMapRejectsNonObjects(t *testing.T) {
	for _, in := range []string{`null`, `[1,2]`, `"s"`, `{`} {
		if _, err := DecodeObjectMap([]byte(in)); err == nil {
			t.Errorf("DecodeObjectMap(%s) succeeded", in)
		}
	}
}
