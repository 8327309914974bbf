package controllerutil

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"kplane/pkg/api"
)

// PodDeletionCostAnnotation lets a user say which pods of a ReplicaSet to
// keep on scale down: pods with a lower cost go first (an int32, default 0;
// upstream's controller.kubernetes.io/pod-deletion-cost, on by default
// since Kubernetes 1.22).
const PodDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// ActivePodsWithRanks sorts pods so that the ones to delete first come
// first when a ReplicaSet has too many. It reproduces upstream's ordering
// (pkg/controller/controller_utils.go); of two pods, the first rule that
// tells them apart decides:
//
//  1. A pod not yet assigned to a node goes before an assigned one: it has
//     cost nothing yet.
//  2. By phase: Pending, then Unknown, then Running.
//  3. A pod that is not ready goes before a ready one.
//  4. A lower pod-deletion-cost annotation goes first.
//  5. A higher Rank goes first. The ReplicaSet controller ranks a pod by
//     how many pods of the same owner (and of its sibling ReplicaSets) run
//     on the pod's node, so scale down spreads what remains.
//  6. Of two ready pods, the one ready for a shorter time goes first.
//  7. The pod whose busiest container restarted more often goes first.
//  8. The newer pod (later creationTimestamp) goes first.
//
// In 6 and 8 a missing time counts as newest. When Now is set, times are
// compared on a logarithmic scale of their age (upstream's
// LogarithmicScaleDown): pods 40 and 50 minutes old are equally old, and
// their order is left to their UIDs, a pseudo-random choice, so that scale
// down does not always hit the very newest pod. With Now zero, times are
// compared exactly.
type ActivePodsWithRanks struct {
	// Pods are the pods to sort; Rank[i] belongs to Pods[i].
	Pods []*api.Pod
	Rank []int
	// Now is the reference for the logarithmic comparison; zero turns it off.
	Now time.Time
}

var _ sort.Interface = ActivePodsWithRanks{}

// Len implements sort.Interface.
func (s ActivePodsWithRanks) Len() int { return len(s.Pods) }

// Swap implements sort.Interface, moving a pod and its rank together.
func (s ActivePodsWithRanks) Swap(i, j int) {
	s.Pods[i], s.Pods[j] = s.Pods[j], s.Pods[i]
	s.Rank[i], s.Rank[j] = s.Rank[j], s.Rank[i]
}

// podPhaseOrdinal orders phases for rule 2; phases not listed (Succeeded,
// Failed: not active) count as Pending.
var podPhaseOrdinal = map[api.PodPhase]int{api.PodPending: 0, api.PodUnknown: 1, api.PodRunning: 2}

// Less reports whether Pods[i] should be deleted before Pods[j].
func (s ActivePodsWithRanks) Less(i, j int) bool {
	less, _ := s.compare(i, j)
	return less
}

// The rules of ActivePodsWithRanks, as Rule names them.
const (
	RuleUnscheduled  = "not scheduled"
	RulePhase        = "phase"
	RuleNotReady     = "not ready"
	RuleDeletionCost = "pod-deletion-cost"
	RuleCrowdedNode  = "more pods on its node"
	RuleReadyShorter = "ready for a shorter time"
	RuleRestarts     = "more restarts"
	RuleNewer        = "newer"
)

// Rule names the rule that puts Pods[i] and Pods[j] in the order Less
// gives them ("" when no rule tells them apart), so a controller can say
// why it deleted one pod and kept another.
func (s ActivePodsWithRanks) Rule(i, j int) string {
	_, rule := s.compare(i, j)
	return rule
}

