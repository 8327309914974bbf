package schema_test

import (
	"reflect"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/api/schema"
)

// TestAPITypes checks the description of kplane's real API types against
// the merge keys upstream uses.
func TestAPITypes(t *testing.T) {
	pod := schema.Of(reflect.TypeFor[api.Pod]())
	deployment := schema.Of(reflect.TypeFor[api.Deployment]())

	tests := []struct {
		root          *schema.Type
		path          []string
		kind          schema.Kind
		patchStrategy string
		mergeKey      string
	}{
		{pod, []string{"kind"}, schema.Leaf, "", ""},
		{pod, []string{"metadata", "finalizers"}, schema.List, "merge", ""},
		{pod, []string{"metadata", "ownerReferences"}, schema.List, "merge", "uid"},
		{pod, []string{"spec", "containers"}, schema.List, "merge", "name"},
		{pod, []string{"spec", "volumes"}, schema.List, "merge,retainKeys", "name"},
		{pod, []string{"spec", "containers", "ports"}, schema.List, "merge", "containerPort"},
		{pod, []string{"spec", "containers", "env"}, schema.List, "merge", "name"},
		{pod, []string{"spec", "containers", "volumeMounts"}, schema.List, "merge", "mountPath"},
		{pod, []string{"spec", "containers", "resources", "limits"}, schema.Map, "", ""},
		{pod, []string{"spec", "ephemeralContainers", "name"}, schema.Leaf, "", ""},
		{pod, []string{"status", "conditions"}, schema.List, "merge", "type"},
		{pod, []string{"status", "startTime"}, schema.Leaf, "", ""},
		{deployment, []string{"spec", "strategy"}, schema.Object, "retainKeys", ""},
		{deployment, []string{"spec", "strategy", "rollingUpdate", "maxSurge"}, schema.Leaf, "", ""},
		{deployment, []string{"spec", "template", "spec", "containers"}, schema.List, "merge", "name"},
		{deployment, []string{"spec", "template", "metadata", "labels"}, schema.Map, "", ""},
	}
	for _, tc := range tests {
		typ := tc.root
		var field *schema.Field
		for _, name := range tc.path {
			if typ.Kind == schema.List {
				typ = typ.Elem
			}
			if field = typ.Field(name); field == nil {
				t.Fatalf("%v: no field %q in %v", tc.path, name, typ.Go)
			}
			typ = field.Type
		}
		if typ.Kind != tc.kind || field.PatchStrategy != tc.patchStrategy || field.PatchMergeKey != tc.mergeKey {
			t.Errorf("%s %v = %v %q %q, want %v %q %q", tc.root.Go.Name(), tc.path,
				typ.Kind, field.PatchStrategy, field.PatchMergeKey, tc.kind, tc.patchStrategy, tc.mergeKey)
		}
	}
	if limits := pod.Field("spec").Type.Field("containers").Type.Elem.Field("resources").Type.Field("limits").Type; limits.Elem.Kind != schema.Leaf {
		t.Errorf("a Quantity should be a Leaf, got %v", limits.Elem.Kind)
	}
}

// TestAPITypesMergeKeysExist walks every type reachable from the top-level
// kinds and checks that each merging list of objects names a merge key its
// elements really have: a typo there would silently break kubectl apply.
func TestAPITypesMergeKeysExist(t *testing.T) {
	roots := []any{
		api.Pod{}, api.Deployment{}, api.ReplicaSet{}, api.StatefulSet{}, api.DaemonSet{},
		api.Job{}, api.CronJob{}, api.Service{}, api.Node{}, api.Namespace{},
		api.PersistentVolumeClaim{}, api.ServiceAccount{}, api.HorizontalPodAutoscaler{},
	}
	seen := map[*schema.Type]bool{}
	var walk func(typ *schema.Type, path string)
	walk = func(typ *schema.Type, path string) {
		if typ == nil || seen[typ] {
			return
		}
		seen[typ] = true
		switch typ.Kind {
		case schema.Object:
			for _, f := range typ.Fields {
				fieldPath := path + "." + f.Name
				if f.HasPatchStrategy(schema.StrategyMerge) && f.Type.Kind == schema.List && f.Type.Elem.Kind == schema.Object {
					if f.PatchMergeKey == "" || f.Type.Elem.Field(f.PatchMergeKey) == nil {
						t.Errorf("%s: merge key %q is not a field of %v", fieldPath, f.PatchMergeKey, f.Type.Elem.Go)
					}
				}
				walk(f.Type, fieldPath)
			}
		case schema.List, schema.Map:
			walk(typ.Elem, path+"[]")
		}
	}
	for _, root := range roots {
		typ := schema.Of(reflect.TypeOf(root))
		walk(typ, typ.Go.Name())
	}
}

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
