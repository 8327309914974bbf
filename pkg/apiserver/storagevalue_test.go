package apiserver

import (
	"bytes"
	"testing"

	"kplane/pkg/api"
)

// TestStorageValueOfMatchesAnEncoding: the value cut out of a cached
// object's JSON is byte for byte what encodeForStorage makes of it, for
// resourceVersion in the middle of the metadata and as its last field.
func TestStorageValueOfMatchesAnEncoding(t *testing.T) {
	podRes := &resource{version: "v1", kind: "Pod", plural: "pods", namespaced: true,
		newObject: func() api.Object { return &api.Pod{} }}
	cmRes := &resource{version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true,
		newObject: func() api.Object { return &api.ConfigMap{} }}
	cases := []struct {
		res *resource
		obj api.Object
	}{
		{podRes, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "u1",
			Labels:      map[string]string{"app": "web"},
			Annotations: map[string]string{"note": `"resourceVersion":"7"`}},
			Spec:   api.PodSpec{NodeName: "n1", Containers: []api.Container{{Name: "c", Image: "nginx"}}},
			Status: api.PodStatus{Phase: api.PodRunning}}},
		{cmRes, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "only"}}},
		{cmRes, &api.ConfigMap{}},
	}
	for _, tc := range cases {
		so, err := newStoredObject(tc.res, tc.obj, 7)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := storageValueOf(so.raw, 7)
		if !ok {
			t.Fatalf("%s: no resourceVersion found in %s", tc.res.kind, so.raw)
		}
		want, err := encodeForStorage(tc.res, so.obj)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: cut value\n%s\nwant\n%s", tc.res.kind, got, want)
		}
	}
	if _, ok := storageValueOf([]byte(`{"metadata":{"name":"x"}}`), 7); ok {
		t.Fatal("found a resourceVersion where there is none")
	}
}

// TestReaderJSONOfMatchesAnEncoding: for every built-in kind, the readers'
// JSON made from the stored value is byte for byte what encoding the object
// with its resourceVersion gives, also when a label or annotation holds
// what looks like a uid key; and an object whose uid cannot be found or
// would be escaped is left to the encoder.
func TestReaderJSONOfMatchesAnEncoding(t *testing.T) {
	const uid = "0b4f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b"
	for _, res := range builtinResources() {
		if res.conversion != nil {
			continue
		}
		obj := res.newObject()
		meta := obj.GetObjectMeta()
		meta.Name, meta.Namespace, meta.UID = "x", "default", uid
		meta.Labels = map[string]string{"a": "b"}
		meta.Annotations = map[string]string{"note": `"uid":"` + uid + `"`}
		meta.OwnerReferences = []api.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: uid}}
		value, err := encodeForStorage(res, obj)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := readerJSONOf(value, uid, 42)
		if !ok {
			t.Fatalf("%s: no uid found in %s", res.kind, value)
		}
		want, err := newStoredObject(res, obj, 42)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.raw) {
			t.Fatalf("%s: readers' JSON\n%s\nwant\n%s", res.kind, got, want.raw)
		}
	}
	for _, uid := range []string{"", "a<b", "absent"} {
		if _, ok := readerJSONOf([]byte(`{"metadata":{"name":"x","uid":"a<b"}}`), uid, 1); ok {
			t.Fatalf("uid %q: made readers' JSON where the encoder must", uid)
		}
	}
}