// compare is Less, also naming the rule that decided.
func (s ActivePodsWithRanks) compare(i, j int) (less bool, rule string) {
	a, b := s.Pods[i], s.Pods[j]
	// 1. Unassigned < assigned.
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		return a.Spec.NodeName == "", RuleUnscheduled
	}
	// 2. Pending < Unknown < Running.
	if pa, pb := podPhaseOrdinal[a.Status.Phase], podPhaseOrdinal[b.Status.Phase]; pa != pb {
		return pa < pb, RulePhase
	}
	// 3. Not ready < ready.
	readyA, readyB := IsPodReady(a), IsPodReady(b)
	if readyA != readyB {
		return !readyA, RuleNotReady
	}
	// 4. Lower deletion cost < higher deletion cost.
	if ca, cb := podDeletionCost(a), podDeletionCost(b); ca != cb {
		return ca < cb, RuleDeletionCost
	}
	// 5. More of the owner's pods on the same node < fewer.
	if s.Rank[i] != s.Rank[j] {
		return s.Rank[i] > s.Rank[j], RuleCrowdedNode
	}
	// 6. Ready for a shorter time < longer (both ready).
	if readyA && readyB {
		ta, tb := podReadyTime(a), podReadyTime(b)
		if !ta.Equal(tb) {
			return s.newerFirst(a, b, ta, tb), RuleReadyShorter
		}
	}
	// 7. More container restarts < fewer.
	if ra, rb := maxContainerRestarts(a), maxContainerRestarts(b); ra != rb {
		return ra > rb, RuleRestarts
	}
	// 8. Newer < older.
	if ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time; !ta.Equal(tb) {
		return s.newerFirst(a, b, ta, tb), RuleNewer
	}
	return false, ""
}

// newerFirst orders by time for rules 6 and 8: a zero time first, then
// the later time, on the logarithmic scale when Now is set (ties broken by
// UID).
func (s ActivePodsWithRanks) newerFirst(a, b *api.Pod, ta, tb time.Time) bool {
	if s.Now.IsZero() || ta.IsZero() || tb.IsZero() {
		return afterOrZero(ta, tb)
	}
	if diff := logarithmicAge(s.Now, ta) - logarithmicAge(s.Now, tb); diff != 0 {
		return diff < 0
	}
	return a.UID < b.UID
}

// afterOrZero reports whether t1 is zero (and t2 is not), or later than t2.
func afterOrZero(t1, t2 time.Time) bool {
	if t1.IsZero() || t2.IsZero() {
		return t1.IsZero()
	}
	return t1.After(t2)
}

// logarithmicAge is floor(log2(age in nanoseconds)) of t at now, or -1 for
// a time not in the past: ages within a factor of two share a bucket.
func logarithmicAge(now, t time.Time) int64 {
	age := now.Sub(t)
	if age <= 0 {
		return -1
	}
	return int64(math.Log2(float64(age)))
}

// podReadyTime returns when pod last became ready (zero if it is not).
func podReadyTime(pod *api.Pod) time.Time {
	if c := GetPodReadyCondition(pod); c != nil && c.Status == api.ConditionTrue {
		return c.LastTransitionTime.Time
	}
	return time.Time{}
}

// maxContainerRestarts returns the highest restart count of pod's containers.
func maxContainerRestarts(pod *api.Pod) int32 {
	var most int32
	for _, c := range pod.Status.ContainerStatuses {
		most = max(most, c.RestartCount)
	}
	return most
}

// podDeletionCost reads the pod-deletion-cost annotation; a missing or
// malformed value counts as 0 (the apiserver validates it upstream).
func podDeletionCost(pod *api.Pod) int32 {
	v, ok := pod.Annotations[PodDeletionCostAnnotation]
	if !ok {
		return 0
	}
	cost, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(cost)
}

