package informer

import (
	"slices"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
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

// Two components that share the pod informer may both ask for the node
// index; the second finds it there, and the lister reads pods by node.
func TestIndexPodsByNodeIsIdempotent(t *testing.T) {
	inf := newPodInformer(newFakeListWatch(), 0)
	for i := range 2 {
		if err := IndexPodsByNode(inf); err != nil {
			t.Fatalf("IndexPodsByNode, call %d: %v", i+1, err)
		}
	}
	for _, pod := range []*api.Pod{fixturePod("default", "a", withNode("node-1")), fixturePod("default", "b", withNode("node-2")), fixturePod("default", "c")} {
		if err := inf.GetIndexer().Add(pod); err != nil {
			t.Fatal(err)
		}
	}
	pods, err := NewLister[*api.Pod](inf.GetIndexer(), errors.Resource{Resource: "pods"}).ByIndex(NodeNameIndex, "node-1")
	if err != nil || len(pods) != 1 || pods[0].Name != "a" {
		t.Errorf("pods on node-1 = %v, %v; want [a]", pods, err)
	}
}
