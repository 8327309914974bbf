package cluster

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// controlPlaneRoleLabel marks the control-plane node. A kubelet may not set
// node-role.kubernetes.io/ labels on its own Node (the NodeRestriction
// admission plugin refuses them), so, like kubeadm's mark-control-plane
// phase, Up sets it with the admin's credentials once the node has
// registered.
const controlPlaneRoleLabel = "node-role.kubernetes.io/control-plane"

// markControlPlane labels the registered control-plane node, if it is not
// labelled yet. It reports whether the node carries the label now.
func markControlPlane(ctx context.Context, admin *client.Client, nodes []*api.Node) (bool, error) {
	for _, n := range nodes {
		if n.Name != ControlPlaneNodeName {
			continue
		}
		if _, ok := n.Labels[controlPlaneRoleLabel]; ok {
			return true, nil
		}
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:""}}}`, controlPlaneRoleLabel)
		if _, err := admin.Nodes().Patch(ctx, n.Name, client.MergePatchType, []byte(patch), client.PatchOptions{}); err != nil {
			return false, fmt.Errorf("label node %s as control plane: %w", n.Name, err)
		}
		return true, nil
	}
	return false, nil
}
