// Package plugins holds the scheduler's Filter and Score plugins, one file
// per plugin, each named and worded as upstream's plugin of the same name
// (k8s.io/kubernetes/pkg/scheduler/framework/plugins) so that the reasons
// in a FailedScheduling message read the same as on a real cluster.
//
// PreFilters (once per pod and cycle, before any node is looked at):
//
//	VolumeBinding      volumebinding.go      the pod's claims exist and are bound
//
// Filters (in the order they run, which is upstream's default order):
//
//	NodeUnschedulable  nodeunschedulable.go  spec.unschedulable (a cordoned node)
//	NodeName           nodename.go           spec.nodeName, if the pod names a node
//	TaintToleration    tainttoleration.go    NoSchedule / NoExecute taints
//	NodeAffinity       nodeaffinity.go       nodeSelector and required node affinity
//	NodePorts          nodeports.go          hostPort conflicts
//	NodeResourcesFit   noderesourcesfit.go   requests vs free allocatable
//	VolumeBinding      volumebinding.go      the bound volumes' node affinity
//
// Scores (weight in brackets, upstream's defaults):
//
//	TaintToleration [3]                  fewer untolerated PreferNoSchedule taints is better
//	NodeAffinity [2]                     more matched preferred-affinity weight is better
//	NodeResourcesFit [1]                 leastallocated.go: emptier nodes are better
//	NodeResourcesBalancedAllocation [1]  balancedallocation.go: cpu and memory used evenly
//
// DefaultProfile (registry.go) assembles them.
package plugins
