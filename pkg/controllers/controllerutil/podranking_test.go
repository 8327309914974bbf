package controllerutil

import (
	"slices"
	"testing"
	"time"

	"kplane/pkg/api"
)

var rankNow = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// rankPod builds a pod for the ranking tests; options adjust it.
func rankPod(name string, opts ...func(*api.Pod)) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name,
		CreationTimestamp: api.NewTime(rankNow.Add(-time.Hour))}}
	p.Spec.NodeName = "node1"
	p.Status.Phase = api.PodRunning
	for _, o := range opts {
		o(p)
	}
	return p
}

func rankUnassigned(p *api.Pod)          { p.Spec.NodeName = "" }
func rankOnNode(n string) func(*api.Pod) { return func(p *api.Pod) { p.Spec.NodeName = n } }
func rankPhase(ph api.PodPhase) func(*api.Pod) {
	return func(p *api.Pod) { p.Status.Phase = ph }
}
func rankReadySince(t time.Time) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t)}}
	}
}
func rankCreated(t time.Time) func(*api.Pod) {
	return func(p *api.Pod) { p.CreationTimestamp = api.NewTime(t) }
}
func rankRestarts(n int32) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "a", RestartCount: 0}, {Name: "b", RestartCount: n}}
	}
}
func rankDeletionCost(v string) func(*api.Pod) {
	return func(p *api.Pod) { p.Annotations = map[string]string{PodDeletionCostAnnotation: v} }
}
func rankUID(uid string) func(*api.Pod) { return func(p *api.Pod) { p.UID = uid } }

// Each case names a pod that must go before the other, and checks both
// orders so that the rule is asymmetric.
func TestActivePodsWithRanksLess(t *testing.T) {
	ready := rankReadySince(rankNow.Add(-time.Hour))
	tests := []struct {
		name          string
		first, second *api.Pod
		rankFirst     int
		rankSecond    int
		now           time.Time // zero: exact times
	}{
		{name: "unassigned before assigned",
			first: rankPod("a", rankUnassigned, rankPhase(api.PodPending)), second: rankPod("b", rankPhase(api.PodPending))},
		{name: "unassigned before assigned even if ready and running",
			first: rankPod("a", rankUnassigned, ready), second: rankPod("b", rankPhase(api.PodPending))},
		{name: "Pending before Unknown",
			first: rankPod("a", rankPhase(api.PodPending)), second: rankPod("b", rankPhase(api.PodUnknown))},
		{name: "Unknown before Running",
			first: rankPod("a", rankPhase(api.PodUnknown)), second: rankPod("b", rankPhase(api.PodRunning))},
		{name: "not ready before ready",
			first: rankPod("a"), second: rankPod("b", ready)},
		{name: "lower deletion cost first",
			first: rankPod("a", ready, rankDeletionCost("-5")), second: rankPod("b", ready)},
		{name: "deletion cost beats rank",
			first: rankPod("a", rankDeletionCost("1")), second: rankPod("b", rankDeletionCost("2")), rankFirst: 1, rankSecond: 5},
		{name: "malformed deletion cost counts as 0",
			first: rankPod("a", rankDeletionCost("lots")), second: rankPod("b", rankDeletionCost("3"))},
		{name: "more pods of the owner on its node first",
			first: rankPod("a", ready), second: rankPod("b", ready), rankFirst: 3, rankSecond: 1},
		{name: "ready for a shorter time first",
			first: rankPod("a", rankReadySince(rankNow.Add(-time.Minute))), second: rankPod("b", rankReadySince(rankNow.Add(-time.Hour)))},
		{name: "ready time beats restarts",
			first: rankPod("a", rankReadySince(rankNow.Add(-time.Minute))), second: rankPod("b", rankReadySince(rankNow.Add(-time.Hour)), rankRestarts(9))},
		{name: "more restarts first",
			first: rankPod("a", rankRestarts(4)), second: rankPod("b", rankRestarts(1))},
		{name: "newer first",
			first: rankPod("a", rankCreated(rankNow.Add(-time.Minute))), second: rankPod("b", rankCreated(rankNow.Add(-time.Hour)))},
		{name: "missing creation time counts as newest",
			first: rankPod("a", rankCreated(time.Time{})), second: rankPod("b", rankCreated(rankNow.Add(-time.Second)))},
		{name: "logarithmic: ages an order of magnitude apart still differ",
			first: rankPod("z", rankCreated(rankNow.Add(-time.Minute))), second: rankPod("a", rankCreated(rankNow.Add(-time.Hour))), now: rankNow},
		{name: "logarithmic: ages within a factor of two tie, UID decides",
			first:  rankPod("x", rankUID("uid-1"), rankCreated(rankNow.Add(-50*time.Minute))),
			second: rankPod("y", rankUID("uid-2"), rankCreated(rankNow.Add(-40*time.Minute))), now: rankNow},
		{name: "logarithmic ready time: UID decides within a bucket",
			first:  rankPod("x", rankUID("uid-1"), rankReadySince(rankNow.Add(-50*time.Minute))),
			second: rankPod("y", rankUID("uid-2"), rankReadySince(rankNow.Add(-40*time.Minute))), now: rankNow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ActivePodsWithRanks{Pods: []*api.Pod{tt.first, tt.second}, Rank: []int{tt.rankFirst, tt.rankSecond}, Now: tt.now}
			if !s.Less(0, 1) {
				t.Errorf("Less(%s, %s) = false, want true", tt.first.Name, tt.second.Name)
			}
			if s.Less(1, 0) {
				t.Errorf("Less(%s, %s) = true, want false", tt.second.Name, tt.first.Name)
			}
		})
	}
}

