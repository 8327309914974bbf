package plugins

import (
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/scheduler/framework"
)

func req(key string, op api.NodeSelectorOperator, values ...string) api.NodeSelectorRequirement {
	return api.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func required(terms ...api.NodeSelectorTerm) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: terms},
		}}
	}
}

func TestNodeAffinityFilter(t *testing.T) {
	labels := map[string]string{"zone": "a", "disktype": "ssd", "cores": "8"}
	const reject = "UnschedulableAndUnresolvable: node(s) didn't match Pod's node affinity/selector"
	exprs := func(r ...api.NodeSelectorRequirement) api.NodeSelectorTerm {
		return api.NodeSelectorTerm{MatchExpressions: r}
	}
	tests := []struct {
		name string
		pod  *api.Pod
		want string
	}{
		{"no constraints", pod("", ""), ""},
		{"nodeSelector matches", pod("", "", func(p *api.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "a"} }), ""},
		{"nodeSelector value differs", pod("", "", func(p *api.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "b"} }), reject},
		{"nodeSelector key missing", pod("", "", func(p *api.Pod) { p.Spec.NodeSelector = map[string]string{"gpu": "yes"} }), reject},
		{"In", pod("", "", required(exprs(req("zone", api.NodeSelectorOpIn, "a", "b")))), ""},
		{"In, no match", pod("", "", required(exprs(req("zone", api.NodeSelectorOpIn, "b")))), reject},
		{"NotIn", pod("", "", required(exprs(req("zone", api.NodeSelectorOpNotIn, "b")))), ""},
		{"NotIn matches a missing key", pod("", "", required(exprs(req("gpu", api.NodeSelectorOpNotIn, "yes")))), ""},
		{"Exists", pod("", "", required(exprs(req("disktype", api.NodeSelectorOpExists)))), ""},
		{"DoesNotExist", pod("", "", required(exprs(req("disktype", api.NodeSelectorOpDoesNotExist)))), reject},
		{"Gt", pod("", "", required(exprs(req("cores", api.NodeSelectorOpGt, "4")))), ""},
		{"Lt", pod("", "", required(exprs(req("cores", api.NodeSelectorOpLt, "4")))), reject},
		{"Gt with a non-integer fails", pod("", "", required(exprs(req("zone", api.NodeSelectorOpGt, "4")))), reject},
		{"expressions of a term are ANDed", pod("", "", required(exprs(req("zone", api.NodeSelectorOpIn, "a"), req("disktype", api.NodeSelectorOpIn, "hdd")))), reject},
		{"terms are ORed", pod("", "", required(exprs(req("zone", api.NodeSelectorOpIn, "b")), exprs(req("disktype", api.NodeSelectorOpIn, "ssd")))), ""},
		{"no terms match nothing", pod("", "", required()), reject},
		{"an empty term matches nothing", pod("", "", required(api.NodeSelectorTerm{})), reject},
		{"matchFields metadata.name In", pod("", "", required(api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{req("metadata.name", api.NodeSelectorOpIn, "n")}})), ""},
		{"matchFields metadata.name other node", pod("", "", required(api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{req("metadata.name", api.NodeSelectorOpIn, "m")}})), reject},
		{"nodeSelector and affinity must both hold", pod("", "", required(exprs(req("zone", api.NodeSelectorOpIn, "a"))), func(p *api.Pod) {
			p.Spec.NodeSelector = map[string]string{"disktype": "hdd"}
		}), reject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := withNode(node("n", "4", "8Gi", "110"), func(n *api.Node) { n.Labels = labels })
			if got := verdict((&NodeAffinity{}).Filter(info(tt.pod), n)); got != tt.want {
				t.Errorf("Filter = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNodeAffinityScore(t *testing.T) {
	preferred := func(terms ...api.PreferredSchedulingTerm) func(*api.Pod) {
		return func(p *api.Pod) {
			p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: terms}}
		}
	}
	term := func(weight int32, key, value string) api.PreferredSchedulingTerm {
		return api.PreferredSchedulingTerm{Weight: weight, Preference: api.NodeSelectorTerm{
			MatchExpressions: []api.NodeSelectorRequirement{req(key, api.NodeSelectorOpIn, value)},
		}}
	}
	nodes := []*framework.NodeInfo{
		withNode(node("a-ssd", "4", "8Gi", "110"), func(n *api.Node) { n.Labels = map[string]string{"zone": "a", "disktype": "ssd"} }),
		withNode(node("a", "4", "8Gi", "110"), func(n *api.Node) { n.Labels = map[string]string{"zone": "a"} }),
		withNode(node("ssd", "4", "8Gi", "110"), func(n *api.Node) { n.Labels = map[string]string{"disktype": "ssd"} }),
		withNode(node("none", "4", "8Gi", "110"), func(n *api.Node) {}),
	}
	tests := []struct {
		name      string
		pod       *api.Pod
		raw, want []int64
	}{
		{"no preferences", pod("", ""), []int64{0, 0, 0, 0}, []int64{0, 0, 0, 0}},
		{"weights add up and the best node gets 100", pod("", "", preferred(term(80, "zone", "a"), term(20, "disktype", "ssd"))),
			[]int64{100, 80, 20, 0}, []int64{100, 80, 20, 0}},
		{"normalized to the best match", pod("", "", preferred(term(2, "zone", "a"), term(1, "disktype", "ssd"))),
			[]int64{3, 2, 1, 0}, []int64{100, 66, 33, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := &NodeAffinity{}
			p := info(tt.pod)
			scores := make([]int64, len(nodes))
			for i, n := range nodes {
				scores[i] = pl.Score(p, n)
				if scores[i] != tt.raw[i] {
					t.Fatalf("raw score on %s = %d, want %d", n.Name(), scores[i], tt.raw[i])
				}
			}
			pl.NormalizeScore(p, scores)
			for i := range scores {
				if scores[i] != tt.want[i] {
					t.Fatalf("normalized = %v, want %v", scores, tt.want)
				}
			}
		})
	}
}
