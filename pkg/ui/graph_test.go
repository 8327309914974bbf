package ui

import (
	"reflect"
	"testing"
)

func TestEdgesOf(t *testing.T) {
	tests := []struct {
		name string
		kind string
		obj  map[string]any
		want []Edge
	}{
		{
			name: "pod owned by its ReplicaSet",
			kind: "Pod",
			obj: map[string]any{"metadata": map[string]any{"uid": "pod-1", "ownerReferences": []any{
				map[string]any{"kind": "ReplicaSet", "name": "web-abc", "uid": "rs-1", "controller": true},
			}}},
			want: []Edge{{From: "rs-1", To: "pod-1", Relation: RelationOwns}},
		},
		{
			name: "custom resource with two owners",
			kind: "CronTab",
			obj: map[string]any{"metadata": map[string]any{"uid": "ct-1", "ownerReferences": []any{
				map[string]any{"uid": "a"}, map[string]any{"uid": "b"},
			}}},
			want: []Edge{{From: "a", To: "ct-1", Relation: RelationOwns}, {From: "b", To: "ct-1", Relation: RelationOwns}},
		},
		{
			name: "EndpointSlice owned by its Service, targeting pods",
			kind: "EndpointSlice",
			obj: map[string]any{
				"metadata": map[string]any{"uid": "es-1", "ownerReferences": []any{map[string]any{"kind": "Service", "uid": "svc-1"}}},
				"endpoints": []any{
					map[string]any{"addresses": []any{"10.0.0.1"}, "targetRef": map[string]any{"kind": "Pod", "uid": "pod-1"}},
					map[string]any{"addresses": []any{"10.0.0.2"}},
					map[string]any{"targetRef": map[string]any{"kind": "Node", "uid": "node-1"}},
				},
			},
			want: []Edge{{From: "svc-1", To: "es-1", Relation: RelationOwns}, {From: "es-1", To: "pod-1", Relation: RelationTargets}},
		},
		{
			name: "endpoints of another kind are not targets",
			kind: "Pod",
			obj: map[string]any{"metadata": map[string]any{"uid": "p"},
				"endpoints": []any{map[string]any{"targetRef": map[string]any{"kind": "Pod", "uid": "x"}}}},
			want: nil,
		},
		{
			name: "StatefulSet pod uses its claims, owned only by the set",
			kind: "Pod",
			obj: map[string]any{
				"metadata": map[string]any{"uid": "pod-0", "namespace": "default", "ownerReferences": []any{
					map[string]any{"kind": "StatefulSet", "uid": "sts-1", "controller": true},
				}},
				"spec": map[string]any{"volumes": []any{
					map[string]any{"name": "vol", "persistentVolumeClaim": map[string]any{"claimName": "vol-web-0"}},
					map[string]any{"name": "again", "persistentVolumeClaim": map[string]any{"claimName": "vol-web-0"}},
					map[string]any{"name": "tmp", "emptyDir": map[string]any{}},
				}},
			},
			want: []Edge{
				{From: "sts-1", To: "pod-0", Relation: RelationOwns},
				{From: "pod-0", ToRef: &ObjectRef{Kind: "PersistentVolumeClaim", Namespace: "default", Name: "vol-web-0"}, Relation: RelationUses},
			},
		},
		{
			name: "claim owned by its pod (retention policy whenScaled: Delete) and bound to a volume",
			kind: "PersistentVolumeClaim",
			obj: map[string]any{
				"metadata": map[string]any{"uid": "pvc-0", "namespace": "default", "ownerReferences": []any{
					map[string]any{"kind": "Pod", "uid": "pod-0"},
				}},
				"spec": map[string]any{"volumeName": "pv001"},
			},
			want: []Edge{
				{From: "pod-0", To: "pvc-0", Relation: RelationOwns},
				{From: "pvc-0", ToRef: &ObjectRef{Kind: "PersistentVolume", Name: "pv001"}, Relation: RelationBound},
			},
		},
		{name: "pending claim, no volume yet", kind: "PersistentVolumeClaim",
			obj: map[string]any{"metadata": map[string]any{"uid": "pvc-1"}, "spec": map[string]any{"resources": map[string]any{}}}},
		{name: "a volume names nothing", kind: "PersistentVolume",
			obj: map[string]any{"metadata": map[string]any{"uid": "pv-1"}, "spec": map[string]any{"claimRef": map[string]any{"name": "c"}}}},
		{name: "malformed volumes are skipped", kind: "Pod",
			obj: map[string]any{"metadata": map[string]any{"uid": "p"}, "spec": map[string]any{"volumes": []any{"x", map[string]any{"persistentVolumeClaim": "y"}}}}},
		{name: "no uid, no edges", kind: "Pod", obj: map[string]any{"metadata": map[string]any{"ownerReferences": []any{map[string]any{"uid": "a"}}}}},
		{name: "malformed ownerReferences are skipped", kind: "Pod",
			obj: map[string]any{"metadata": map[string]any{"uid": "p", "ownerReferences": []any{"nonsense", map[string]any{"name": "no-uid"}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EdgesOf(tt.kind, tt.obj); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("EdgesOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}
