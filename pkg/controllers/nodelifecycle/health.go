package nodelifecycle

import (
	"sync"
	"time"

	"kplane/pkg/api"
)

// healthTracker remembers, per node, the last heartbeat the controller saw
// and when, by its own clock, it saw it move: upstream's nodeHealthMap.
//
// The controller never compares a heartbeat timestamp with its own clock.
// A kubelet writes lastHeartbeatTime and renewTime with the kubelet's
// clock, which may be skewed from the controller-manager's; what counts is
// that the values change. So a node's probe time is the controller's time
// at which it last observed a new heartbeat (a later Lease renewTime, or a
// different Ready lastHeartbeatTime), and the node is overdue when
// the grace period has passed since then. A side effect, as upstream: a
// controller that has just started gives every node a full grace period.
type healthTracker struct {
	mu sync.Mutex
	// nodes holds one entry per node the controller has synced since it
	// started; an entry goes when its node is deleted.
	nodes map[string]*nodeHealth
}

// nodeHealth is what the tracker knows about one node.
type nodeHealth struct {
	// readyHeartbeat is the Ready condition's lastHeartbeatTime last seen
	// (zero while the node has no Ready condition).
	readyHeartbeat time.Time
	hasReady       bool
	// leaseRenewTime is the node Lease's renewTime last seen (zero without
	// a Lease).
	leaseRenewTime time.Time
	// probe is the controller's time when a heartbeat last moved.
	probe time.Time
}

func newHealthTracker() *healthTracker {
	return &healthTracker{nodes: map[string]*nodeHealth{}}
}

// observe records node's current heartbeats (its Ready condition, nil when
// it has none, and its Lease, nil when there is none) at the controller's
// time now, and returns the node's probe time and whether this is the first
// time the tracker sees the node.
//
// A node seen for the first time is probed now, or — when its kubelet has
// never posted a Ready condition — at its creation, so that a node that
// never reports is marked after the startup grace period counted from its
// registration (upstream's nodeStartupGracePeriod).
func (h *healthTracker) observe(node *api.Node, ready *api.NodeCondition, lease *api.Lease, now time.Time) (probe time.Time, first bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	health, known := h.nodes[node.Name]
	if !known {
		health = &nodeHealth{probe: now}
		if ready == nil {
			health.probe = node.CreationTimestamp.Time
		}
		h.nodes[node.Name] = health
	}
	if ready != nil && (!health.hasReady || !ready.LastHeartbeatTime.Time.Equal(health.readyHeartbeat)) {
		if known {
			health.probe = now
		}
		health.readyHeartbeat, health.hasReady = ready.LastHeartbeatTime.Time, true
	}
	if renew := leaseRenewTime(lease); renew.After(health.leaseRenewTime) {
		if known || ready == nil {
			health.probe = now
		}
		health.leaseRenewTime = renew
	}
	return health.probe, !known
}

// forget drops a deleted node.
func (h *healthTracker) forget(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.nodes, name)
}

// leaseRenewTime is a Lease's renewTime, zero for no Lease or no renewal.
func leaseRenewTime(lease *api.Lease) time.Time {
	if lease == nil || lease.Spec.RenewTime == nil {
		return time.Time{}
	}
	return lease.Spec.RenewTime.Time
}
