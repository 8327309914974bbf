package plugins

import "kplane/pkg/scheduler/framework"

// DefaultProfile returns the plugins of upstream's default profile that
// kplane implements, in upstream's order and with upstream's score weights.
func DefaultProfile() *framework.Profile {
	fit := &NodeResourcesFit{}
	taints := &TaintToleration{}
	affinity := &NodeAffinity{}
	return &framework.Profile{
		Filters: []framework.FilterPlugin{
			&NodeUnschedulable{},
			&NodeName{},
			taints,
			affinity,
			&NodePorts{},
			fit,
		},
		Scores: []framework.WeightedScorePlugin{
			{ScorePlugin: taints, Weight: 3},
			{ScorePlugin: affinity, Weight: 2},
			{ScorePlugin: fit, Weight: 1},
			{ScorePlugin: &BalancedAllocation{}, Weight: 1},
		},
	}
}
