package nodelifecycle

import (
	"fmt"
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

// allocate reads every node's range through a remembered parse; the
// answers must be indexOf's, on the first call and the second, and the
// memory must stay bounded when nodes carry ranges that are not ours.
func TestCIDRAllocatorRemembersParsedRanges(t *testing.T) {
	a, err := newCIDRAllocator(DefaultClusterCIDR, DefaultNodeCIDRMaskSize)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		for _, cidr := range []string{"10.244.7.0/24", "10.244.9.128/25", "10.64.3.0/24", "fd00::/64", "junk", ""} {
			wantIndex, wantOurs := a.indexOf(cidr)
			if i, ok := a.cachedIndexOf(cidr); i != wantIndex || ok != wantOurs {
				t.Errorf("cachedIndexOf(%q) = %d %v, indexOf says %d %v", cidr, i, ok, wantIndex, wantOurs)
			}
		}
	}
	for n := range 3 * a.blocks() {
		a.cachedIndexOf(fmt.Sprintf("10.%d.%d.0/24", 64+n/256, n%256))
	}
	if len(a.parsed) > 2*a.blocks() {
		t.Errorf("%d parsed ranges remembered, want at most %d", len(a.parsed), 2*a.blocks())
	}
	// With nodes 0 and 1 holding blocks 0 and 1, the next node gets block 2
	// on the first call and (pending) on the second.
	nodes := []*api.Node{
		{ObjectMeta: api.ObjectMeta{Name: "a"}, Spec: api.NodeSpec{PodCIDR: "10.244.0.0/24"}},
		{ObjectMeta: api.ObjectMeta{Name: "b"}, Spec: api.NodeSpec{PodCIDRs: []string{"10.244.1.0/24"}}},
	}
	for range 2 {
		if p, err := a.allocate("c", nodes); err != nil || p.String() != "10.244.2.0/24" {
			t.Errorf("allocate(c) = %s, %v; want 10.244.2.0/24", p, err)
		}
	}
}
