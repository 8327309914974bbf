package api

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// newObjectForKind returns an empty object for each kind the testdata uses.
func newObjectForKind(kind string) any {
	return map[string]any{
		"Pod": &Pod{}, "Node": &Node{}, "Service": &Service{}, "Endpoints": &Endpoints{},
		"Namespace": &Namespace{}, "ConfigMap": &ConfigMap{}, "Secret": &Secret{},
		"ServiceAccount": &ServiceAccount{}, "PersistentVolume": &PersistentVolume{},
		"PersistentVolumeClaim": &PersistentVolumeClaim{}, "ResourceQuota": &ResourceQuota{},
		"LimitRange": &LimitRange{}, "Event": &Event{}, "ReplicationController": &ReplicationController{},
		"Binding": &Binding{}, "Deployment": &Deployment{}, "ReplicaSet": &ReplicaSet{},
		"StatefulSet": &StatefulSet{}, "DaemonSet": &DaemonSet{}, "ControllerRevision": &ControllerRevision{},
		"Job": &Job{}, "CronJob": &CronJob{}, "HorizontalPodAutoscaler": &HorizontalPodAutoscaler{},
		"Scale": &Scale{}, "Lease": &Lease{}, "Role": &Role{}, "ClusterRole": &ClusterRole{},
		"RoleBinding": &RoleBinding{}, "ClusterRoleBinding": &ClusterRoleBinding{}, "Eviction": &Eviction{},
		"EndpointSlice": &EndpointSlice{},
		"StorageClass":  &StorageClass{},
		"PriorityClass": &PriorityClass{},
	}[kind]
}

// yamlDocsAsJSON splits a multi-document YAML file into JSON documents.
func yamlDocsAsJSON(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs [][]byte
	for {
		var doc any
		if err := dec.Decode(&doc); err != nil {
			if err.Error() == "EOF" {
				return docs
			}
			t.Fatalf("%s: %v", path, err)
		}
		if doc == nil {
			continue
		}
		j, err := json.Marshal(doc)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, j)
	}
}

// TestStrictDecodeKnownObjects decodes the seeds' YAMLs and real-cluster
// shaped objects with unknown fields disallowed, as the apiserver does for
// kubectl's ?fieldValidation=Strict, and checks that encoding and decoding
// again loses nothing.
func TestStrictDecodeKnownObjects(t *testing.T) {
	for _, file := range []string{"testdata/seeds.yaml", "testdata/cluster-objects.yaml"} {
		for i, doc := range yamlDocsAsJSON(t, file) {
			var tm TypeMeta
			if err := json.Unmarshal(doc, &tm); err != nil {
				t.Fatalf("%s #%d: %v", file, i, err)
			}
			obj := newObjectForKind(tm.Kind)
			if obj == nil {
				t.Fatalf("%s #%d: no type for kind %q", file, i, tm.Kind)
			}
			dec := json.NewDecoder(bytes.NewReader(doc))
			dec.DisallowUnknownFields()
			if err := dec.Decode(obj); err != nil {
				t.Errorf("%s #%d (%s): strict decode: %v", file, i, tm.Kind, err)
				continue
			}
			encoded, err := json.Marshal(obj)
			if err != nil {
				t.Fatalf("%s #%d: marshal: %v", file, i, err)
			}
			again := newObjectForKind(tm.Kind)
			if err := json.Unmarshal(encoded, again); err != nil {
				t.Fatalf("%s #%d: re-decode: %v", file, i, err)
			}
			if !reflect.DeepEqual(normalizeTimes(obj), normalizeTimes(again)) {
				t.Errorf("%s #%d (%s): changed in a JSON round trip:\n%s", file, i, tm.Kind, encoded)
			}
			// The input's fields all come back out (nothing silently dropped).
			var in, out map[string]any
			_ = json.Unmarshal(doc, &in)
			_ = json.Unmarshal(encoded, &out)
			if missing := missingKeys(in, out, ""); len(missing) > 0 {
				t.Errorf("%s #%d (%s): fields lost on output: %v", file, i, tm.Kind, missing)
			}
		}
	}
}

// normalizeTimes re-encodes v so that times decoded in different locations compare equal.
func normalizeTimes(v any) any {
	var m any
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &m)
	return m
}

// missingKeys lists the paths of keys in a (with non-null, non-empty values) absent from b.
func missingKeys(a, b any, path string) []string {
	var missing []string
	switch av := a.(type) {
	case map[string]any:
		bv, _ := b.(map[string]any)
		for k, v := range av {
			if v == nil {
				continue
			}
			w, ok := bv[k]
			if !ok {
				// omitempty drops false, 0, "" and empty collections, as upstream does.
				if isEmptyJSON(v) {
					continue
				}
				missing = append(missing, path+"."+k)
				continue
			}
			missing = append(missing, missingKeys(v, w, path+"."+k)...)
		}
	case []any:
		bv, _ := b.([]any)
		for i := range av {
			if i < len(bv) {
				missing = append(missing, missingKeys(av[i], bv[i], path+"[]")...)
			}
		}
	}
	return missing
}

