package garbagecollector

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/api/patch"
)

// applyToPod applies p (of patch type pt) to pod with the apiserver's own
// patch code, so the tests check what the patches do, not just their text.
func applyToPod(t *testing.T, pt string, pod *api.Pod, p []byte) *api.Pod {
	t.Helper()
	original, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := patch.Apply(pt, original, p, reflect.TypeFor[api.Pod]())
	if err != nil {
		t.Fatalf("apply %s: %v", p, err)
	}
	out := &api.Pod{}
	if err := json.Unmarshal(patched, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func podWithOwners(owners ...api.OwnerReference) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", UID: "p-uid", ResourceVersion: "7", OwnerReferences: owners,
		Finalizers: []string{"example.com/a", api.FinalizerOrphanDependents, "example.com/b"}}}
}

func ownerUIDs(refs []api.OwnerReference) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.UID)
	}
	return out
}

func TestDeleteOwnerRefsPatch(t *testing.T) {
	a := ownerRef("ReplicaSet", "a", "a", true)
	b := ownerRef("ReplicaSet", "b", "b", true)
	c := ownerRef("ReplicaSet", "c", "c", false)
	tests := []struct {
		name   string
		owners []api.OwnerReference
		remove []string
		want   []string
	}{
		{"remove one of three", []api.OwnerReference{a, b, c}, []string{"b"}, []string{"a", "c"}},
		{"remove two", []api.OwnerReference{a, b, c}, []string{"a", "c"}, []string{"b"}},
		{"remove the only one", []api.OwnerReference{a}, []string{"a"}, nil},
		{"remove one that is not there", []api.OwnerReference{a}, []string{"z"}, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := deleteOwnerRefsPatch("p-uid", tt.remove...)
			if err != nil {
				t.Fatal(err)
			}
			got := applyToPod(t, patch.StrategicMergePatchType, podWithOwners(tt.owners...), p)
			if !slices.Equal(ownerUIDs(got.OwnerReferences), tt.want) {
				t.Fatalf("ownerReferences after %s = %v, want %v", p, ownerUIDs(got.OwnerReferences), tt.want)
			}
		})
	}
}

func TestUnblockOwnerRefsPatch(t *testing.T) {
	a := ownerRef("ReplicaSet", "a", "a", true)
	c := ownerRef("ReplicaSet", "c", "c", false)
	p, err := unblockOwnerRefsPatch("p-uid", []api.OwnerReference{a, c})
	if err != nil {
		t.Fatal(err)
	}
	got := applyToPod(t, patch.StrategicMergePatchType, podWithOwners(a, c), p)
	if len(got.OwnerReferences) != 2 || blocks(got.OwnerReferences[0]) || blocks(got.OwnerReferences[1]) ||
		got.OwnerReferences[0].Name != "a" || got.OwnerReferences[0].Kind != "ReplicaSet" {
		t.Fatalf("ownerReferences after %s = %+v, want a and c kept, neither blocking", p, got.OwnerReferences)
	}
	if p, _ := unblockOwnerRefsPatch("p-uid", []api.OwnerReference{c}); p != nil {
		t.Fatalf("patch for no blocking reference = %s, want none", p)
	}
}

func TestRemoveFinalizerPatch(t *testing.T) {
	pod := podWithOwners()
	p, err := removeFinalizerPatch(&pod.ObjectMeta, api.FinalizerOrphanDependents)
	if err != nil {
		t.Fatal(err)
	}
	got := applyToPod(t, patch.MergePatchType, pod, p)
	if want := []string{"example.com/a", "example.com/b"}; !slices.Equal(got.Finalizers, want) {
		t.Fatalf("finalizers after %s = %v, want %v", p, got.Finalizers, want)
	}
	if got.ResourceVersion != "7" {
		t.Fatalf("patch must carry the resourceVersion read (7), got %q", got.ResourceVersion)
	}

	only := &api.ObjectMeta{Finalizers: []string{api.FinalizerDeleteDependents}, ResourceVersion: "9"}
	p, err = removeFinalizerPatch(only, api.FinalizerDeleteDependents)
	if err != nil {
		t.Fatal(err)
	}
	if got := applyToPod(t, patch.MergePatchType, &api.Pod{ObjectMeta: *only}, p); len(got.Finalizers) != 0 {
		t.Fatalf("finalizers after removing the last = %v, want none", got.Finalizers)
	}
}

func TestAbsentOwnerCache(t *testing.T) {
	c := newAbsentOwnerCache(2)
	r1, r2, r3 := rsID(), podID("a"), podID("b")
	c.Add(r1)
	c.Add(r2)
	c.Add(r1) // already there: no reordering, no eviction
	if !c.Has(r1) || !c.Has(r2) {
		t.Fatalf("cache lost an entry under its bound")
	}
	c.Add(r3)
	if c.Has(r1) || !c.Has(r2) || !c.Has(r3) {
		t.Fatalf("after a third entry: has r1=%v r2=%v r3=%v, want the oldest (r1) evicted", c.Has(r1), c.Has(r2), c.Has(r3))
	}
	// Same uid, other coordinates: a different reference.
	other := r2
	other.Name = "renamed"
	if c.Has(other) {
		t.Fatalf("cache matched a reference with other coordinates")
	}
}

func TestResourceFor(t *testing.T) {
	tests := []struct {
		apiVersion, kind, want string
		namespaced             bool
	}{
		{"apps/v1", "ReplicaSet", "replicasets.apps", true},
		{"apps/v1beta2", "ReplicaSet", "replicasets.apps", true}, // one served version per kind
		{"v1", "Pod", "pods", true},
		{"v1", "Node", "nodes", false},
		{"batch/v1", "Job", "jobs.batch", true},
	}
	for _, tt := range tests {
		r, err := newRESTMapper().resourceFor(tt.apiVersion, tt.kind)
		if err != nil || r.String() != tt.want || r.Namespaced != tt.namespaced {
			t.Errorf("resourceFor(%s, %s) = %v (namespaced %v), %v; want %s", tt.apiVersion, tt.kind, r, r.Namespaced, err, tt.want)
		}
	}
	if _, err := newRESTMapper().resourceFor("example.com/v1", "Widget"); !isUnknownKind(err) {
		t.Errorf("resourceFor(Widget) error = %v, want unknown kind", err)
	}
	if _, err := newRESTMapper().resourceFor("v1", "ReplicaSet"); !isUnknownKind(err) {
		t.Errorf("resourceFor(v1 ReplicaSet) error = %v, want unknown kind (wrong group)", err)
	}
}
