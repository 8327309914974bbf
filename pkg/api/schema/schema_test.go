package schema_test

import (
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/api/schema"
)

// The test types mimic the shape of kplane's API types: TypeMeta inlined,
// ObjectMeta under "metadata", lists carrying upstream's patch tags.
type testPod struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata,omitempty"`
	Spec           testPodSpec `json:"spec,omitempty"`
	Status         *testStatus `json:"status,omitempty"`
	Hidden         string      `json:"-"`
	Dash           string      `json:"-,"`
	Untagged       int         `json:",omitempty"`
	unexported     string
	Raw            json.RawMessage `json:"raw,omitempty"`
	Any            any             `json:"any,omitempty"`
	Bytes          []byte          `json:"bytes,omitempty"`
	Grid           [2]int          `json:"grid,omitempty"`
	Duration       time.Duration   `json:"duration,omitempty"`
	Timestamp      time.Time       `json:"timestamp,omitempty"`
}

type testPodSpec struct {
	Containers []testContainer   `json:"containers" patchStrategy:"merge" patchMergeKey:"name"`
	Volumes    []testVolume      `json:"volumes,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name"`
	Selector   map[string]string `json:"nodeSelector,omitempty"`
}

type testContainer struct {
	Name  string         `json:"name"`
	Ports []testPort     `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"containerPort"`
	Next  *testContainer `json:"next,omitempty"` // a cycle
}

type testPort struct {
	ContainerPort int32 `json:"containerPort"`
}

type testVolume struct {
	Name string `json:"name"`
}

type testStatus struct {
	Conditions []api.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	StartTime  *api.Time       `json:"startTime,omitempty"`
}

func TestOfPodLikeType(t *testing.T) {
	pod := schema.Of(reflect.TypeFor[*testPod]())
	if pod.Kind != schema.Object || pod.Go != reflect.TypeFor[testPod]() {
		t.Fatalf("Of(*testPod) = %v %v, want Object testPod", pod.Kind, pod.Go)
	}

	var names []string
	for _, f := range pod.Fields {
		names = append(names, f.Name)
	}
	want := []string{"kind", "apiVersion", "metadata", "spec", "status", "-", "Untagged", "raw", "any", "bytes", "grid", "duration", "timestamp"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("fields = %v\nwant     %v", names, want)
	}

	tests := []struct {
		path          []string
		kind          schema.Kind
		omitEmpty     bool
		patchStrategy string
		mergeKey      string
	}{
		{path: []string{"kind"}, kind: schema.Leaf, omitEmpty: true},
		{path: []string{"metadata"}, kind: schema.Object, omitEmpty: true},
		{path: []string{"metadata", "labels"}, kind: schema.Map, omitEmpty: true},
		{path: []string{"metadata", "finalizers"}, kind: schema.List, omitEmpty: true, patchStrategy: "merge"},
		{path: []string{"metadata", "ownerReferences"}, kind: schema.List, omitEmpty: true, patchStrategy: "merge", mergeKey: "uid"},
		{path: []string{"metadata", "creationTimestamp"}, kind: schema.Leaf, omitEmpty: true},
		{path: []string{"metadata", "managedFields"}, kind: schema.List, omitEmpty: true},
		{path: []string{"spec", "containers"}, kind: schema.List, patchStrategy: "merge", mergeKey: "name"},
		{path: []string{"spec", "volumes"}, kind: schema.List, omitEmpty: true, patchStrategy: "merge,retainKeys", mergeKey: "name"},
		{path: []string{"spec", "nodeSelector"}, kind: schema.Map, omitEmpty: true},
		{path: []string{"status", "conditions"}, kind: schema.List, omitEmpty: true, patchStrategy: "merge", mergeKey: "type"},
		{path: []string{"status", "startTime"}, kind: schema.Leaf, omitEmpty: true},
		{path: []string{"raw"}, kind: schema.Leaf, omitEmpty: true},
		{path: []string{"any"}, kind: schema.Leaf, omitEmpty: true},
		{path: []string{"bytes"}, kind: schema.Leaf, omitEmpty: true},
		{path: []string{"grid"}, kind: schema.List, omitEmpty: true},
		{path: []string{"duration"}, kind: schema.Leaf, omitEmpty: true},
		{path: []string{"timestamp"}, kind: schema.Leaf, omitEmpty: true},
		{path: []string{"Untagged"}, kind: schema.Leaf, omitEmpty: true},
	}
	for _, tc := range tests {
		typ := pod
		var field *schema.Field
		for _, name := range tc.path {
			if typ.Kind == schema.List {
				typ = typ.Elem
			}
			field = typ.Field(name)
			if field == nil {
				t.Fatalf("%v: no field %q", tc.path, name)
			}
			typ = field.Type
		}
		if field.Type.Kind != tc.kind || field.OmitEmpty != tc.omitEmpty ||
			field.PatchStrategy != tc.patchStrategy || field.PatchMergeKey != tc.mergeKey {
			t.Errorf("%v = {kind %v omitempty %v strategy %q key %q}, want {%v %v %q %q}", tc.path,
				field.Type.Kind, field.OmitEmpty, field.PatchStrategy, field.PatchMergeKey,
				tc.kind, tc.omitEmpty, tc.patchStrategy, tc.mergeKey)
		}
	}

	for _, hidden := range []string{"Hidden", "hidden", "unexported", "TypeMeta", "ObjectMeta", "Kind"} {
		if pod.Field(hidden) != nil {
			t.Errorf("field %q should not be visible", hidden)
		}
	}
}