func isEmptyJSON(v any) bool {
	switch x := v.(type) {
	case bool:
		return !x
	case float64:
		return x == 0
	case string:
		return x == ""
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// TestPatchMergeKeys pins the strategic-merge-patch tags another package
// relies on to merge lists by key.
func TestPatchMergeKeys(t *testing.T) {
	tests := []struct {
		typ      any
		field    string
		strategy string
		key      string
	}{
		{PodSpec{}, "Containers", "merge", "name"},
		{PodSpec{}, "InitContainers", "merge", "name"},
		{PodSpec{}, "EphemeralContainers", "merge", "name"},
		{PodSpec{}, "Volumes", "merge,retainKeys", "name"},
		{PodSpec{}, "ImagePullSecrets", "merge", "name"},
		{PodSpec{}, "HostAliases", "merge", "ip"},
		{PodSpec{}, "TopologySpreadConstraints", "merge", "topologyKey"},
		{PodSpec{}, "Tolerations", "", ""},
		{Container{}, "Ports", "merge", "containerPort"},
		{Container{}, "Env", "merge", "name"},
		{Container{}, "VolumeMounts", "merge", "mountPath"},
		{Container{}, "VolumeDevices", "merge", "devicePath"},
		{Container{}, "EnvFrom", "", ""},
		{PodStatus{}, "Conditions", "merge", "type"},
		{PodStatus{}, "PodIPs", "merge", "ip"},
		{ServiceSpec{}, "Ports", "merge", "port"},
		{NodeStatus{}, "Conditions", "merge", "type"},
		{NodeStatus{}, "Addresses", "merge", "type"},
		{NodeSpec{}, "PodCIDRs", "merge", ""},
		{NodeSpec{}, "Taints", "", ""},
		{DeploymentSpec{}, "Strategy", "retainKeys", ""},
		{DeploymentStatus{}, "Conditions", "merge", "type"},
		{ReplicaSetStatus{}, "Conditions", "merge", "type"},
		{StatefulSetStatus{}, "Conditions", "merge", "type"},
		{DaemonSetStatus{}, "Conditions", "merge", "type"},
		{JobStatus{}, "Conditions", "merge", "type"},
		{HorizontalPodAutoscalerStatus{}, "Conditions", "merge", "type"},
		{NamespaceStatus{}, "Conditions", "merge", "type"},
		{ServiceAccount{}, "Secrets", "merge", "name"},
		{ObjectMeta{}, "OwnerReferences", "merge", "uid"},
		{ObjectMeta{}, "Finalizers", "merge", ""},
	}
	for _, tt := range tests {
		f, ok := reflect.TypeOf(tt.typ).FieldByName(tt.field)
		if !ok {
			t.Errorf("%T has no field %s", tt.typ, tt.field)
			continue
		}
		if got := f.Tag.Get("patchStrategy"); got != tt.strategy {
			t.Errorf("%T.%s patchStrategy = %q, want %q", tt.typ, tt.field, got, tt.strategy)
		}
		if got := f.Tag.Get("patchMergeKey"); got != tt.key {
			t.Errorf("%T.%s patchMergeKey = %q, want %q", tt.typ, tt.field, got, tt.key)
		}
	}
}

// TestTopLevelTypesAreObjects checks every served kind satisfies Object
// with the metadata tags the wire format needs.
func TestTopLevelTypesAreObjects(t *testing.T) {
	for _, kind := range []string{
		"Pod", "Node", "Service", "Endpoints", "Namespace", "ConfigMap", "Secret", "ServiceAccount",
		"PersistentVolume", "PersistentVolumeClaim", "ResourceQuota", "LimitRange", "Event",
		"ReplicationController", "Binding", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet",
		"ControllerRevision", "Job", "CronJob", "HorizontalPodAutoscaler", "Scale", "Lease", "Role",
		"ClusterRole", "RoleBinding", "ClusterRoleBinding", "Eviction", "EndpointSlice",
		"StorageClass", "PriorityClass",
	} {
		obj, ok := newObjectForKind(kind).(Object)
		if !ok {
			t.Errorf("%s does not implement Object", kind)
			continue
		}
		typ := reflect.TypeOf(obj).Elem()
		tm, _ := typ.FieldByName("TypeMeta")
		om, _ := typ.FieldByName("ObjectMeta")
		if !tm.Anonymous || tm.Tag.Get("json") != ",inline" || !om.Anonymous || om.Tag.Get("json") != "metadata,omitempty" {
			t.Errorf("%s: TypeMeta/ObjectMeta not embedded with the expected tags", kind)
		}
		if status, ok := typ.FieldByName("Status"); ok && status.Tag.Get("json") != "status,omitempty" {
			t.Errorf("%s: status tag %q", kind, status.Tag.Get("json"))
		}
	}
}

// TestGenericList checks the list envelope's wire shape.
func TestGenericList(t *testing.T) {
	list := List[Pod]{
		TypeMeta: TypeMeta{Kind: "PodList", APIVersion: "v1"},
		ListMeta: ListMeta{ResourceVersion: "42"},
		Items:    []Pod{{ObjectMeta: ObjectMeta{Name: "a"}}},
	}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kind":"PodList"`, `"metadata":{"resourceVersion":"42"}`, `"items":[{"metadata":{"name":"a"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("list JSON %s lacks %s", b, want)
		}
	}
	empty, _ := json.Marshal(List[Pod]{Items: []Pod{}})
	if !strings.Contains(string(empty), `"items":[]`) {
		t.Errorf("empty list JSON %s lacks items: []", empty)
	}
}
