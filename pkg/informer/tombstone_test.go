package informer

import (
	"testing"

	"kplane/pkg/api"
)

func TestDeletedObjectUnwrapsTombstones(t *testing.T) {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"}}
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node1"}}
	for _, tc := range []struct {
		name string
		obj  any
		want *api.Pod
	}{
		{"the object itself", pod, pod},
		{"a tombstone", DeletedFinalStateUnknown{Key: "default/web", Obj: pod}, pod},
		{"a pointer to a tombstone", &DeletedFinalStateUnknown{Key: "default/web", Obj: pod}, pod},
		{"a tombstone whose last state was lost", DeletedFinalStateUnknown{Key: "default/web"}, nil},
		{"a nil tombstone pointer", (*DeletedFinalStateUnknown)(nil), nil},
		{"another kind", node, nil},
		{"a tombstone of another kind", DeletedFinalStateUnknown{Key: "node1", Obj: node}, nil},
		{"nil", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := DeletedObject[*api.Pod](tc.obj)
			if ok != (tc.want != nil) || got != tc.want {
				t.Errorf("DeletedObject = %v, %v; want %v, %v", got, ok, tc.want, tc.want != nil)
			}
		})
	}
}
