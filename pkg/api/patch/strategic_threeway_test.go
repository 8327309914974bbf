package patch

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/api/schema"
)

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// The three-way tests use kplane's real API types, as ctl apply does.
var (
	deploymentSchema  = schema.Of(reflect.TypeFor[api.Deployment]())
	statefulSetSchema = schema.Of(reflect.TypeFor[api.StatefulSet]())
)

// withAnnotation returns the modified configuration kubectl builds from a
// file: the object with last-applied set to its own encoding.
func withAnnotation(t *testing.T, applied string) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(applied)))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		t.Fatal(err)
	}
	meta := obj["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
	}
	annotations[lastApplied] = applied
	meta["annotations"] = annotations
	out, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestThreeWayCases(t *testing.T) {
	tests := []struct {
		name                        string
		original, modified, current string
		typ                         *schema.Type
		want                        string
	}{
		{
			name:     "defaults and status on the live object are left alone",
			original: `{"spec":{"replicas":2}}`,
			modified: `{"spec":{"replicas":2}}`,
			current:  `{"spec":{"replicas":2,"revisionHistoryLimit":10},"status":{"replicas":2}}`,
			typ:      deploymentSchema,
			want:     `{}`,
		},
		{
			name:     "a field removed from the file is deleted, one added by someone else is kept",
			original: `{"metadata":{"labels":{"a":"1","b":"2"}}}`,
			modified: `{"metadata":{"labels":{"a":"1"}}}`,
			current:  `{"metadata":{"labels":{"a":"1","b":"2","c":"3"}}}`,
			typ:      deploymentSchema,
			want:     `{"metadata":{"labels":{"b":null}}}`,
		},
		{
			name:     "a changed field the live object also changed is set back",
			original: `{"spec":{"replicas":2}}`,
			modified: `{"spec":{"replicas":3}}`,
			current:  `{"spec":{"replicas":5}}`,
			typ:      deploymentSchema,
			want:     `{"spec":{"replicas":3}}`,
		},
		{
			name:     "a container is added and one removed, by name",
			original: `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}}}}`,
			modified: `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"},{"name":"c","image":"z"}]}}}}`,
			current:  `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x","imagePullPolicy":"Always"},{"name":"b","image":"y"}]}}}}`,
			typ:      deploymentSchema,
			want:     `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"c"}],"containers":[{"image":"z","name":"c"},{"$patch":"delete","name":"b"}]}}}}`,
		},
		{
			name:     "an atomic list with server defaults inside is sent again (kubectl does the same)",
			original: `{"spec":{"volumeClaimTemplates":[{"metadata":{"name":"vol"},"spec":{"accessModes":["ReadWriteOnce"]}}]}}`,
			modified: `{"spec":{"volumeClaimTemplates":[{"metadata":{"name":"vol"},"spec":{"accessModes":["ReadWriteOnce"]}}]}}`,
			current:  `{"spec":{"volumeClaimTemplates":[{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"vol"},"spec":{"accessModes":["ReadWriteOnce"],"volumeMode":"Filesystem"},"status":{"phase":"Pending"}}]}}`,
			typ:      statefulSetSchema,
			want:     `{"spec":{"volumeClaimTemplates":[{"metadata":{"name":"vol"},"spec":{"accessModes":["ReadWriteOnce"]}}]}}`,
		},
		{
			name:     "switching a union member sends $retainKeys",
			original: `{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}}`,
			modified: `{"spec":{"strategy":{"type":"Recreate"}}}`,
			current:  `{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":"25%"}}}}`,
			typ:      deploymentSchema,
			want:     `{"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":null,"type":"Recreate"}}}`,
		},
		{
			name:     "finalizers merge as a set",
			original: `{"metadata":{"finalizers":["a","b"]}}`,
			modified: `{"metadata":{"finalizers":["a","c"]}}`,
			current:  `{"metadata":{"finalizers":["a","b","x"]}}`,
			typ:      deploymentSchema,
			want:     `{"metadata":{"$deleteFromPrimitiveList/finalizers":["b"],"$setElementOrder/finalizers":["a","c"],"finalizers":["c"]}}`,
		},
		{
			name:     "no previous apply: nothing is deleted",
			original: ``,
			modified: `{"metadata":{"labels":{"a":"1"}}}`,
			current:  `{"metadata":{"labels":{"b":"2"}}}`,
			typ:      nil,
			want:     `{"metadata":{"labels":{"a":"1"}}}`,
		},
	}
	for _, tt := range tests {
		got, err := CreateThreeWayMergePatch([]byte(tt.original), []byte(tt.modified), []byte(tt.current), tt.typ)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestErrors(t *testing.T) {
	if _, err := CreateThreeWayMergePatch(nil, []byte(`{"spec":`), []byte(`{}`), nil); err == nil {
		t.Error("malformed modified configuration: no error")
	}
	_, err := CreateThreeWayMergePatch(nil,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}`),
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}}`), deploymentSchema)
	if err == nil {
		t.Error("a container without its merge key: no error")
	}
}

// TestNonScalarMergeKey checks that a merge key holding a list or an object
// (a container whose name is [1]) is an error, not a panic: merge keys are
// compared with ==, which panics on uncomparable values.
func TestNonScalarMergeKey(t *testing.T) {
	cases := map[string]struct{ original, modified, current string }{
		"list name in modified": {
			modified: `{"spec":{"template":{"spec":{"containers":[{"name":["a"],"image":"x"}]}}}}`,
			current:  `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"y"}]}}}}`,
		},
		"map name in current": {
			modified: `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"}]}}}}`,
			current:  `{"spec":{"template":{"spec":{"containers":[{"name":{"a":1},"image":"y"}]}}}}`,
		},
		"list names merged with a deletion": {
			original: `{"spec":{"template":{"spec":{"containers":[{"name":["a"]},{"name":["b"]}]}}}}`,
			modified: `{"spec":{"template":{"spec":{"containers":[{"name":["a"],"image":"x"}]}}}}`,
			current:  `{"spec":{"template":{"spec":{"containers":[{"name":["a"],"image":"y"},{"name":["b"]}]}}}}`,
		},
		"list name in both": {
			original: `{"spec":{"template":{"spec":{"containers":[{"name":["a"]},{"name":"b"}]}}}}`,
			modified: `{"spec":{"template":{"spec":{"containers":[{"name":"b"},{"name":["a"]}]}}}}`,
			current:  `{"spec":{"template":{"spec":{"containers":[{"name":["a"]},{"name":"b"}]}}}}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := CreateThreeWayMergePatch([]byte(tc.original), []byte(tc.modified), []byte(tc.current), deploymentSchema)
			if err == nil || !strings.Contains(err.Error(), "merge key") {
				t.Fatalf("got error %v, want one about the merge key", err)
			}
		})
	}
}
