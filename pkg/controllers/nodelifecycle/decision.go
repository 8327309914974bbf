package nodelifecycle

// This file records, for the debug journal (what `ctl why node/x`
// shows), each change the sync decides on for a node: its conditions
// marked Unknown when its heartbeats are overdue, its condition taints
// added or removed, its pods marked not ready, a pod range assigned. A
// sync that finds the node as it should be records nothing.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose monitorNodeHealth and
// doNoExecuteTaintingPass these mirror.
const decisionSource = "pkg/controller/nodelifecycle/node_lifecycle_controller.go"

// recordUnknown records the verdict on an overdue node, e.g. "node2: no
// heartbeat (Lease or Ready condition) for 52s > grace 50s → Ready=Unknown
// and the other kubelet conditions Unknown".
func (c *Controller) recordUnknown(node *api.Node, lastHeartbeat time.Time, grace time.Duration, now time.Time) {
	if !c.decisions.Enabled() {
		return
	}
	silent := now.Sub(lastHeartbeat).Round(time.Second)
	which := "grace"
	if findCondition(&node.Status, api.NodeReady) == nil {
		which = "startup grace" // the kubelet never posted a status
	}
	c.decisions.Record(&node.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("%s: no heartbeat (Lease or Ready condition) for %s > %s %s → Ready=Unknown and the other kubelet conditions Unknown",
			node.Name, silent, which, grace),
		Values: map[string]string{
			"secondsSinceHeartbeat": strconv.Itoa(int(silent / time.Second)),
			"gracePeriodSeconds":    strconv.Itoa(int(grace / time.Second)),
			"lastHeartbeat":         lastHeartbeat.UTC().Format(time.RFC3339),
		},
		Source: decisionSource,
	})
}

// recordTaints records a change of node's condition taints, e.g. "node2
// Ready=Unknown → taints node.kubernetes.io/unreachable:NoSchedule,
// node.kubernetes.io/unreachable:NoExecute (were none)".
func (c *Controller) recordTaints(node *api.Node, before, after []api.Taint) {
	if !c.decisions.Enabled() {
		return
	}
	c.decisions.Record(&node.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("%s Ready=%s → taints %s (were %s)",
			node.Name, controllerutil.NodeReadyStatus(node), controllerutil.OrNone(taintList(after)), controllerutil.OrNone(taintList(before))),
		Values: map[string]string{"ready": string(controllerutil.NodeReadyStatus(node)), "taints": strconv.Itoa(len(after))},
		Source: decisionSource,
	})
}

// recordPodsNotReady records that the pods of an Unknown node lose their
// Ready condition, so that Services stop sending them traffic.
func (c *Controller) recordPodsNotReady(node *api.Node, pods []*api.Pod) {
	if !c.decisions.Enabled() || len(pods) == 0 {
		return
	}
	names := make([]string, len(pods))
	for i, pod := range pods {
		names[i] = pod.Namespace + "/" + pod.Name
	}
	c.decisions.Record(&node.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("%s Ready=%s → mark its %d ready pods Ready=False: %s",
			node.Name, controllerutil.NodeReadyStatus(node), len(pods), strings.Join(names, ", ")),
		Values: map[string]string{"pods": strconv.Itoa(len(pods))},
		Source: "pkg/controller/util/node/controller_utils.go",
	})
}

// recordPodCIDR records the pod range given to a node that had none.
func (c *Controller) recordPodCIDR(node *api.Node, cidr string) {
	if !c.decisions.Enabled() {
		return
	}
	c.decisions.Record(&node.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("%s has no podCIDR → assign %s, the first free range", node.Name, cidr),
		Values:  map[string]string{"podCIDR": cidr},
		Source:  "pkg/controller/nodeipam/ipam/range_allocator.go",
	})
}