// Two pods nothing tells apart are equal: neither goes first.
func TestActivePodsWithRanksEqualPods(t *testing.T) {
	a, b := rankPod("a"), rankPod("b")
	s := ActivePodsWithRanks{Pods: []*api.Pod{a, b}, Rank: []int{0, 0}}
	if s.Less(0, 1) || s.Less(1, 0) {
		t.Fatalf("identical pods compare unequal")
	}
}

func TestPodsToDelete(t *testing.T) {
	old := rankNow.Add(-time.Hour)
	pods := []*api.Pod{
		rankPod("ready-old", rankReadySince(old), rankOnNode("node1")),
		rankPod("pending", rankPhase(api.PodPending), rankOnNode("node2")),
		rankPod("ready-crowded", rankReadySince(old), rankOnNode("node3")),
		rankPod("not-ready", rankOnNode("node1")),
		rankPod("unassigned", rankUnassigned, rankPhase(api.PodPending)),
	}
	// node3 holds two more pods of sibling ReplicaSets, so its pod ranks
	// above ready-old (node1: two pods).
	related := append(slices.Clone(pods),
		rankPod("sibling-1", rankOnNode("node3")), rankPod("sibling-2", rankOnNode("node3")),
		rankPod("sibling-done", rankOnNode("node1"), rankPhase(api.PodSucceeded)))

	tests := []struct {
		n    int
		want []string
	}{
		{n: 0, want: nil},
		{n: 1, want: []string{"unassigned"}},
		{n: 3, want: []string{"unassigned", "pending", "not-ready"}},
		{n: 4, want: []string{"unassigned", "pending", "not-ready", "ready-crowded"}},
		{n: 7, want: []string{"ready-old", "pending", "ready-crowded", "not-ready", "unassigned"}},
	}
	for _, tt := range tests {
		got := rankNames(PodsToDelete(pods, related, tt.n, rankNow))
		if !slices.Equal(got, tt.want) {
			t.Errorf("PodsToDelete(n=%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
	if pods[0].Name != "ready-old" || pods[4].Name != "unassigned" {
		t.Errorf("PodsToDelete reordered its input: %v", rankNames(pods))
	}
}

func TestRankPodsByRelatedPodsOnSameNode(t *testing.T) {
	mine := []*api.Pod{rankPod("a", rankOnNode("n1")), rankPod("b", rankOnNode("n2")), rankPod("c", rankUnassigned)}
	related := append(slices.Clone(mine), rankPod("d", rankOnNode("n1")), rankPod("e", rankOnNode("n1"), rankPhase(api.PodFailed)))
	got := RankPodsByRelatedPodsOnSameNode(mine, related, time.Time{}).Rank
	if want := []int{2, 1, 1}; !slices.Equal(got, want) {
		t.Fatalf("ranks = %v, want %v (inactive pods do not count)", got, want)
	}
}

func rankNames(pods []*api.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

// PodsToDeleteWithReasons names, for each victim, the rule that put it
// before the first pod kept, with the values that rule compared.
func TestPodsToDeleteWithReasons(t *testing.T) {
	ready := rankReadySince(rankNow.Add(-time.Hour))
	tests := []struct {
		name       string
		victim     *api.Pod
		kept       *api.Pod
		related    []*api.Pod // besides victim and kept
		wantReason string
	}{
		{"deletion cost", rankPod("a", ready, rankDeletionCost("-5")), rankPod("b", ready), nil,
			"pod-deletion-cost -5, b kept has 0"},
		{"crowded node", rankPod("a", ready, rankOnNode("node1")), rankPod("b", ready, rankOnNode("node2")),
			[]*api.Pod{rankPod("c", ready, rankOnNode("node1"))},
			"2 related pods on its node node1, b kept has 1 on node2"},
		{"restarts", rankPod("a", ready, rankRestarts(3)), rankPod("b", ready), nil,
			"3 restarts, b kept has 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods := []*api.Pod{tt.kept, tt.victim}
			victims, reasons := PodsToDeleteWithReasons(pods, append(slices.Clone(pods), tt.related...), 1, time.Time{}, true)
			if len(victims) != 1 || victims[0] != tt.victim {
				t.Fatalf("victims %v, want %s", victims, tt.victim.Name)
			}
			if reasons[0] != tt.wantReason {
				t.Errorf("reason %q, want %q", reasons[0], tt.wantReason)
			}
			// Without explain, the same victims and no reasons.
			if again, none := PodsToDeleteWithReasons(pods, pods, 1, time.Time{}, false); len(again) != 1 || none != nil {
				t.Errorf("without explain: victims %v reasons %v", again, none)
			}
		})
	}

	// Two pods equal on every rule: either may go, and the reason says so.
	a, b := rankPod("a", ready), rankPod("b", ready)
	victims, reasons := PodsToDeleteWithReasons([]*api.Pod{a, b}, []*api.Pod{a, b}, 1, time.Time{}, true)
	kept := a
	if victims[0] == a {
		kept = b
	}
	if want := "tied with " + kept.Name + " kept on every rule: the sort's order decided"; reasons[0] != want {
		t.Errorf("tie: reason %q, want %q", reasons[0], want)
	}
	// Every pod going needs no choice.
	if _, reasons := PodsToDeleteWithReasons([]*api.Pod{a, b}, nil, 2, time.Time{}, true); !slices.Equal(reasons, []string{"every pod goes", "every pod goes"}) {
		t.Errorf("all go: reasons %q", reasons)
	}
}
