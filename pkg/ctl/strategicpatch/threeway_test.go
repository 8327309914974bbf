package strategicpatch

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/api/schema"
	"kplane/pkg/apiserver/patch"
)

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

var (
	deploymentSchema  = schema.Of(reflect.TypeFor[api.Deployment]())
	statefulSetSchema = schema.Of(reflect.TypeFor[api.StatefulSet]())
)

// canonical re-encodes JSON with sorted keys.
func canonical(t *testing.T, data []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

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

// TestMatchesKubectl replays the apply captured from kubectl 1.32 in
// pkg/apiserver/patch/testdata/kubectl-apply: the same live object, last
// applied configuration and edited file must give the very patch kubectl
// sent, and applying it must give the object upstream ends with.
func TestMatchesKubectl(t *testing.T) {
	dir := filepath.Join("..", "..", "apiserver", "patch", "testdata", "kubectl-apply")
	live := readFile(t, filepath.Join(dir, "live.json"))
	kubectlPatch := readFile(t, filepath.Join(dir, "patch.json"))
	want := readFile(t, filepath.Join(dir, "want.json"))

	var liveObj struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	var sent struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	json.Unmarshal(live, &liveObj)
	json.Unmarshal(kubectlPatch, &sent)
	original := liveObj.Metadata.Annotations[lastApplied]
	modified := withAnnotation(t, sent.Metadata.Annotations[lastApplied])

	got, err := CreateThreeWayMergePatch([]byte(original), modified, live, deploymentSchema)
	if err != nil {
		t.Fatal(err)
	}
	if canonical(t, got) != canonical(t, kubectlPatch) {
		t.Errorf("patch differs from kubectl's:\n got %s\nwant %s", got, kubectlPatch)
	}
	applied, err := patch.Apply(patch.StrategicMergePatchType, live, got, reflect.TypeFor[api.Deployment]())
	if err != nil {
		t.Fatal(err)
	}
	if canonical(t, applied) != canonical(t, want) {
		t.Errorf("applying the patch gives\n%s\nwant\n%s", canonical(t, applied), canonical(t, want))
	}

	// The second apply of the same file finds nothing to do.
	again, err := CreateThreeWayMergePatch(modifiedAnnotation(t, applied), modified, applied, deploymentSchema)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != "{}" {
		t.Errorf("second apply patch = %s, want {}", again)
	}
}

func modifiedAnnotation(t *testing.T, obj []byte) []byte {
	t.Helper()
	var o struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(obj, &o); err != nil {
		t.Fatal(err)
	}
	return []byte(o.Metadata.Annotations[lastApplied])
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
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
