package cluster

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/cloudprovider"
)

// nodeReady returns whether node's Ready condition is True, and otherwise a
// short description of why not ("NotReady: KubeletNotReady", "no Ready
// condition yet"). Ready is the condition the kubelet sets once it can run
// pods; it is what `kubectl get nodes` shows in STATUS.
func nodeReady(node *api.Node) (bool, string) {
	for _, cond := range node.Status.Conditions {
		if cond.Type != api.NodeReady {
			continue
		}
		if cond.Status == api.ConditionTrue {
			return true, "Ready"
		}
		if cond.Reason != "" {
			return false, "NotReady: " + cond.Reason
		}
		return false, "NotReady"
	}
	return false, "no Ready condition yet"
}

// cloudUninitialized reports whether node still carries the taint its
// kubelet registered it with under --cloud-provider=external, which the
// cloud-controller-manager's cloud-node controller removes.
func cloudUninitialized(node *api.Node) bool {
	for _, t := range node.Spec.Taints {
		if t.Key == cloudprovider.TaintExternalCloudProvider {
			return true
		}
	}
	return false
}

// nodesNotReady describes each node of want that is not Ready in nodes,
// e.g. "node2: not registered". An empty result means all are Ready.
func nodesNotReady(want []string, nodes []*api.Node) []string {
	byName := map[string]*api.Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	var waiting []string
	for _, name := range want {
		n, ok := byName[name]
		if !ok {
			waiting = append(waiting, name+": not registered")
			continue
		}
		if ready, why := nodeReady(n); !ready {
			waiting = append(waiting, fmt.Sprintf("%s: %s", name, why))
		} else if cloudUninitialized(n) {
			// Ready, but no pod would be scheduled there yet: a cluster
			// that says "ready" must run what it is given.
			waiting = append(waiting, fmt.Sprintf("%s: waiting for the cloud-controller-manager to remove the %s taint", name, cloudprovider.TaintExternalCloudProvider))
		}
	}
	return waiting
}
