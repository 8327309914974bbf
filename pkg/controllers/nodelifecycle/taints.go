package nodelifecycle

import (
	"time"

	"kplane/pkg/api"
)

// conditionTaints maps a node condition and status to the taint key that
// says so, upstream's nodeConditionToTaintKeyStatusMap: Ready=False is
// not-ready, Ready=Unknown (the kubelet went silent) is unreachable, and a
// pressure or network condition that is True is its own key. The two Ready
// keys exclude each other, as the condition can only have one status.
var conditionTaints = map[api.NodeConditionType]map[api.ConditionStatus]string{
	api.NodeReady: {
		api.ConditionFalse:   api.TaintNodeNotReady,
		api.ConditionUnknown: api.TaintNodeUnreachable,
	},
	api.NodeMemoryPressure:     {api.ConditionTrue: api.TaintNodeMemoryPressure},
	api.NodeDiskPressure:       {api.ConditionTrue: api.TaintNodeDiskPressure},
	api.NodePIDPressure:        {api.ConditionTrue: api.TaintNodePIDPressure},
	api.NodeNetworkUnavailable: {api.ConditionTrue: api.TaintNodeNetworkUnavailable},
}

// isManagedTaint reports whether the controller owns taint: a NoSchedule
// taint of a condition key or of unschedulable (upstream's
// TaintNodesByCondition), or a NoExecute taint of the two Ready keys
// (upstream's taint-based evictions). Every other taint — the
// control-plane's, a user's — is never touched.
func isManagedTaint(taint api.Taint) bool {
	switch taint.Effect {
	case api.TaintEffectNoExecute:
		return taint.Key == api.TaintNodeNotReady || taint.Key == api.TaintNodeUnreachable
	case api.TaintEffectNoSchedule:
		if taint.Key == api.TaintNodeUnschedulable {
			return true
		}
		for _, byStatus := range conditionTaints {
			for _, key := range byStatus {
				if key == taint.Key {
					return true
				}
			}
		}
	}
	return false
}

// desiredManagedTaints are the taints the controller wants on node given
// its conditions and spec.unschedulable: a NoSchedule taint for every
// condition that is in a bad state and for a cordoned node, so the
// scheduler keeps new pods away; and for a Ready condition that is False
// or Unknown also a NoExecute taint, so the taint-eviction controller
// evicts the pods already there once their tolerationSeconds run out.
func desiredManagedTaints(node *api.Node) []api.Taint {
	var taints []api.Taint
	for _, c := range node.Status.Conditions {
		key, ok := conditionTaints[c.Type][c.Status]
		if !ok {
			continue
		}
		taints = append(taints, api.Taint{Key: key, Effect: api.TaintEffectNoSchedule})
		if c.Type == api.NodeReady {
			taints = append(taints, api.Taint{Key: key, Effect: api.TaintEffectNoExecute})
		}
	}
	if node.Spec.Unschedulable {
		taints = append(taints, api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule})
	}
	return taints
}

// reconcileTaints returns node's taints with the managed ones made equal
// to desired, and whether that changes anything. Taints the controller
// does not own keep their place; a managed taint that is still wanted
// keeps its timeAdded; a new NoExecute taint gets timeAdded now, which
// `kubectl describe node` does not show but which says when evictions
// started.
func reconcileTaints(current, desired []api.Taint, now time.Time) ([]api.Taint, bool) {
	has := func(list []api.Taint, t api.Taint) bool {
		for _, x := range list {
			if x.Key == t.Key && x.Effect == t.Effect {
				return true
			}
		}
		return false
	}
	var out []api.Taint
	changed := false
	for _, t := range current {
		if isManagedTaint(t) && !has(desired, t) {
			changed = true // no longer wanted: drop it
			continue
		}
		out = append(out, t)
	}
	for _, t := range desired {
		if has(out, t) {
			continue
		}
		if t.Effect == api.TaintEffectNoExecute {
			added := api.NewTime(now.UTC().Truncate(time.Second))
			t.TimeAdded = &added
		}
		out = append(out, t)
		changed = true
	}
	return out, changed
}
