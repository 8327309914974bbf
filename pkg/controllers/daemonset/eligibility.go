package daemonset

import (
	"kplane/pkg/api"
	"kplane/pkg/scheduler/plugins"
)

// placement is what a node means to one DaemonSet, upstream's pair
// (shouldRun, shouldContinueRunning) from NodeShouldRunDaemonPod.
type placement struct {
	// shouldRun: a daemon pod belongs on the node; create one if missing.
	shouldRun bool
	// shouldContinueRunning: a daemon pod already there may stay. It
	// differs from shouldRun for a node with an untolerated NoSchedule
	// taint only: like the scheduler, the taint keeps new pods off but does
	// not evict the pods already running (only NoExecute does).
	shouldContinueRunning bool
}

// nodePlacement decides whether ds's pod belongs on node. It checks the pod
// the controller would create there (the template plus the daemon
// tolerations, see newDaemonPod), with the scheduler's own predicates, so
// that controller and scheduler never disagree:
//
//   - spec.nodeName in the template, if set, must name this node;
//   - nodeSelector and required node affinity (plugins.PodMatchesNode);
//   - every NoSchedule and NoExecute taint must be tolerated, or the node
//     is not eligible; an untolerated NoExecute taint also evicts the pod.
//
// spec.unschedulable (a cordon) is not checked: the daemon tolerations
// include node.kubernetes.io/unschedulable, so daemon pods land on cordoned
// nodes, as upstream.
func nodePlacement(node *api.Node, ds *api.DaemonSet) placement {
	if name := ds.Spec.Template.Spec.NodeName; name != "" && name != node.Name {
		return placement{}
	}
	pod := newDaemonPod(ds, node.Name)
	if !plugins.PodMatchesNode(pod, node) {
		return placement{}
	}
	untoleratedNoSchedule := false
	for i := range node.Spec.Taints {
		taint := &node.Spec.Taints[i]
		if taint.Effect != api.TaintEffectNoSchedule && taint.Effect != api.TaintEffectNoExecute {
			continue // PreferNoSchedule only steers the scheduler's score
		}
		if plugins.TolerationsTolerateTaint(pod.Spec.Tolerations, taint) {
			continue
		}
		if taint.Effect == api.TaintEffectNoExecute {
			return placement{}
		}
		untoleratedNoSchedule = true
	}
	if untoleratedNoSchedule {
		return placement{shouldContinueRunning: true}
	}
	return placement{shouldRun: true, shouldContinueRunning: true}
}

// newDaemonPod is the pod ds would get on nodeName, for the eligibility
// checks (upstream's NewPod): the template's spec with the daemon
// tolerations, and nodeName standing in for the pinning affinity, so that
// the template's own required node affinity is what gets checked.
func newDaemonPod(ds *api.DaemonSet, nodeName string) *api.Pod {
	spec := api.DeepCopyValue(ds.Spec.Template.Spec)
	addDaemonTolerations(&spec)
	spec.NodeName = nodeName
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: ds.Namespace, Labels: ds.Spec.Template.Labels},
		Spec:       spec,
	}
}
