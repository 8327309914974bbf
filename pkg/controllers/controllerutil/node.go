package controllerutil

import "kplane/pkg/api"

// NodeReadyStatus is the status of node's Ready condition: True, False,
// Unknown (the node lifecycle controller's verdict on a node whose kubelet
// stopped posting), or "" when the node has no Ready condition yet.
func NodeReadyStatus(node *api.Node) api.ConditionStatus {
	for _, c := range node.Status.Conditions {
		if c.Type == api.NodeReady {
			return c.Status
		}
	}
	return ""
}
