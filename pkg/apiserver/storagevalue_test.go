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