func TestListAndMapElements(t *testing.T) {
	spec := schema.Of(reflect.TypeFor[testPodSpec]())
	containers := spec.Field("containers").Type
	if containers.Elem == nil || containers.Elem.Kind != schema.Object || containers.Elem.Go != reflect.TypeFor[testContainer]() {
		t.Fatalf("containers elem = %+v, want Object testContainer", containers.Elem)
	}
	if port := containers.Elem.Field("ports").Type.Elem.Field("containerPort"); port == nil || port.GoName != "ContainerPort" {
		t.Errorf("ports[].containerPort = %+v", port)
	}
	selector := spec.Field("nodeSelector").Type
	if selector.Elem.Kind != schema.Leaf || selector.Elem.Go.Kind() != reflect.String {
		t.Errorf("nodeSelector elem = %+v, want Leaf string", selector.Elem)
	}
	// A recursive type ends in a cycle, not endless recursion.
	next := containers.Elem.Field("next").Type
	if next != containers.Elem {
		t.Errorf("containers[].next should be the container type itself")
	}
}

func TestHasPatchStrategy(t *testing.T) {
	volumes := schema.Of(reflect.TypeFor[testPodSpec]()).Field("volumes")
	tests := []struct {
		strategy string
		want     bool
	}{
		{schema.StrategyMerge, true},
		{schema.StrategyRetainKeys, true},
		{schema.StrategyReplace, false},
		{"merg", false},
	}
	for _, tc := range tests {
		if got := volumes.HasPatchStrategy(tc.strategy); got != tc.want {
			t.Errorf("HasPatchStrategy(%q) = %v, want %v", tc.strategy, got, tc.want)
		}
	}
	var none *schema.Field
	if none.HasPatchStrategy(schema.StrategyMerge) {
		t.Errorf("nil field has no strategy")
	}
}

// Field name conflicts are resolved as encoding/json does.
type inner struct {
	Name  string `json:"name"`
	Depth string `json:"depth"`
	Tie   string `json:"tie"`
	Other string
}

type innerToo struct {
	Tie    string `json:"tie"`
	Tagged string `json:"Other"`
}

type conflicts struct {
	inner
	*innerToo
	Depth int `json:"depth"`
}

func TestEmbeddingRulesMatchEncodingJSON(t *testing.T) {
	typ := schema.Of(reflect.TypeFor[conflicts]())
	if f := typ.Field("depth"); f == nil || f.Type.Go.Kind() != reflect.Int {
		t.Errorf("the shallower depth field should win, got %+v", f)
	}
	if typ.Field("tie") != nil {
		t.Errorf("two tagged fields at the same depth hide each other")
	}
	if f := typ.Field("Other"); f == nil || f.GoName != "Tagged" {
		t.Errorf("a tagged field beats an untagged one at the same depth, got %+v", f)
	}
	if f := typ.Field("name"); f == nil || !reflect.DeepEqual(f.Index, []int{0, 0}) {
		t.Errorf("promoted field index = %+v, want [0 0]", f)
	}

	// Cross-check against encoding/json itself.
	encoded, err := json.Marshal(conflicts{inner: inner{Name: "n", Tie: "t", Other: "o"}, innerToo: &innerToo{Tie: "t2", Tagged: "x"}, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(encoded, &keys); err != nil {
		t.Fatal(err)
	}
	for key := range keys {
		if typ.Field(key) == nil {
			t.Errorf("encoding/json writes %q, schema does not know it", key)
		}
	}
	if len(keys) != len(typ.Fields) {
		t.Errorf("encoding/json writes %d keys %v, schema has %d fields", len(keys), keys, len(typ.Fields))
	}
}

func TestLeafTypes(t *testing.T) {
	leaves := []reflect.Type{
		reflect.TypeFor[api.Time](),
		reflect.TypeFor[*api.MicroTime](),
		reflect.TypeFor[json.RawMessage](),
		reflect.TypeFor[any](),
		reflect.TypeFor[string](),
		reflect.TypeFor[[]byte](),
		reflect.TypeFor[time.Time](),
	}
	for _, typ := range leaves {
		if got := schema.Of(typ).Kind; got != schema.Leaf {
			t.Errorf("Of(%v).Kind = %v, want Leaf", typ, got)
		}
	}
	if schema.Of(nil) != nil {
		t.Errorf("Of(nil) should be nil")
	}
	var nothing *schema.Type
	if nothing.Field("x") != nil {
		t.Errorf("nil Type has no fields")
	}
}

func TestOfIsCachedAndConcurrencySafe(t *testing.T) {
	type fresh struct {
		Items []struct {
			Name string `json:"name"`
		} `json:"items"`
	}
	var wg sync.WaitGroup
	results := make([]*schema.Type, 16)
	for i := range results {
		wg.Go(func() { results[i] = schema.Of(reflect.TypeFor[fresh]()) })
	}
	wg.Wait()
	for _, r := range results {
		if r != results[0] {
			t.Fatalf("Of returned different Types for one Go type")
		}
	}
	if schema.Of(reflect.TypeFor[*fresh]()) != results[0] {
		t.Errorf("Of(*T) should equal Of(T)")
	}
}

func TestKindString(t *testing.T) {
	for kind, want := range map[schema.Kind]string{schema.Leaf: "Leaf", schema.Object: "Object", schema.Map: "Map", schema.List: "List"} {
		if kind.String() != want {
			t.Errorf("%d.String() = %q, want %q", kind, kind.String(), want)
		}
	}
}
