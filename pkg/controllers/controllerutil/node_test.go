package controllerutil

import (
	"testing"

	"kplane/pkg/api"
)

func TestNodeReadyStatus(t *testing.T) {
	node := func(conditions ...api.NodeCondition) *api.Node {
		return &api.Node{Status: api.NodeStatus{Conditions: conditions}}
	}
	tests := []struct {
		name string
		node *api.Node
		want api.ConditionStatus
	}{
		{"no conditions", node(), ""},
		{"no Ready condition", node(api.NodeCondition{Type: api.NodeMemoryPressure, Status: api.ConditionFalse}), ""},
		{"ready", node(api.NodeCondition{Type: api.NodeMemoryPressure, Status: api.ConditionFalse},
			api.NodeCondition{Type: api.NodeReady, Status: api.ConditionTrue}), api.ConditionTrue},
		{"unknown", node(api.NodeCondition{Type: api.NodeReady, Status: api.ConditionUnknown}), api.ConditionUnknown},
	}
	for _, tt := range tests {
		if got := NodeReadyStatus(tt.node); got != tt.want {
			t.Errorf("%s: NodeReadyStatus = %q, want %q", tt.name, got, tt.want)
		}
	}
}
