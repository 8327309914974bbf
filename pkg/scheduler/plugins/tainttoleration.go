package plugins

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/scheduler/framework"
)

// TaintToleration keeps pods off nodes whose taints they do not tolerate.
//
// As a filter it looks at NoSchedule and NoExecute taints: one untolerated
// taint rejects the node, and the reason names that taint, e.g.
// "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
// (key, colon, space, value — empty for most taints).
//
// As a score it counts the node's PreferNoSchedule taints the pod does not
// tolerate; NormalizeScore turns "fewest" into 100, so the scheduler
// avoids such nodes when it has a choice but still uses them when it has
// not.
type TaintToleration struct{}

// Name returns "TaintToleration".
func (*TaintToleration) Name() string { return "TaintToleration" }

// Filter rejects the node if one of its NoSchedule or NoExecute taints is
// not tolerated; the first such taint, in the node's order, is reported.
func (*TaintToleration) Filter(pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	for i := range node.Node.Spec.Taints {
		taint := &node.Node.Spec.Taints[i]
		if taint.Effect != api.TaintEffectNoSchedule && taint.Effect != api.TaintEffectNoExecute {
			continue
		}
		if !TolerationsTolerateTaint(pod.Pod.Spec.Tolerations, taint) {
			reason := fmt.Sprintf("node(s) had untolerated taint {%s: %s}", taint.Key, taint.Value)
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, reason)
		}
	}
	return nil
}

// Score returns the number of the node's PreferNoSchedule taints the pod
// does not tolerate (a raw count; NormalizeScore maps it onto 0..100).
// Only tolerations whose effect is empty or PreferNoSchedule count here.
func (*TaintToleration) Score(pod *framework.PodInfo, node *framework.NodeInfo) int64 {
	var count int64
	for i := range node.Node.Spec.Taints {
		taint := &node.Node.Spec.Taints[i]
		if taint.Effect != api.TaintEffectPreferNoSchedule {
			continue
		}
		tolerated := false
		for j := range pod.Pod.Spec.Tolerations {
			t := &pod.Pod.Spec.Tolerations[j]
			if (t.Effect == "" || t.Effect == api.TaintEffectPreferNoSchedule) && ToleratesTaint(t, taint) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			count++
		}
	}
	return count
}

// NormalizeScore gives 100 to the nodes with the fewest untolerated
// PreferNoSchedule taints and proportionally less to the others.
func (*TaintToleration) NormalizeScore(_ *framework.PodInfo, scores []int64) {
	framework.DefaultNormalizeScore(framework.MaxNodeScore, true, scores)
}

// TolerationsTolerateTaint reports whether any of tolerations tolerates taint.
func TolerationsTolerateTaint(tolerations []api.Toleration, taint *api.Taint) bool {
	for i := range tolerations {
		if ToleratesTaint(&tolerations[i], taint) {
			return true
		}
	}
	return false
}

// ToleratesTaint reports whether one toleration matches a taint, with
// upstream's rules: an empty effect matches every effect, an empty key
// (only valid with Exists) matches every key, Exists ignores the value and
// Equal (or no operator) needs the same value.
func ToleratesTaint(t *api.Toleration, taint *api.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", api.TolerationOpEqual:
		return t.Value == taint.Value
	case api.TolerationOpExists:
		return true
	}
	return false
}
