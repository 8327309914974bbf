package schema_test

import (
	"reflect"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/api/schema"
)

// TestListMergeOf: built-in lists merge as upstream's OpenAPI marks them:
// by patchMergeKey, ports by number and protocol, merge lists of scalars
// as sets, untagged lists atomic; a LabelSelector is an atomic struct.
func TestListMergeOf(t *testing.T) {
	container := schema.Of(reflect.TypeFor[api.Container]())
	serviceSpec := schema.Of(reflect.TypeFor[api.ServiceSpec]())
	meta := schema.Of(reflect.TypeFor[api.ObjectMeta]())
	tests := []struct {
		owner *schema.Type
		field string
		want  schema.ListMerge
	}{
		{container, "env", schema.ListMerge{Type: schema.ListMap, Keys: []string{"name"}}},
		{container, "ports", schema.ListMerge{Type: schema.ListMap, Keys: []string{"containerPort", "protocol"}, KeyDefaults: map[string]any{"protocol": "TCP"}}},
		{serviceSpec, "ports", schema.ListMerge{Type: schema.ListMap, Keys: []string{"port", "protocol"}, KeyDefaults: map[string]any{"protocol": "TCP"}}},
		{meta, "finalizers", schema.ListMerge{Type: schema.ListSet}},
		{container, "args", schema.ListMerge{Type: schema.ListAtomic}},
		{container, "image", schema.ListMerge{Type: schema.ListAtomic}},
	}
	for _, tt := range tests {
		if got := schema.ListMergeOf(tt.owner, tt.owner.Field(tt.field)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s.%s: %+v, want %+v", tt.owner.Go.Name(), tt.field, got, tt.want)
		}
	}
	if !schema.AtomicStruct(schema.Of(reflect.TypeFor[api.LabelSelector]())) || schema.AtomicStruct(container) {
		t.Errorf("AtomicStruct: want LabelSelector atomic and Container not")
	}
}
