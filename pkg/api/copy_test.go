package api

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestDeepCopySharesNothing(t *testing.T) {
	orig := &Pod{
		TypeMeta: TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: ObjectMeta{
			Name: "p", Labels: map[string]string{"app": "web"},
			CreationTimestamp: NewTime(time.Date(2024, 10, 23, 1, 9, 42, 0, time.UTC)),
			OwnerReferences:   []OwnerReference{{Name: "rs", Controller: ptrTo(true)}},
			ManagedFields:     []ManagedFieldsEntry{{FieldsV1: map[string]any{"f:spec": map[string]any{}}}},
		},
		Spec: PodSpec{
			Containers: []Container{{
				Name:      "c",
				Resources: ResourceRequirements{Limits: ResourceList{ResourceCPU: MustParseQuantity("500m")}},
				Ports:     []ContainerPort{{ContainerPort: 80}},
			}},
			TerminationGracePeriodSeconds: ptrTo(int64(30)),
		},
	}
	cp := DeepCopy(orig)
	if !reflect.DeepEqual(orig, cp) {
		t.Fatalf("copy differs:\n%+v\n%+v", orig, cp)
	}
	before, _ := json.Marshal(orig)

	// Mutate everything reachable from the copy.
	cp.Labels["app"] = "changed"
	*cp.OwnerReferences[0].Controller = false
	cp.ManagedFields[0].FieldsV1.(map[string]any)["f:spec"] = "changed"
	cp.Spec.Containers[0].Resources.Limits[ResourceCPU] = MustParseQuantity("2")
	cp.Spec.Containers[0].Ports[0].ContainerPort = 8080
	*cp.Spec.TerminationGracePeriodSeconds = 1

	after, _ := json.Marshal(orig)
	if string(before) != string(after) {
		t.Errorf("mutating the copy changed the original:\nbefore %s\nafter  %s", before, after)
	}
}

func TestDeepCopyNil(t *testing.T) {
	var p *Pod
	if DeepCopy(p) != nil {
		t.Error("copy of nil is not nil")
	}
	var l ResourceList
	if DeepCopyValue(l) != nil {
		t.Error("copy of a nil map is not nil")
	}
	if got := DeepCopyValue([]string{}); got == nil || len(got) != 0 {
		t.Errorf("copy of an empty slice = %#v, want empty non-nil", got)
	}
}

func TestDeepCopyControllerRevisionData(t *testing.T) {
	rev := &ControllerRevision{Data: json.RawMessage(`{"spec":{}}`), Revision: 2}
	cp := DeepCopy(rev)
	cp.Data[2] = 'X'
	if string(rev.Data) != `{"spec":{}}` {
		t.Errorf("original data changed to %s", rev.Data)
	}
}

func BenchmarkDeepCopyPod(b *testing.B) {
	pod := &Pod{
		ObjectMeta: ObjectMeta{Name: "p", Labels: map[string]string{"a": "b", "c": "d"}},
		Spec: PodSpec{Containers: []Container{{
			Name: "c", Image: "nginx",
			Resources: ResourceRequirements{Requests: ResourceList{ResourceCPU: MustParseQuantity("100m")}},
		}}},
	}
	SetDefaults(pod)
	for b.Loop() {
		_ = DeepCopy(pod)
	}
}
