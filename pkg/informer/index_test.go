package informer

import (
	"slices"
	"testing"

	"kplane/pkg/api"
)

func TestStandardIndexFuncs(t *testing.T) {
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "cfg", Labels: map[string]string{"app": "web"}}}
	tests := []struct {
		name string
		fn   IndexFunc
		obj  api.Object
		want []string
	}{
		{"namespace of a namespaced object", MetaNamespaceIndexFunc, fixturePod("default", "a"), []string{"default"}},
		{"namespace of a cluster-scoped object", MetaNamespaceIndexFunc, fixtureNode("n1"), []string{""}},
		{"owner UIDs, every one", OwnerUIDIndexFunc, fixturePod("default", "a", withOwners("u1", "u2")), []string{"u1", "u2"}},
		{"no owners", OwnerUIDIndexFunc, fixturePod("default", "a"), nil},
		{"bound pod", NodeNameIndexFunc, fixturePod("default", "a", withNode("node-1")), []string{"node-1"}},
		{"unbound pod", NodeNameIndexFunc, fixturePod("default", "a"), nil},
		{"not a pod", NodeNameIndexFunc, fixtureNode("node-1"), nil},
		{"labels as key=value", LabelIndexFunc, fixturePod("default", "a", withLabels("app", "web", "tier", "fe")), []string{"app=web", "tier=fe"}},
		{"labels of another kind", LabelIndexFunc, cm, []string{"app=web"}},
		{"no labels", LabelIndexFunc, fixturePod("default", "a"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.fn(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStandardIndexersNames(t *testing.T) {
	got := StandardIndexers()
	for _, name := range []string{NamespaceIndex, OwnerUIDIndex, NodeNameIndex, LabelIndex} {
		if got[name] == nil {
			t.Errorf("StandardIndexers lacks %q", name)
		}
	}
	if len(got) != 4 {
		t.Errorf("StandardIndexers has %d indexes, want 4", len(got))
	}
}
