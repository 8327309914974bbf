package validation

import (
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
)

func TestValidateObjectMeta(t *testing.T) {
	yes := true
	tests := []struct {
		name       string
		meta       api.ObjectMeta
		namespaced bool
		want       []fieldErr
	}{
		{"valid namespaced", api.ObjectMeta{Name: "web", Namespace: "default"}, true, nil},
		{"valid cluster-scoped", api.ObjectMeta{Name: "node-1"}, false, nil},
		{"generateName only", api.ObjectMeta{GenerateName: "web-", Namespace: "default"}, true, nil},
		{"no name", api.ObjectMeta{Namespace: "default"}, true, []fieldErr{{required, "metadata.name"}}},
		{"bad name", api.ObjectMeta{Name: "Foo_bar", Namespace: "default"}, true, []fieldErr{{invalid, "metadata.name"}}},
		{"bad generateName", api.ObjectMeta{GenerateName: "Web-", Namespace: "default"}, true, []fieldErr{{invalid, "metadata.generateName"}}},
		{"missing namespace", api.ObjectMeta{Name: "web"}, true, []fieldErr{{required, "metadata.namespace"}}},
		{"bad namespace", api.ObjectMeta{Name: "web", Namespace: "a.b"}, true, []fieldErr{{invalid, "metadata.namespace"}}},
		{"namespace on cluster-scoped", api.ObjectMeta{Name: "n", Namespace: "default"}, false, []fieldErr{{forbidden, "metadata.namespace"}}},
		{"negative generation", api.ObjectMeta{Name: "n", Generation: -1}, false, []fieldErr{{invalid, "metadata.generation"}}},
		{"bad label key and value", api.ObjectMeta{Name: "n", Labels: map[string]string{"a/b/c": "ok", "ok": "not ok"}}, false,
			[]fieldErr{{invalid, "metadata.labels"}, {invalid, "metadata.labels"}}},
		{"bad annotation key", api.ObjectMeta{Name: "n", Annotations: map[string]string{"-x": ""}}, false, []fieldErr{{invalid, "metadata.annotations"}}},
		{"upper-case annotation key ok", api.ObjectMeta{Name: "n", Annotations: map[string]string{"Example.COM/Key": "v"}}, false, nil},
		{"annotations too big", api.ObjectMeta{Name: "n", Annotations: map[string]string{"big": strings.Repeat("x", TotalAnnotationSizeLimitB)}}, false,
			[]fieldErr{{tooLongType, "metadata.annotations"}}},
		{"incomplete owner reference", api.ObjectMeta{Name: "n", OwnerReferences: []api.OwnerReference{{APIVersion: "apps/", Kind: "ReplicaSet"}}}, false,
			[]fieldErr{{invalid, "metadata.ownerReferences[0].apiVersion"}, {invalid, "metadata.ownerReferences[0].name"}, {invalid, "metadata.ownerReferences[0].uid"}}},
		{"two controllers", api.ObjectMeta{Name: "n", OwnerReferences: []api.OwnerReference{
			{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "a", UID: "1", Controller: &yes},
			{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "b", UID: "2", Controller: &yes},
		}}, false, []fieldErr{{invalid, "metadata.ownerReferences"}}},
		{"event as owner", api.ObjectMeta{Name: "n", OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "Event", Name: "e", UID: "1"}}}, false,
			[]fieldErr{{invalid, "metadata.ownerReferences[0]"}}},
		{"bad finalizer", api.ObjectMeta{Name: "n", Finalizers: []string{"kubernetes.io/pv-protection", "bad finalizer"}}, false,
			[]fieldErr{{invalid, "metadata.finalizers"}}},
		{"conflicting finalizers", api.ObjectMeta{Name: "n", Finalizers: []string{"orphan", "foregroundDeletion"}}, false,
			[]fieldErr{{invalid, "metadata.finalizers"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectFields(t, ValidateObjectMeta(&tt.meta, tt.namespaced, NameIsDNSSubdomain, "metadata"), tt.want...)
		})
	}
}

func TestValidateObjectMetaMessages(t *testing.T) {
	meta := api.ObjectMeta{Name: "Foo_bar", Namespace: "default"}
	expectMessages(t, ValidateObjectMeta(&meta, true, NameIsDNSSubdomain, "metadata"),
		`metadata.name: Invalid value: "Foo_bar": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`)

	meta = api.ObjectMeta{Namespace: "default"}
	expectMessages(t, ValidateObjectMeta(&meta, true, NameIsDNSSubdomain, "metadata"),
		`metadata.name: Required value: name or generateName is required`)

	meta = api.ObjectMeta{Name: "x", Annotations: map[string]string{"big": strings.Repeat("x", TotalAnnotationSizeLimitB)}}
	expectMessages(t, ValidateObjectMeta(&meta, false, NameIsDNSSubdomain, "metadata"),
		`metadata.annotations: Too long: may not be more than 262144 bytes`)
}

