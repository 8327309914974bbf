package plugins

import "kplane/pkg/scheduler/framework"

// NodePorts rejects a node on which a host port the pod wants is already
// taken by another pod (same protocol and port, on the same host IP or
// with either side binding every IP).
type NodePorts struct{}

// ErrReasonNodePorts is upstream's reason text.
const ErrReasonNodePorts = "node(s) didn't have free ports for the requested pod ports"

// Name returns "NodePorts".
func (*NodePorts) Name() string { return "NodePorts" }

// Filter passes when every host port of the pod is free on the node.
func (*NodePorts) Filter(pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	for _, p := range pod.HostPorts {
		if node.UsedPorts.Conflicts(p) {
			return framework.NewStatus(framework.Unschedulable, ErrReasonNodePorts)
		}
	}
	return nil
}
