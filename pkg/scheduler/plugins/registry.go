package plugins

import (
	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/informer"
	"kplane/pkg/scheduler/framework"
)

// DefaultProfile returns the plugins of upstream's default profile that
// kplane implements, in upstream's order and with upstream's score weights.
// VolumeBinding reads claims, volumes and storage classes from the given
// informer caches and writes delayed claims through c (see
// NewVolumeBinding); the other plugins need nothing but the pod and the
// node.
func DefaultProfile(claims *informer.Lister[*api.PersistentVolumeClaim], volumes *informer.Lister[*api.PersistentVolume],
	classes *informer.Lister[*api.StorageClass], c *client.Client) *framework.Profile {
	fit := &NodeResourcesFit{}
	taints := &TaintToleration{}
	affinity := &NodeAffinity{}
	volumeBinding := NewVolumeBinding(claims, volumes, classes, c)
	return &framework.Profile{
		PreFilters: []framework.PreFilterPlugin{
			volumeBinding,
		},
		Filters: []framework.FilterPlugin{
			&NodeUnschedulable{},
			&NodeName{},
			taints,
			affinity,
			&NodePorts{},
			fit,
			volumeBinding,
		},
		Scores: []framework.WeightedScorePlugin{
			{ScorePlugin: taints, Weight: 3},
			{ScorePlugin: affinity, Weight: 2},
			{ScorePlugin: fit, Weight: 1},
			{ScorePlugin: &BalancedAllocation{}, Weight: 1},
		},
		PreBinds: []framework.PreBindPlugin{
			volumeBinding,
		},
	}
}
