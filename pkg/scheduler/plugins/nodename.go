package plugins

import "kplane/pkg/scheduler/framework"

// NodeName rejects every node but the one a pod names in spec.nodeName.
// The scheduler only takes pods whose nodeName is empty, so in kplane (as
// upstream) this filter matters only to tools that run the filters on
// their own, e.g. to explain why a pod could not run on its node.
type NodeName struct{}

// ErrReasonNodeName is upstream's reason text.
const ErrReasonNodeName = "node(s) didn't match the requested node name"

// Name returns "NodeName".
func (*NodeName) Name() string { return "NodeName" }

// Filter passes when the pod names no node or names this one.
func (*NodeName) Filter(pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	want := pod.Pod.Spec.NodeName
	if want == "" || want == node.Name() {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeName)
}
