package apiserver

// This file is upstream's DefaultTolerationSeconds admission plugin. It is
// what makes a pod on a node that stops heartbeating go away after five
// minutes rather than at once or never: the node-lifecycle controller
// taints such a node node.kubernetes.io/unreachable:NoExecute (or
// not-ready:NoExecute when its kubelet reports Ready=False), and the
// taint-eviction controller deletes the pods that do not tolerate the taint,
// after the tolerationSeconds of the toleration that does. Every pod gets
// these two tolerations unless it brings its own, so `kubectl describe pod`
// shows, on any pod:
//
//	Tolerations: node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
//	             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s

import "kplane/pkg/api"

// DefaultTolerationSeconds is the tolerationSeconds of the not-ready and
// unreachable tolerations every pod gets (the kube-apiserver flags
// --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds, both 300 by default).
const DefaultTolerationSeconds int64 = 300

// nodeProblemTaints are the NoExecute taints the node-lifecycle controller
// puts on a node in trouble, which every pod is given time to tolerate.
var nodeProblemTaints = []string{api.TaintNodeNotReady, api.TaintNodeUnreachable}

// addDefaultTolerations adds to pod a toleration with tolerationSeconds
// DefaultTolerationSeconds for each node-problem taint it does not already
// tolerate, as upstream's plugin does. A toleration counts when its key is
// the taint's or empty (every key) and its effect NoExecute or empty (every
// effect); its operator, value and own tolerationSeconds do not matter: a
// pod that says how long it tolerates an unreachable node keeps its choice.
//
// Upstream runs the plugin on creates and on updates of the pod itself (not
// of its status or binding). admit cannot tell a status write from an
// update of the pod, so on update the rule runs only when the update
// changes the pod's tolerations: a `kubectl replace` of a manifest without
// them gets the defaults back (validation would otherwise refuse the
// removal), while a status write, which copies the stored spec, is left
// alone.
func addDefaultTolerations(pod, old *api.Pod) {
	if old != nil && tolerationsEqual(pod.Spec.Tolerations, old.Spec.Tolerations) {
		return
	}
	for _, key := range nodeProblemTaints {
		if toleratesNodeProblem(pod.Spec.Tolerations, key) {
			continue
		}
		seconds := DefaultTolerationSeconds
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, api.Toleration{
			Key:               key,
			Operator:          api.TolerationOpExists,
			Effect:            api.TaintEffectNoExecute,
			TolerationSeconds: &seconds,
		})
	}
}

// toleratesNodeProblem reports whether one of tolerations covers the
// NoExecute taint key (for any value and for any length of time).
func toleratesNodeProblem(tolerations []api.Toleration, key string) bool {
	for _, t := range tolerations {
		if (t.Key == key || t.Key == "") && (t.Effect == api.TaintEffectNoExecute || t.Effect == "") {
			return true
		}
	}
	return false
}

// tolerationsEqual compares two toleration lists, tolerationSeconds by value.
func tolerationsEqual(a, b []api.Toleration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if (x.TolerationSeconds == nil) != (y.TolerationSeconds == nil) ||
			(x.TolerationSeconds != nil && *x.TolerationSeconds != *y.TolerationSeconds) {
			return false
		}
		x.TolerationSeconds, y.TolerationSeconds = nil, nil
		if x != y {
			return false
		}
	}
	return true
}
