package plugins

import (
	"fmt"
	"strings"
	"testing"

	"kplane/pkg/api"
)

func TestNodeUnschedulableFilter(t *testing.T) {
	tests := []struct {
		name          string
		unschedulable bool
		tolerations   []api.Toleration
		want          string
	}{
		{"schedulable node", false, nil, ""},
		{"cordoned node", true, nil, "UnschedulableAndUnresolvable: node(s) were unschedulable"},
		{"cordoned, tolerated (as DaemonSet pods do)", true,
			[]api.Toleration{{Key: api.TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}}, ""},
		{"cordoned, toleration for another taint", true,
			[]api.Toleration{{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists}}, "UnschedulableAndUnresolvable: node(s) were unschedulable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := withNode(node("n", "4", "8Gi", "110"), func(n *api.Node) { n.Spec.Unschedulable = tt.unschedulable })
			p := pod("", "", func(p *api.Pod) { p.Spec.Tolerations = tt.tolerations })
			if got := verdict((&NodeUnschedulable{}).Filter(info(p), n)); got != tt.want {
				t.Errorf("Filter = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNodeNameFilter(t *testing.T) {
	tests := []struct {
		nodeName, want string
	}{
		{"", ""},
		{"n", ""},
		{"other", "UnschedulableAndUnresolvable: node(s) didn't match the requested node name"},
	}
	for _, tt := range tests {
		p := pod("", "", func(p *api.Pod) { p.Spec.NodeName = tt.nodeName })
		if got := verdict((&NodeName{}).Filter(info(p), node("n", "4", "8Gi", "110"))); got != tt.want {
			t.Errorf("nodeName %q: Filter = %q, want %q", tt.nodeName, got, tt.want)
		}
	}
}

func TestDefaultProfileOrderAndWeights(t *testing.T) {
	claims, volumes := volumeListers(t, nil, nil)
	p := DefaultProfile(claims, volumes, nil, nil)
	var preFilters []string
	for _, f := range p.PreFilters {
		preFilters = append(preFilters, f.Name())
	}
	if got := strings.Join(preFilters, " "); got != "VolumeBinding" {
		t.Errorf("prefilters = %s, want VolumeBinding", got)
	}
	var filters []string
	for _, f := range p.Filters {
		filters = append(filters, f.Name())
	}
	wantFilters := "NodeUnschedulable NodeName TaintToleration NodeAffinity NodePorts NodeResourcesFit VolumeBinding"
	if got := strings.Join(filters, " "); got != wantFilters {
		t.Errorf("filters = %s, want %s", got, wantFilters)
	}
	var scores []string
	for _, s := range p.Scores {
		scores = append(scores, fmt.Sprintf("%s=%d", s.Name(), s.Weight))
	}
	wantScores := "TaintToleration=3 NodeAffinity=2 NodeResourcesFit=1 NodeResourcesBalancedAllocation=1"
	if got := strings.Join(scores, " "); got != wantScores {
		t.Errorf("scores = %s, want %s", got, wantScores)
	}
	// Filters stop at the first rejection: a tainted, full node reports
	// only the taint, which is why upstream's messages count it once.
	tainted := withNode(node("n", "1", "1Gi", "110"), func(n *api.Node) {
		n.Spec.Taints = []api.Taint{{Key: "k", Effect: api.TaintEffectNoSchedule}}
	})
	st := p.RunFilters(info(pod("2", "")), tainted)
	if st.Plugin() != "TaintToleration" || len(st.Reasons()) != 1 {
		t.Errorf("RunFilters = %s from %s, want only the taint", verdict(st), st.Plugin())
	}
}
