package plugins

import (
	"sort"

	"kplane/pkg/scheduler/framework"
)

// NodeResourcesFit checks that a node has room for a pod: that one more
// pod stays within the node's "pods" allocatable, and that for every
// resource the pod requests, the request fits in what the pods already on
// the node (including assumed ones) have left of its allocatable. Only
// requests count; limits and actual usage never do.
//
// Each shortfall is its own reason — "Too many pods", "Insufficient cpu",
// "Insufficient memory", "Insufficient ephemeral-storage",
// "Insufficient example.com/gpu" — so a node short of both CPU and memory
// counts twice in the FailedScheduling message, as upstream.
//
// Its score, LeastAllocated, is in leastallocated.go.
type NodeResourcesFit struct{}

// Upstream's reason texts.
const (
	ErrReasonTooManyPods = "Too many pods"
	insufficientPrefix   = "Insufficient "
)

// Name returns "NodeResourcesFit".
func (*NodeResourcesFit) Name() string { return "NodeResourcesFit" }

// Filter passes when the pod fits in what is left of the node's allocatable.
func (*NodeResourcesFit) Filter(pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	reasons := InsufficientResources(pod, node)
	if len(reasons) == 0 {
		return nil
	}
	return framework.NewStatus(framework.Unschedulable, reasons...)
}

// InsufficientResources lists, in upstream's order (pods, cpu, memory,
// ephemeral-storage, then scalar resources by name), every resource the
// node lacks for the pod.
func InsufficientResources(pod *framework.PodInfo, node *framework.NodeInfo) []string {
	var reasons []string
	if int64(len(node.Pods))+1 > node.Allocatable.AllowedPodNumber {
		reasons = append(reasons, ErrReasonTooManyPods)
	}
	req, free := pod.Requests, node.Allocatable
	if req.MilliCPU > 0 && req.MilliCPU > free.MilliCPU-node.Requested.MilliCPU {
		reasons = append(reasons, insufficientPrefix+"cpu")
	}
	if req.Memory > 0 && req.Memory > free.Memory-node.Requested.Memory {
		reasons = append(reasons, insufficientPrefix+"memory")
	}
	if req.EphemeralStorage > 0 && req.EphemeralStorage > free.EphemeralStorage-node.Requested.EphemeralStorage {
		reasons = append(reasons, insufficientPrefix+"ephemeral-storage")
	}
	if len(req.ScalarResources) > 0 {
		names := make([]string, 0, len(req.ScalarResources))
		for name := range req.ScalarResources {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			want := req.ScalarResources[name]
			if want > 0 && want > free.ScalarResources[name]-node.Requested.ScalarResources[name] {
				reasons = append(reasons, insufficientPrefix+name)
			}
		}
	}
	return reasons
}
