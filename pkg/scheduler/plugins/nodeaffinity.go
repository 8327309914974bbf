package plugins

import (
	"slices"
	"strconv"

	"kplane/pkg/api"
	"kplane/pkg/scheduler/framework"
)

// NodeAffinity places pods by node labels.
//
// As a filter it requires both spec.nodeSelector (every key=value must be
// among the node's labels) and spec.affinity.nodeAffinity.
// requiredDuringSchedulingIgnoredDuringExecution (at least one of its
// nodeSelectorTerms must match). One reason covers both, as upstream:
// "node(s) didn't match Pod's node affinity/selector".
//
// As a score it adds up the weights of the preferredDuringScheduling terms
// a node matches; NormalizeScore gives the best node 100.
type NodeAffinity struct{}

// ErrReasonNodeAffinity is upstream's reason text.
const ErrReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector"

// Name returns "NodeAffinity".
func (*NodeAffinity) Name() string { return "NodeAffinity" }

// Filter passes when the node matches the pod's nodeSelector and required
// node affinity.
func (*NodeAffinity) Filter(pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	if PodMatchesNode(pod.Pod, node.Node) {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeAffinity)
}

// Score sums the weights of the preferred terms the node matches.
func (*NodeAffinity) Score(pod *framework.PodInfo, node *framework.NodeInfo) int64 {
	affinity := pod.Pod.Spec.Affinity
	if affinity == nil || affinity.NodeAffinity == nil {
		return 0
	}
	var total int64
	for i := range affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		term := &affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i]
		if term.Weight != 0 && TermMatchesNode(&term.Preference, node.Node) {
			total += int64(term.Weight)
		}
	}
	return total
}

// NormalizeScore scales the matched weights so the best node gets 100.
func (*NodeAffinity) NormalizeScore(_ *framework.PodInfo, scores []int64) {
	framework.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
}

// PodMatchesNode reports whether node satisfies pod's nodeSelector and its
// required node affinity. DaemonSet-style pinning (a required matchFields
// term on metadata.name) goes through here too.
func PodMatchesNode(pod *api.Pod, node *api.Node) bool {
	for key, value := range pod.Spec.NodeSelector {
		if got, ok := node.Labels[key]; !ok || got != value {
			return false
		}
	}
	affinity := pod.Spec.Affinity
	if affinity == nil || affinity.NodeAffinity == nil || affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	// The terms are ORed; a selector with no terms matches no node.
	for i := range affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if TermMatchesNode(&affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[i], node) {
			return true
		}
	}
	return false
}

// TermMatchesNode reports whether every requirement of term holds for
// node. A term with no requirements matches nothing, and a malformed
// requirement (an operator it cannot have, a non-integer for Gt) makes its
// term fail, as upstream treats terms it cannot parse.
func TermMatchesNode(term *api.NodeSelectorTerm, node *api.Node) bool {
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return false
	}
	for i := range term.MatchExpressions {
		if !labelRequirementMatches(&term.MatchExpressions[i], node.Labels) {
			return false
		}
	}
	for i := range term.MatchFields {
		if !fieldRequirementMatches(&term.MatchFields[i], node) {
			return false
		}
	}
	return true
}

// labelRequirementMatches evaluates one matchExpressions entry.
func labelRequirementMatches(r *api.NodeSelectorRequirement, nodeLabels map[string]string) bool {
	value, exists := nodeLabels[r.Key]
	switch r.Operator {
	case api.NodeSelectorOpIn:
		return exists && len(r.Values) > 0 && slices.Contains(r.Values, value)
	case api.NodeSelectorOpNotIn:
		return len(r.Values) > 0 && (!exists || !slices.Contains(r.Values, value))
	case api.NodeSelectorOpExists:
		return len(r.Values) == 0 && exists
	case api.NodeSelectorOpDoesNotExist:
		return len(r.Values) == 0 && !exists
	case api.NodeSelectorOpGt, api.NodeSelectorOpLt:
		if !exists || len(r.Values) != 1 {
			return false
		}
		want, err := strconv.ParseInt(r.Values[0], 10, 64)
		if err != nil {
			return false
		}
		have, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return false
		}
		if r.Operator == api.NodeSelectorOpGt {
			return have > want
		}
		return have < want
	}
	return false
}

// fieldRequirementMatches evaluates one matchFields entry. Upstream
// supports a single field, metadata.name, with In or NotIn and exactly one
// value.
func fieldRequirementMatches(r *api.NodeSelectorRequirement, node *api.Node) bool {
	if r.Key != "metadata.name" || len(r.Values) != 1 {
		return false
	}
	switch r.Operator {
	case api.NodeSelectorOpIn:
		return node.Name == r.Values[0]
	case api.NodeSelectorOpNotIn:
		return node.Name != r.Values[0]
	}
	return false
}