func TestValidateObjectMetaUpdate(t *testing.T) {
	created := api.NewTime(time.Date(2024, 9, 21, 2, 49, 58, 0, time.UTC))
	old := api.ObjectMeta{Name: "web", Namespace: "default", UID: "u1", ResourceVersion: "7", Generation: 2, CreationTimestamp: created}
	deleting := old
	now := api.NewTime(time.Date(2024, 9, 22, 0, 0, 0, 0, time.UTC))
	deleting.DeletionTimestamp = &now
	deleting.Finalizers = []string{"a.io/keep"}
	tests := []struct {
		name   string
		old    api.ObjectMeta
		mutate func(m *api.ObjectMeta)
		want   []fieldErr
	}{
		{"labels may change", old, func(m *api.ObjectMeta) { m.Labels = map[string]string{"tier": "web"} }, nil},
		{"same instant in another zone", old, func(m *api.ObjectMeta) { m.CreationTimestamp = api.NewTime(created.In(time.FixedZone("x", 3600))) }, nil},
		{"uid and timestamp not sent", old, func(m *api.ObjectMeta) { m.UID = ""; m.CreationTimestamp = api.Time{} }, nil},
		{"name changed", old, func(m *api.ObjectMeta) { m.Name = "other" }, []fieldErr{{invalid, "metadata.name"}}},
		{"namespace changed", old, func(m *api.ObjectMeta) { m.Namespace = "kube-system" }, []fieldErr{{invalid, "metadata.namespace"}}},
		{"uid changed", old, func(m *api.ObjectMeta) { m.UID = "u2" }, []fieldErr{{invalid, "metadata.uid"}}},
		{"creationTimestamp changed", old, func(m *api.ObjectMeta) { m.CreationTimestamp = now }, []fieldErr{{invalid, "metadata.creationTimestamp"}}},
		{"no resourceVersion", old, func(m *api.ObjectMeta) { m.ResourceVersion = "" }, []fieldErr{{invalid, "metadata.resourceVersion"}}},
		{"generation decremented", old, func(m *api.ObjectMeta) { m.Generation = 1 }, []fieldErr{{invalid, "metadata.generation"}}},
		{"deletionTimestamp set by update", old, func(m *api.ObjectMeta) { m.DeletionTimestamp = &now }, []fieldErr{{invalid, "metadata.deletionTimestamp"}}},
		{"finalizer removed while deleting", deleting, func(m *api.ObjectMeta) { m.Finalizers = nil }, nil},
		{"finalizer added while deleting", deleting, func(m *api.ObjectMeta) { m.Finalizers = []string{"a.io/keep", "b.io/more"} }, []fieldErr{{forbidden, "metadata.finalizers"}}},
		{"bad label still rejected", old, func(m *api.ObjectMeta) { m.Labels = map[string]string{"bad key": "v"} }, []fieldErr{{invalid, "metadata.labels"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			updated := tt.old
			tt.mutate(&updated)
			expectFields(t, ValidateObjectMetaUpdate(&updated, &tt.old, "metadata"), tt.want...)
		})
	}
}

func TestValidateImmutableFieldIsSemantic(t *testing.T) {
	tests := []struct {
		name     string
		new, old any
		equal    bool
	}{
		{"nil and empty map", map[string]string(nil), map[string]string{}, true},
		{"nil and empty slice", []string(nil), []string{}, true},
		{"different maps", map[string]string{"a": "1"}, map[string]string{"a": "2"}, false},
		{"nil pointers", (*int64)(nil), (*int64)(nil), true},
		{"pointer and nil", new(int64), (*int64)(nil), false},
		{"equal structs", api.LabelSelector{MatchLabels: map[string]string{"a": "b"}}, api.LabelSelector{MatchLabels: map[string]string{"a": "b"}, MatchExpressions: []api.LabelSelectorRequirement{}}, true},
	}
	for _, tt := range tests {
		errs := ValidateImmutableField(tt.new, tt.old, "spec.x")
		if (len(errs) == 0) != tt.equal {
			t.Errorf("%s: got %v, want equal=%v", tt.name, errs, tt.equal)
		}
	}
}
