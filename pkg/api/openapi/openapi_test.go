package openapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/api/schema"
)

func TestSchemaNames(t *testing.T) {
	tests := []struct {
		goType reflect.Type
		want   string
	}{
		{reflect.TypeFor[api.PodSpec](), "io.k8s.api.core.v1.PodSpec"},
		{reflect.TypeFor[*api.Pod](), "io.k8s.api.core.v1.Pod"},
		{reflect.TypeFor[api.ConfigMap](), "io.k8s.api.core.v1.ConfigMap"},
		{reflect.TypeFor[api.Deployment](), "io.k8s.api.apps.v1.Deployment"},
		{reflect.TypeFor[api.Job](), "io.k8s.api.batch.v1.Job"},
		{reflect.TypeFor[api.HorizontalPodAutoscaler](), "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"},
		{reflect.TypeFor[api.Scale](), "io.k8s.api.autoscaling.v1.Scale"},
		{reflect.TypeFor[api.HorizontalPodAutoscalerV1](), "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler"},
		{reflect.TypeFor[api.HorizontalPodAutoscalerV1Spec](), "io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerSpec"},
		{reflect.TypeFor[api.Lease](), "io.k8s.api.coordination.v1.Lease"},
		{reflect.TypeFor[api.ClusterRole](), "io.k8s.api.rbac.v1.ClusterRole"},
		{reflect.TypeFor[api.ObjectMeta](), "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
		{reflect.TypeFor[api.ListMeta](), "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"},
		{reflect.TypeFor[api.OwnerReference](), "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"},
		{reflect.TypeFor[api.ManagedFieldsEntry](), "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry"},
		{reflect.TypeFor[api.LabelSelector](), "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"},
		{reflect.TypeFor[api.Condition](), "io.k8s.apimachinery.pkg.apis.meta.v1.Condition"},
		{reflect.TypeFor[api.Time](), "io.k8s.apimachinery.pkg.apis.meta.v1.Time"},
		{reflect.TypeFor[api.MicroTime](), "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"},
		{reflect.TypeFor[api.Quantity](), "io.k8s.apimachinery.pkg.api.resource.Quantity"},
		{reflect.TypeFor[api.IntOrString](), "io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
		{reflect.TypeFor[api.EndpointSlice](), "io.k8s.api.discovery.v1.EndpointSlice"},
		{reflect.TypeFor[api.EndpointSlicePort](), "io.k8s.api.discovery.v1.EndpointPort"},
		{reflect.TypeFor[api.EndpointPort](), "io.k8s.api.core.v1.EndpointPort"},
		{reflect.TypeFor[schema.Field](), "kplane.pkg.api.schema.Field"},
	}
	for _, tt := range tests {
		if got := SchemaName(tt.goType); got != tt.want {
			t.Errorf("SchemaName(%v) = %q, want %q", tt.goType, got, tt.want)
		}
	}
}

// TestFileGroups checks the file-to-group rule on files that may come and
// go: discovery.go is discovery.k8s.io/v1, and an unlisted file is the
// group it is named after.
func TestFileGroups(t *testing.T) {
	saved := sourceFiles
	t.Cleanup(func() { sourceFiles = saved })
	sourceFiles = map[string]string{"EndpointSlice": "discovery.go", "StorageClass": "storage.go", "Pod": "core_pod.go"}
	for name, want := range map[string]string{
		"EndpointSlice": "io.k8s.api.discovery.v1",
		"StorageClass":  "io.k8s.api.storage.v1",
		"Pod":           "io.k8s.api.core.v1",
		"Unknown":       "kplane.pkg.api",
	} {
		if got := upstreamPackage(name); got != want {
			t.Errorf("upstreamPackage(%q) = %q, want %q", name, got, want)
		}
	}
}

// servedKinds is a sample of kinds from several groups.
var servedKinds = []Kind{
	{GroupVersionKind{"", "v1", "Pod"}, reflect.TypeFor[api.Pod]()},
	{GroupVersionKind{"", "v1", "Service"}, reflect.TypeFor[api.Service]()},
	{GroupVersionKind{"", "v1", "Node"}, reflect.TypeFor[api.Node]()},
	{GroupVersionKind{"", "v1", "Event"}, reflect.TypeFor[api.Event]()},
	{GroupVersionKind{"apps", "v1", "Deployment"}, reflect.TypeFor[api.Deployment]()},
	{GroupVersionKind{"apps", "v1", "ControllerRevision"}, reflect.TypeFor[api.ControllerRevision]()},
	{GroupVersionKind{"batch", "v1", "CronJob"}, reflect.TypeFor[api.CronJob]()},
	{GroupVersionKind{"autoscaling", "v2", "HorizontalPodAutoscaler"}, reflect.TypeFor[api.HorizontalPodAutoscaler]()},
	{GroupVersionKind{"autoscaling", "v1", "HorizontalPodAutoscaler"}, reflect.TypeFor[api.HorizontalPodAutoscalerV1]()},
}

// property follows a path of field names from the component named root,
// through $refs, items and additionalProperties, and returns the last
// field's property schema.
func property(t *testing.T, schemas map[string]*Schema, root string, path ...string) *Schema {
	t.Helper()
	current := schemas[root]
	if current == nil {
		t.Fatalf("no schema %s", root)
	}
	var prop *Schema
	for _, name := range path {
		current = dereference(t, schemas, current)
		prop = current.Properties[name]
		if prop == nil {
			t.Fatalf("%s %v: no property %q", root, path, name)
		}
		current = prop
	}
	return prop
}

// dereference looks through lists, maps and allOf references to the
// schema that has the properties.
func dereference(t *testing.T, schemas map[string]*Schema, s *Schema) *Schema {
	t.Helper()
	for {
		switch {
		case s.Items != nil:
			s = s.Items
		case s.AdditionalProperties != nil:
			s = s.AdditionalProperties
		case len(s.AllOf) == 1:
			s = s.AllOf[0]
		case s.Ref != "":
			target := schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
			if target == nil {
				t.Fatalf("dangling $ref %s", s.Ref)
			}
			s = target
		default:
			return s
		}
	}
}

func TestComponentShapes(t *testing.T) {
	schemas := ComponentSchemas(servedKinds)
	const (
		pod        = "io.k8s.api.core.v1.Pod"
		deployment = "io.k8s.api.apps.v1.Deployment"
	)

	if got := schemas[deployment].GroupVersionKinds; !reflect.DeepEqual(got, []GroupVersionKind{{"apps", "v1", "Deployment"}}) {
		t.Errorf("Deployment GVK = %v", got)
	}
	if got := schemas[pod].GroupVersionKinds; !reflect.DeepEqual(got, []GroupVersionKind{{"", "v1", "Pod"}}) {
		t.Errorf("Pod GVK = %v", got)
	}
	if got := schemas["io.k8s.api.core.v1.PodSpec"].GroupVersionKinds; got != nil {
		t.Errorf("PodSpec is not a kind, has GVK %v", got)
	}
	if d := schemas[deployment]; d.Type != "object" || d.Description == "" {
		t.Errorf("Deployment schema: type %q, description %q", d.Type, d.Description)
	}

	// A struct field: description, default {} and one allOf $ref.
	spec := property(t, schemas, pod, "spec")
	if len(spec.AllOf) != 1 || spec.AllOf[0].Ref != "#/components/schemas/io.k8s.api.core.v1.PodSpec" ||
		!reflect.DeepEqual(spec.Default, map[string]any{}) || spec.Type != "" {
		t.Errorf("pod.spec = %+v", spec)
	}
	// A pointer to a struct may be null: no default.
	if affinity := property(t, schemas, pod, "spec", "affinity"); affinity.Default != nil || len(affinity.AllOf) != 1 {
		t.Errorf("pod.spec.affinity = %+v", affinity)
	}

	// A list of structs, with the merge hints kubectl apply reads.
	containers := property(t, schemas, pod, "spec", "containers")
	if containers.Type != "array" || containers.Items == nil || len(containers.Items.AllOf) != 1 ||
		containers.Items.AllOf[0].Ref != "#/components/schemas/io.k8s.api.core.v1.Container" {
		t.Errorf("pod.spec.containers = %+v", containers)
	}
	if !slices.Contains(schemas["io.k8s.api.core.v1.PodSpec"].Required, "containers") ||
		slices.Contains(schemas["io.k8s.api.core.v1.PodSpec"].Required, "volumes") {
		t.Errorf("PodSpec required = %v", schemas["io.k8s.api.core.v1.PodSpec"].Required)
	}

	patchHints := []struct {
		root          string
		path          []string
		strategy, key string
		listType      string
	}{
		{pod, []string{"spec", "containers"}, "merge", "name", "map"},
		{pod, []string{"spec", "containers", "ports"}, "merge", "containerPort", "map"},
		{pod, []string{"spec", "containers", "env"}, "merge", "name", "map"},
		{pod, []string{"spec", "containers", "volumeMounts"}, "merge", "mountPath", "map"},
		{pod, []string{"spec", "volumes"}, "merge,retainKeys", "name", "map"},
		{pod, []string{"metadata", "ownerReferences"}, "merge", "uid", "map"},
		{pod, []string{"metadata", "finalizers"}, "merge", "", "set"},
		{pod, []string{"status", "conditions"}, "merge", "type", "map"},
		{deployment, []string{"spec", "strategy"}, "retainKeys", "", ""},
		{deployment, []string{"spec", "template", "spec", "containers"}, "merge", "name", "map"},
		{deployment, []string{"spec", "replicas"}, "", "", ""},
	}
	// A container's ports are keyed by number and protocol, as upstream's
	// +listMapKey markers say, beyond the patchMergeKey.
	keysBeyondMergeKey := map[string][]string{"spec.containers.ports": {"containerPort", "protocol"}}
	for _, h := range patchHints {
		p := property(t, schemas, h.root, h.path...)
		if p.PatchStrategy != h.strategy || p.PatchMergeKey != h.key || p.ListType != h.listType {
			t.Errorf("%s %v: strategy %q key %q listType %q, want %q %q %q",
				h.root, h.path, p.PatchStrategy, p.PatchMergeKey, p.ListType, h.strategy, h.key, h.listType)
		}
		wantKeys := []string{h.key}
		if keys, ok := keysBeyondMergeKey[strings.Join(h.path, ".")]; ok {
			wantKeys = keys
		}
		if h.key != "" && !reflect.DeepEqual(p.ListMapKeys, wantKeys) {
			t.Errorf("%s %v: list-map-keys %v", h.root, h.path, p.ListMapKeys)
		}
	}

	// Primitives.
	for _, p := range []struct {
		path         []string
		typ, format  string
		additionalOf string
	}{
		{[]string{"spec", "replicas"}, "integer", "int32", ""},
		{[]string{"spec", "paused"}, "boolean", "", ""},
		{[]string{"spec", "template", "metadata", "generation"}, "integer", "int64", ""},
		{[]string{"spec", "template", "metadata", "labels"}, "object", "", "string"},
		{[]string{"kind"}, "string", "", ""},
	} {
		got := property(t, schemas, deployment, p.path...)
		if got.Type != p.typ || got.Format != p.format {
			t.Errorf("deployment %v = %s/%s, want %s/%s", p.path, got.Type, got.Format, p.typ, p.format)
		}
		if p.additionalOf != "" && (got.AdditionalProperties == nil || got.AdditionalProperties.Type != p.additionalOf) {
			t.Errorf("deployment %v: additionalProperties %+v", p.path, got.AdditionalProperties)
		}
	}

	// Self-encoding types are components: timestamps are strings, Quantity
	// and IntOrString have no single type.
	created := property(t, schemas, pod, "metadata", "creationTimestamp")
	if len(created.AllOf) != 1 || created.AllOf[0].Ref != "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time" {
		t.Errorf("creationTimestamp = %+v", created)
	}
	if ts := schemas["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]; ts.Type != "string" || ts.Format != "date-time" || ts.Description == "" {
		t.Errorf("Time = %+v", ts)
	}
	limits := property(t, schemas, pod, "spec", "containers", "resources", "limits")
	if limits.Type != "object" || limits.AdditionalProperties == nil ||
		limits.AdditionalProperties.AllOf[0].Ref != "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity" {
		t.Errorf("limits = %+v", limits)
	}
	if q := schemas["io.k8s.apimachinery.pkg.api.resource.Quantity"]; q.Type != "" || len(q.OneOf) != 2 {
		t.Errorf("Quantity = %+v", q)
	}
	maxSurge := property(t, schemas, deployment, "spec", "strategy", "rollingUpdate", "maxSurge")
	if maxSurge.AllOf[0].Ref != "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString" {
		t.Errorf("maxSurge = %+v", maxSurge)
	}
	if ios := schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]; ios.Type != "" || !ios.IntOrString {
		t.Errorf("IntOrString = %+v", ios)
	}
	if fields := property(t, schemas, pod, "metadata", "managedFields", "fieldsV1"); fields.AllOf[0].Ref != "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1" {
		t.Errorf("fieldsV1 = %+v", fields)
	}
	if data := property(t, schemas, "io.k8s.api.apps.v1.ControllerRevision", "data"); data.AllOf[0].Ref != "#/components/schemas/io.k8s.apimachinery.pkg.runtime.RawExtension" {
		t.Errorf("controllerrevision.data = %+v", data)
	}

	// Descriptions come from the doc comments: a field's own, and the
	// promoted TypeMeta fields' from TypeMeta.
	if d := property(t, schemas, "io.k8s.api.core.v1.Event", "reportingComponent").Description; d != docs["Event.ReportingController"] || d == "" {
		t.Errorf("reportingComponent description = %q", d)
	}
	saved, had := docs["TypeMeta.Kind"]
	t.Cleanup(func() {
		if had {
			docs["TypeMeta.Kind"] = saved
		} else {
			delete(docs, "TypeMeta.Kind")
		}
	})
	docs["TypeMeta.Kind"] = "Kind is the object's kind."
	if d := property(t, ComponentSchemas(servedKinds), deployment, "kind").Description; d != "Kind is the object's kind." {
		t.Errorf("kind description = %q, want TypeMeta.Kind's", d)
	}
}

// TestEveryRefResolvesAndHintsMatch walks the described types of the
// sample kinds: every $ref names a schema in the set, and every field's
// patch hints are exactly its struct tags' (as pkg/api/schema reads them),
// since kubectl apply trusts them over its own types.
func TestEveryRefResolvesAndHintsMatch(t *testing.T) {
	schemas := ComponentSchemas(servedKinds)
	body, err := json.Marshal(schemas)
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range refsIn(string(body)) {
		if schemas[strings.TrimPrefix(ref, "#/components/schemas/")] == nil {
			t.Errorf("dangling $ref %s", ref)
		}
	}

	seen := map[*schema.Type]bool{}
	var walk func(typ *schema.Type)
	walk = func(typ *schema.Type) {
		if typ == nil || seen[typ] {
			return
		}
		seen[typ] = true
		switch typ.Kind {
		case schema.List, schema.Map:
			walk(typ.Elem)
		case schema.Object:
			component := schemas[SchemaName(typ.Go)]
			if component == nil {
				t.Errorf("no schema for %v", typ.Go)
				return
			}
			for _, f := range typ.Fields {
				p := component.Properties[f.Name]
				if p == nil {
					t.Errorf("%v: no property %q", typ.Go, f.Name)
					continue
				}
				if p.PatchStrategy != f.PatchStrategy || p.PatchMergeKey != f.PatchMergeKey {
					t.Errorf("%v.%s: hints %q/%q, tags say %q/%q", typ.Go, f.Name, p.PatchStrategy, p.PatchMergeKey, f.PatchStrategy, f.PatchMergeKey)
				}
				walk(f.Type)
			}
		}
	}
	for _, k := range servedKinds {
		walk(schema.Of(k.GoType))
	}
}

// refsIn returns the "$ref" values in a JSON text.
func refsIn(text string) []string {
	var refs []string
	const marker = `"$ref":"`
	for {
		i := strings.Index(text, marker)
		if i < 0 {
			return refs
		}
		text = text[i+len(marker):]
		refs = append(refs, text[:strings.IndexByte(text, '"')])
	}
}

// loop is a type that contains itself through a list and a pointer.
type loop struct {
	Name     string `json:"name"`
	Children []loop `json:"children,omitempty"`
	Next     *loop  `json:"next,omitempty"`
}

func TestSelfReferenceEndsInARef(t *testing.T) {
	schemas := ComponentSchemas([]Kind{{GroupVersionKind{"test", "v1", "Loop"}, reflect.TypeFor[loop]()}})
	name := "kplane.pkg.api.openapi.loop"
	s := schemas[name]
	if s == nil || len(schemas) != 1 {
		t.Fatalf("schemas = %v", schemas)
	}
	if s.Properties["children"].Items.AllOf[0].Ref != Ref(name) || s.Properties["next"].AllOf[0].Ref != Ref(name) {
		t.Errorf("loop = %+v", s)
	}
	if !reflect.DeepEqual(s.Required, []string{"name"}) {
		t.Errorf("required = %v", s.Required)
	}
}
