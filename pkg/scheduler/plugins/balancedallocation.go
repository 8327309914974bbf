package plugins

import (
	"math"

	"kplane/pkg/scheduler/framework"
)

// BalancedAllocation (upstream's NodeResourcesBalancedAllocation) prefers
// nodes where, after adding the pod, CPU and memory would be used in the
// same proportion: a node at 50 % CPU and 50 % memory scores 100, one at
// 90 % CPU and 10 % memory scores 60. It keeps nodes from running out of
// one resource while plenty of the other is left stranded.
//
// The score is (1 - standard deviation of the used fractions) * 100; for
// two resources the standard deviation is |cpuFraction - memFraction| / 2.
// Unlike LeastAllocated it uses the pods' real requests (no stand-in
// values for missing ones), as upstream 1.32 does.
type BalancedAllocation struct{}

// Name returns "NodeResourcesBalancedAllocation".
func (*BalancedAllocation) Name() string { return "NodeResourcesBalancedAllocation" }

// Score rates how evenly the node's CPU and memory would be used.
func (*BalancedAllocation) Score(pod *framework.PodInfo, node *framework.NodeInfo) int64 {
	return balancedScore(
		[]int64{node.Requested.MilliCPU + pod.Requests.MilliCPU, node.Requested.Memory + pod.Requests.Memory},
		[]int64{node.Allocatable.MilliCPU, node.Allocatable.Memory},
	)
}

// balancedScore computes 100 × (1 − std) over the used fractions (each
// capped at 1) of the resources the node has.
func balancedScore(requested, allocatable []int64) int64 {
	fractions := make([]float64, 0, len(requested))
	var sum float64
	for i := range requested {
		if allocatable[i] == 0 {
			continue
		}
		f := min(float64(requested[i])/float64(allocatable[i]), 1)
		fractions = append(fractions, f)
		sum += f
	}
	var std float64
	switch {
	case len(fractions) == 2:
		std = math.Abs(fractions[0]-fractions[1]) / 2
	case len(fractions) > 2:
		mean := sum / float64(len(fractions))
		var squares float64
		for _, f := range fractions {
			squares += (f - mean) * (f - mean)
		}
		std = math.Sqrt(squares / float64(len(fractions)))
	}
	return int64((1 - std) * float64(framework.MaxNodeScore))
}
