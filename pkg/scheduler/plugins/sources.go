package plugins

// upstreamSources names, by plugin name, the upstream file each plugin
// mirrors (under kubernetes/kubernetes): the scheduler's decision records
// cite it next to the plugin's verdicts and scores.
var upstreamSources = map[string]string{
	"NodeUnschedulable":               "pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go",
	"NodeName":                        "pkg/scheduler/framework/plugins/nodename/node_name.go",
	"TaintToleration":                 "pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go",
	"NodeAffinity":                    "pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go",
	"NodePorts":                       "pkg/scheduler/framework/plugins/nodeports/node_ports.go",
	"NodeResourcesFit":                "pkg/scheduler/framework/plugins/noderesources/fit.go",
	"NodeResourcesBalancedAllocation": "pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go",
	"VolumeBinding":                   "pkg/scheduler/framework/plugins/volumebinding/volume_binding.go",
}

// UpstreamSource returns the upstream file plugin mirrors, or "" for a
// plugin kplane does not know.
func UpstreamSource(plugin string) string { return upstreamSources[plugin] }
