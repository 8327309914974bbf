package nodelifecycle

import (
	"testing"
	"time"

	"kplane/pkg/api"
)

func TestDesiredManagedTaints(t *testing.T) {
	node := func(unschedulable bool, conds ...api.NodeCondition) *api.Node {
		return &api.Node{Spec: api.NodeSpec{Unschedulable: unschedulable}, Status: api.NodeStatus{Conditions: conds}}
	}
	cond := func(t api.NodeConditionType, s api.ConditionStatus) api.NodeCondition {
		return api.NodeCondition{Type: t, Status: s}
	}
	tests := []struct {
		name string
		node *api.Node
		want string
	}{
		{"healthy", node(false, cond(api.NodeReady, api.ConditionTrue), cond(api.NodeMemoryPressure, api.ConditionFalse)), ""},
		{"no conditions yet", node(false), ""},
		{"kubelet says not ready", node(false, cond(api.NodeReady, api.ConditionFalse)),
			"node.kubernetes.io/not-ready:NoSchedule node.kubernetes.io/not-ready:NoExecute"},
		{"kubelet silent", node(false, cond(api.NodeReady, api.ConditionUnknown)),
			"node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute"},
		{"pressure only keeps new pods away", node(false, cond(api.NodeReady, api.ConditionTrue),
			cond(api.NodeMemoryPressure, api.ConditionTrue), cond(api.NodeDiskPressure, api.ConditionTrue), cond(api.NodePIDPressure, api.ConditionTrue)),
			"node.kubernetes.io/memory-pressure:NoSchedule node.kubernetes.io/disk-pressure:NoSchedule node.kubernetes.io/pid-pressure:NoSchedule"},
		{"network unavailable", node(false, cond(api.NodeNetworkUnavailable, api.ConditionTrue)), "node.kubernetes.io/network-unavailable:NoSchedule"},
		{"cordoned", node(true, cond(api.NodeReady, api.ConditionTrue)), "node.kubernetes.io/unschedulable:NoSchedule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := taintSummary(desiredManagedTaints(tt.node)); got != tt.want {
				t.Errorf("taints = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReconcileTaints(t *testing.T) {
	now := t0
	earlier := api.NewTime(t0.Add(-time.Hour))
	controlPlane := api.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule}
	userPreference := api.Taint{Key: api.TaintNodeUnreachable, Value: "mine", Effect: api.TaintEffectPreferNoSchedule}
	unreachableExec := api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute}
	unreachableSched := api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule}
	notReadyExec := api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute, TimeAdded: &earlier}

	t.Run("adds what is missing after the others, stamping NoExecute", func(t *testing.T) {
		got, changed := reconcileTaints([]api.Taint{controlPlane}, []api.Taint{unreachableSched, unreachableExec}, now)
		if !changed || taintSummary(got) != "node-role.kubernetes.io/control-plane:NoSchedule node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute" {
			t.Fatalf("got %q changed=%v", taintSummary(got), changed)
		}
		if got[2].TimeAdded == nil || !got[2].TimeAdded.Time.Equal(now) || got[1].TimeAdded != nil {
			t.Errorf("timeAdded = %v / %v", got[1].TimeAdded, got[2].TimeAdded)
		}
	})
	t.Run("keeps a wanted taint and its timeAdded", func(t *testing.T) {
		got, changed := reconcileTaints([]api.Taint{notReadyExec}, []api.Taint{{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute}}, now)
		if changed || len(got) != 1 || !got[0].TimeAdded.Time.Equal(earlier.Time) {
			t.Fatalf("got %+v changed=%v", got, changed)
		}
	})
	t.Run("drops managed taints no longer wanted, never others", func(t *testing.T) {
		got, changed := reconcileTaints([]api.Taint{controlPlane, notReadyExec, userPreference}, nil, now)
		if !changed || taintSummary(got) != "node-role.kubernetes.io/control-plane:NoSchedule node.kubernetes.io/unreachable:PreferNoSchedule" {
			t.Fatalf("got %q changed=%v", taintSummary(got), changed)
		}
	})
	t.Run("nothing to do", func(t *testing.T) {
		if _, changed := reconcileTaints([]api.Taint{controlPlane}, nil, now); changed {
			t.Fatal("changed")
		}
	})
}

func TestCIDRAllocatorBlocks(t *testing.T) {
	a, err := newCIDRAllocator(DefaultClusterCIDR, DefaultNodeCIDRMaskSize)
	if err != nil {
		t.Fatal(err)
	}
	if a.blocks() != 256 || a.block(0).String() != "10.244.0.0/24" || a.block(255).String() != "10.244.255.0/24" {
		t.Errorf("blocks %d, first %s, last %s", a.blocks(), a.block(0), a.block(255))
	}
	for cidr, want := range map[string]int{"10.244.7.0/24": 7, "10.244.9.128/25": 9, "10.244.0.0/16": 0} {
		if i, ok := a.indexOf(cidr); !ok || i != want {
			t.Errorf("indexOf(%s) = %d %v, want %d", cidr, i, ok, want)
		}
	}
	for _, cidr := range []string{"10.64.3.0/24", "fd00::/64", "junk"} {
		if _, ok := a.indexOf(cidr); ok {
			t.Errorf("indexOf(%s) claims it is ours", cidr)
		}
	}
	if _, err := newCIDRAllocator(DefaultClusterCIDR, 8); err == nil {
		t.Error("a node mask wider than the cluster CIDR was accepted")
	}
}