// RankPodsByRelatedPodsOnSameNode ranks each pod of podsToRank by the
// number of active pods in relatedPods on its node (upstream's
// getPodsRankedByRelatedPodsOnSameNode). relatedPods is normally a
// superset of podsToRank: the owner's pods plus those of its siblings
// under the same Deployment.
func RankPodsByRelatedPodsOnSameNode(podsToRank, relatedPods []*api.Pod, now time.Time) ActivePodsWithRanks {
	podsOnNode := map[string]int{}
	for _, pod := range relatedPods {
		if IsPodActive(pod) {
			podsOnNode[pod.Spec.NodeName]++
		}
	}
	ranks := make([]int, len(podsToRank))
	for i, pod := range podsToRank {
		ranks[i] = podsOnNode[pod.Spec.NodeName]
	}
	return ActivePodsWithRanks{Pods: podsToRank, Rank: ranks, Now: now}
}

// PodsToDelete returns the n pods of pods to delete first, by
// ActivePodsWithRanks over relatedPods at now. pods itself is not
// reordered.
func PodsToDelete(pods, relatedPods []*api.Pod, n int, now time.Time) []*api.Pod {
	victims, _ := PodsToDeleteWithReasons(pods, relatedPods, n, now, false)
	return victims
}

// PodsToDeleteWithReasons is PodsToDelete that, when explain is set, also
// says for each victim why it goes before the first pod kept: the rule
// that ordered them and the values it compared, e.g. "Pending, web-7 kept
// is Running" or "3 pods on its node node1, web-7 kept has 1 on node2".
func PodsToDeleteWithReasons(pods, relatedPods []*api.Pod, n int, now time.Time, explain bool) (victims []*api.Pod, reasons []string) {
	if n <= 0 {
		return nil, nil
	}
	sorted := slices.Clone(pods)
	if n >= len(sorted) {
		// Every one goes: no need to choose.
		if explain {
			reasons = make([]string, len(sorted))
			for i := range reasons {
				reasons[i] = "every pod goes"
			}
		}
		return sorted, reasons
	}
	ranked := RankPodsByRelatedPodsOnSameNode(sorted, relatedPods, now)
	sort.Sort(ranked)
	if explain {
		for i := range n {
			reasons = append(reasons, ranked.explain(i, n))
		}
	}
	return sorted[:n], reasons
}

// explain says why Pods[i] goes before Pods[kept], in the words of the
// rule that ordered them.
func (s ActivePodsWithRanks) explain(i, kept int) string {
	a, b := s.Pods[i], s.Pods[kept]
	than := b.Name + " kept"
	switch s.Rule(i, kept) {
	case RuleUnscheduled:
		return fmt.Sprintf("not scheduled, %s is on %s", than, b.Spec.NodeName)
	case RulePhase:
		return fmt.Sprintf("%s, %s is %s", phaseOrPending(a), than, phaseOrPending(b))
	case RuleNotReady:
		return fmt.Sprintf("not ready, %s is ready", than)
	case RuleDeletionCost:
		return fmt.Sprintf("pod-deletion-cost %d, %s has %d", podDeletionCost(a), than, podDeletionCost(b))
	case RuleCrowdedNode:
		return fmt.Sprintf("%d related pods on its node %s, %s has %d on %s", s.Rank[i], a.Spec.NodeName, than, s.Rank[kept], b.Spec.NodeName)
	case RuleReadyShorter:
		return fmt.Sprintf("ready since %s, %s since %s", podReadyTime(a).UTC().Format(time.RFC3339), than, podReadyTime(b).UTC().Format(time.RFC3339))
	case RuleRestarts:
		return fmt.Sprintf("%d restarts, %s has %d", maxContainerRestarts(a), than, maxContainerRestarts(b))
	case RuleNewer:
		return fmt.Sprintf("newer (created %s), %s created %s", a.CreationTimestamp.UTC().Format(time.RFC3339), than, b.CreationTimestamp.UTC().Format(time.RFC3339))
	}
	return "tied with " + than + " on every rule: the sort's order decided"
}

// phaseOrPending is pod's phase, Pending when it has none yet.
func phaseOrPending(pod *api.Pod) api.PodPhase {
	if pod.Status.Phase == "" {
		return api.PodPending
	}
	return pod.Status.Phase
}
