package daemonset

import "kplane/pkg/api"

// daemonTolerations are the tolerations every daemon pod gets on top of
// its template's (upstream's AddOrUpdateDaemonPodTolerations). A daemon
// belongs to its node, so node trouble must neither evict it (the NoExecute
// not-ready and unreachable taints, tolerated forever: no
// tolerationSeconds) nor keep it off the node (the pressure and
// unschedulable NoSchedule taints).
var daemonTolerations = []api.Toleration{
	{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
	{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
	{Key: api.TaintNodeDiskPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
	{Key: api.TaintNodeMemoryPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
	{Key: api.TaintNodePIDPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
	{Key: api.TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
}

// hostNetworkToleration is added for hostNetwork pods only: they do not
// need the pod network, so they may run before it is up.
var hostNetworkToleration = api.Toleration{
	Key: api.TaintNodeNetworkUnavailable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule,
}

// addDaemonTolerations adds the daemon tolerations to spec.
func addDaemonTolerations(spec *api.PodSpec) {
	for _, t := range daemonTolerations {
		addOrUpdateToleration(spec, t)
	}
	if spec.HostNetwork {
		addOrUpdateToleration(spec, hostNetworkToleration)
	}
}

// addOrUpdateToleration adds t to spec unless a toleration with the same
// key, operator, value and effect is there; that one is replaced by t (so
// a template's not-ready toleration with tolerationSeconds becomes the
// daemon's one without), as upstream's AddOrUpdateTolerationInPodSpec.
func addOrUpdateToleration(spec *api.PodSpec, t api.Toleration) {
	for i := range spec.Tolerations {
		old := &spec.Tolerations[i]
		if old.Key == t.Key && old.Operator == t.Operator && old.Value == t.Value && old.Effect == t.Effect {
			*old = t
			return
		}
	}
	spec.Tolerations = append(spec.Tolerations, t)
}
