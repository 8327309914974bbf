package plugins

import "kplane/pkg/scheduler/framework"

// Score is NodeResourcesFit's LeastAllocated strategy, upstream's default:
// for CPU and memory (weight 1 each) it computes how much of the node's
// allocatable would still be free after adding the pod,
//
//	(allocatable - requested) * 100 / allocatable
//
// and averages the two. Emptier nodes score higher, so pods spread out.
// "requested" here counts every container's missing CPU or memory request
// as 100m / 200Mi (NonZeroRequested), so pods without requests spread too.
// A resource the node has none of is left out of the average; one already
// overcommitted scores 0.
func (*NodeResourcesFit) Score(pod *framework.PodInfo, node *framework.NodeInfo) int64 {
	return leastAllocatedScore(
		[]int64{node.NonZeroRequested.MilliCPU + pod.NonZeroRequests.MilliCPU, node.NonZeroRequested.Memory + pod.NonZeroRequests.Memory},
		[]int64{node.Allocatable.MilliCPU, node.Allocatable.Memory},
	)
}

// leastAllocatedScore averages the free fraction of each resource, with
// equal weights, in integer arithmetic as upstream does.
func leastAllocatedScore(requested, allocatable []int64) int64 {
	var score, weights int64
	for i := range requested {
		if allocatable[i] == 0 {
			continue
		}
		weights++
		if requested[i] > allocatable[i] {
			continue // scores 0 for this resource
		}
		score += (allocatable[i] - requested[i]) * framework.MaxNodeScore / allocatable[i]
	}
	if weights == 0 {
		return 0
	}
	return score / weights
}
