package nodelifecycle

import (
	"time"

	"kplane/pkg/api"
)

// kubeletConditions are the node conditions the kubelet owns and so the
// ones the controller speaks for when the kubelet goes silent.
// NetworkUnavailable is left alone, as upstream: the network plugin, not
// the kubelet, reports it.
var kubeletConditions = []api.NodeConditionType{
	api.NodeReady, api.NodeMemoryPressure, api.NodeDiskPressure, api.NodePIDPressure,
}

// The reasons and messages upstream's node lifecycle controller writes.
const (
	reasonStatusUnknown       = "NodeStatusUnknown"
	messageStatusUnknown      = "Kubelet stopped posting node status."
	reasonStatusNeverUpdated  = "NodeStatusNeverUpdated"
	messageStatusNeverUpdated = "Kubelet never posted node status."
)

// findCondition returns the condition of type t in status, or nil.
func findCondition(status *api.NodeStatus, t api.NodeConditionType) *api.NodeCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			return &status.Conditions[i]
		}
	}
	return nil
}

// markStatusUnknown sets every kubelet condition of node to Unknown, as
// upstream's tryUpdateNodeHealth does for a node whose heartbeats stopped,
// and reports whether anything changed. A condition that is already
// Unknown is left as it is (its transition time stays the time it became
// Unknown); one the kubelet never posted is added with NodeStatusNeverUpdated.
// lastHeartbeatTime is not moved: it stays the kubelet's last heartbeat
// (or, for a condition never posted, the node's creation), which is what
// `kubectl describe node` shows under LastHeartbeatTime.
func markStatusUnknown(node *api.Node, now time.Time) bool {
	transition := api.NewTime(now.UTC().Truncate(time.Second))
	changed := false
	for _, t := range kubeletConditions {
		c := findCondition(&node.Status, t)
		switch {
		case c == nil:
			node.Status.Conditions = append(node.Status.Conditions, api.NodeCondition{
				Type: t, Status: api.ConditionUnknown,
				Reason: reasonStatusNeverUpdated, Message: messageStatusNeverUpdated,
				LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: transition,
			})
			changed = true
		case c.Status != api.ConditionUnknown:
			c.Status, c.Reason, c.Message = api.ConditionUnknown, reasonStatusUnknown, messageStatusUnknown
			c.LastTransitionTime = transition
			changed = true
		}
	}
	return changed
}
