package cluster

import (
	"slices"
	"testing"

	"kplane/pkg/api"
)

func node(name string, conds ...api.NodeCondition) *api.Node {
	n := &api.Node{}
	n.Name = name
	n.Status.Conditions = conds
	return n
}

func uninitialized(n *api.Node) *api.Node {
	n.Spec.Taints = []api.Taint{{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: api.TaintEffectNoSchedule}}
	return n
}

func TestNodesNotReady(t *testing.T) {
	ready := api.NodeCondition{Type: api.NodeReady, Status: api.ConditionTrue}
	notReady := api.NodeCondition{Type: api.NodeReady, Status: api.ConditionFalse, Reason: "KubeletNotReady"}
	pressure := api.NodeCondition{Type: api.NodeMemoryPressure, Status: api.ConditionTrue}
	want := []string{"control-plane", "node1"}
	tests := []struct {
		name  string
		nodes []*api.Node
		want  []string
	}{
		{"all ready", []*api.Node{node("control-plane", pressure, ready), node("node1", ready)}, nil},
		{"extra nodes do not matter", []*api.Node{node("control-plane", ready), node("node1", ready), node("node9")}, nil},
		{"not registered", []*api.Node{node("control-plane", ready)}, []string{"node1: not registered"}},
		{"no conditions yet", []*api.Node{node("control-plane", ready), node("node1")}, []string{"node1: no Ready condition yet"}},
		{"not ready", []*api.Node{node("control-plane", notReady), node("node1", pressure)},
			[]string{"control-plane: NotReady: KubeletNotReady", "node1: no Ready condition yet"}},
		{"unknown", []*api.Node{node("control-plane", api.NodeCondition{Type: api.NodeReady, Status: api.ConditionUnknown}), node("node1", ready)},
			[]string{"control-plane: NotReady"}},
		{"ready but not yet initialized by the cloud", []*api.Node{node("control-plane", ready), uninitialized(node("node1", ready))},
			[]string{"node1: waiting for the cloud-controller-manager to remove the node.cloudprovider.kubernetes.io/uninitialized taint"}},
	}
	for _, tt := range tests {
		if got := nodesNotReady(want, tt.nodes); !slices.Equal(got, tt.want) {
			t.Errorf("%s: nodesNotReady = %q, want %q", tt.name, got, tt.want)
		}
	}
}
