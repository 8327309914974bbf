package cloudnodelifecycle

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/cloudprovider"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose MonitorNodes this mirrors.
const decisionSource = "staging/src/k8s.io/cloud-provider/controllers/nodelifecycle/node_lifecycle_controller.go"

// recordDelete records "node2 Ready=Unknown and the cloud has no machine
// for it → delete the Node".
func (c *Controller) recordDelete(node *api.Node, ready api.ConditionStatus) {
	if !c.decisions.Enabled() {
		return
	}
	c.decisions.Record(&node.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("%s Ready=%s and the cloud has no machine for it → delete the Node", node.Name, ready),
		Values:  map[string]string{"ready": string(ready), "action": "delete"},
		Source:  decisionSource,
	})
}

// recordTaint records the shutdown taint added ("node2 Ready=Unknown and
// its machine is shut down → taint …") or removed ("node2 Ready=True →
// remove …").
func (c *Controller) recordTaint(node *api.Node, ready api.ConditionStatus, add bool) {
	if !c.decisions.Enabled() {
		return
	}
	message := fmt.Sprintf("%s Ready=%s and its machine is shut down → taint %s:NoSchedule", node.Name, ready, cloudprovider.TaintNodeShutdown)
	action := "taint"
	if !add {
		message = fmt.Sprintf("%s Ready=%s again → remove the %s taint", node.Name, ready, cloudprovider.TaintNodeShutdown)
		action = "untaint"
	}
	c.decisions.Record(&node.ObjectMeta, debug.Decision{
		Message: message,
		Values:  map[string]string{"ready": string(ready), "action": action},
		Source:  decisionSource,
	})
}
