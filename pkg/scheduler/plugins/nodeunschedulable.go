package plugins

import (
	"kplane/pkg/api"
	"kplane/pkg/scheduler/framework"
)

// NodeUnschedulable keeps new pods off a cordoned node (spec.unschedulable,
// what `kubectl cordon` sets), unless the pod tolerates the
// node.kubernetes.io/unschedulable:NoSchedule taint — DaemonSet pods do,
// which is how they still land on cordoned nodes.
type NodeUnschedulable struct{}

// ErrReasonUnschedulable is upstream's reason text.
const ErrReasonUnschedulable = "node(s) were unschedulable"

// Name returns "NodeUnschedulable".
func (*NodeUnschedulable) Name() string { return "NodeUnschedulable" }

// Filter rejects a cordoned node unless the pod tolerates being there.
func (*NodeUnschedulable) Filter(pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	if !node.Node.Spec.Unschedulable {
		return nil
	}
	unschedulable := api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}
	if TolerationsTolerateTaint(pod.Pod.Spec.Tolerations, &unschedulable) {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnschedulable)
}
