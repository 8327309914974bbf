package plugins

import (
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/scheduler/framework"
)

func TestTaintTolerationFilter(t *testing.T) {
	controlPlane := api.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule}
	gpu := api.Taint{Key: "gpu", Value: "true", Effect: api.TaintEffectNoExecute}
	soft := api.Taint{Key: "spot", Effect: api.TaintEffectPreferNoSchedule}
	tests := []struct {
		name        string
		taints      []api.Taint
		tolerations []api.Toleration
		want        string
	}{
		{"untainted node", nil, nil, ""},
		{"control-plane taint, no toleration", []api.Taint{controlPlane}, nil,
			"UnschedulableAndUnresolvable: node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"},
		{"tolerated with Exists", []api.Taint{controlPlane},
			[]api.Toleration{{Key: controlPlane.Key, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}}, ""},
		{"empty key with Exists tolerates everything", []api.Taint{controlPlane, gpu},
			[]api.Toleration{{Operator: api.TolerationOpExists}}, ""},
		{"Equal needs the same value", []api.Taint{gpu},
			[]api.Toleration{{Key: "gpu", Value: "false", Effect: api.TaintEffectNoExecute}},
			"UnschedulableAndUnresolvable: node(s) had untolerated taint {gpu: true}"},
		{"Equal with the same value", []api.Taint{gpu},
			[]api.Toleration{{Key: "gpu", Operator: api.TolerationOpEqual, Value: "true"}}, ""},
		{"wrong effect does not tolerate", []api.Taint{gpu},
			[]api.Toleration{{Key: "gpu", Value: "true", Effect: api.TaintEffectNoSchedule}},
			"UnschedulableAndUnresolvable: node(s) had untolerated taint {gpu: true}"},
		{"PreferNoSchedule never filters", []api.Taint{soft}, nil, ""},
		{"the first untolerated taint is reported", []api.Taint{soft, gpu, controlPlane},
			[]api.Toleration{{Key: "gpu", Operator: api.TolerationOpExists}},
			"UnschedulableAndUnresolvable: node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := withNode(node("n", "4", "8Gi", "110"), func(n *api.Node) { n.Spec.Taints = tt.taints })
			p := pod("", "", func(p *api.Pod) { p.Spec.Tolerations = tt.tolerations })
			if got := verdict((&TaintToleration{}).Filter(info(p), n)); got != tt.want {
				t.Errorf("Filter = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTaintTolerationScore(t *testing.T) {
	soft := func(key string) api.Taint { return api.Taint{Key: key, Effect: api.TaintEffectPreferNoSchedule} }
	nodes := []*framework.NodeInfo{
		withNode(node("clean", "4", "8Gi", "110"), func(n *api.Node) {}),
		withNode(node("one", "4", "8Gi", "110"), func(n *api.Node) { n.Spec.Taints = []api.Taint{soft("a")} }),
		withNode(node("two", "4", "8Gi", "110"), func(n *api.Node) { n.Spec.Taints = []api.Taint{soft("a"), soft("b")} }),
		withNode(node("hard", "4", "8Gi", "110"), func(n *api.Node) {
			n.Spec.Taints = []api.Taint{{Key: "c", Effect: api.TaintEffectNoSchedule}}
		}),
	}
	tests := []struct {
		name        string
		tolerations []api.Toleration
		want        []int64
	}{
		{"fewest untolerated PreferNoSchedule taints wins", nil, []int64{100, 50, 0, 100}},
		{"tolerating one taint", []api.Toleration{{Key: "a", Operator: api.TolerationOpExists}}, []int64{100, 100, 0, 100}},
		{"a NoSchedule toleration does not count for scoring",
			[]api.Toleration{{Key: "a", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}}, []int64{100, 50, 0, 100}},
		{"tolerating all: every node 100", []api.Toleration{{Operator: api.TolerationOpExists}}, []int64{100, 100, 100, 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := &TaintToleration{}
			p := info(pod("", "", func(p *api.Pod) { p.Spec.Tolerations = tt.tolerations }))
			scores := make([]int64, len(nodes))
			for i, n := range nodes {
				scores[i] = pl.Score(p, n)
			}
			pl.NormalizeScore(p, scores)
			for i := range scores {
				if scores[i] != tt.want[i] {
					t.Fatalf("normalized scores = %v, want %v", scores, tt.want)
				}
			}
		})
	}
}
