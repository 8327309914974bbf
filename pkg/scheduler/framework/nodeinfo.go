package framework

import (
	"maps"

	"kplane/pkg/api"
)

// Resource is an amount of each resource the scheduler accounts for, as
// plain integers so that the hot loop never touches a Quantity: CPU in
// millicores, memory and ephemeral storage in bytes, and scalar resources
// (extended resources, huge pages) in their own units.
type Resource struct {
	MilliCPU         int64
	Memory           int64
	EphemeralStorage int64
	// AllowedPodNumber is the node's "pods" allocatable; only meaningful
	// in NodeInfo.Allocatable.
	AllowedPodNumber int64
	// ScalarResources is nil when there are none, which is the usual case.
	ScalarResources map[string]int64
}

// resourceFromList converts an API ResourceList.
func resourceFromList(list api.ResourceList) Resource {
	var r Resource
	for name, q := range list {
		switch name {
		case api.ResourceCPU:
			r.MilliCPU = q.MilliValue()
		case api.ResourceMemory:
			r.Memory = q.Value()
		case api.ResourceEphemeralStorage:
			r.EphemeralStorage = q.Value()
		case api.ResourcePods:
			r.AllowedPodNumber = q.Value()
		default:
			if IsScalarResourceName(name) {
				if r.ScalarResources == nil {
					r.ScalarResources = map[string]int64{}
				}
				r.ScalarResources[name] = q.Value()
			}
		}
	}
	return r
}

// Add adds other to r.
func (r *Resource) Add(other Resource) {
	r.MilliCPU += other.MilliCPU
	r.Memory += other.Memory
	r.EphemeralStorage += other.EphemeralStorage
	r.AllowedPodNumber += other.AllowedPodNumber
	for name, v := range other.ScalarResources {
		if r.ScalarResources == nil {
			r.ScalarResources = map[string]int64{}
		}
		r.ScalarResources[name] += v
	}
}

// Sub subtracts other from r.
func (r *Resource) Sub(other Resource) {
	r.MilliCPU -= other.MilliCPU
	r.Memory -= other.Memory
	r.EphemeralStorage -= other.EphemeralStorage
	r.AllowedPodNumber -= other.AllowedPodNumber
	for name, v := range other.ScalarResources {
		if r.ScalarResources == nil {
			r.ScalarResources = map[string]int64{}
		}
		r.ScalarResources[name] -= v
	}
}

// SetMax raises each amount of r to other's where other's is larger.
func (r *Resource) SetMax(other Resource) {
	r.MilliCPU = max(r.MilliCPU, other.MilliCPU)
	r.Memory = max(r.Memory, other.Memory)
	r.EphemeralStorage = max(r.EphemeralStorage, other.EphemeralStorage)
	r.AllowedPodNumber = max(r.AllowedPodNumber, other.AllowedPodNumber)
	for name, v := range other.ScalarResources {
		if r.ScalarResources == nil {
			r.ScalarResources = map[string]int64{}
		}
		r.ScalarResources[name] = max(r.ScalarResources[name], v)
	}
}

// Clone returns a copy of r that shares no map with it.
func (r Resource) Clone() Resource {
	r.ScalarResources = maps.Clone(r.ScalarResources)
	return r
}

// IsZero reports whether r asks for nothing at all.
func (r Resource) IsZero() bool {
	if r.MilliCPU != 0 || r.Memory != 0 || r.EphemeralStorage != 0 || r.AllowedPodNumber != 0 {
		return false
	}
	for _, v := range r.ScalarResources {
		if v != 0 {
			return false
		}
	}
	return true
}

// DefaultBindAllHostIP is the host IP a port binds to when a container
// names none: every address of the node.
const DefaultBindAllHostIP = "0.0.0.0"

// HostPort is one (host IP, protocol, port) a container binds on its node.
type HostPort struct {
	IP       string
	Protocol string
	Port     int32
}

// NewHostPort fills in the defaults a container port implies: IP 0.0.0.0
// and protocol TCP.
func NewHostPort(ip, protocol string, port int32) HostPort {
	if ip == "" {
		ip = DefaultBindAllHostIP
	}
	if protocol == "" {
		protocol = string(api.ProtocolTCP)
	}
	return HostPort{IP: ip, Protocol: protocol, Port: port}
}

// HostPortInfo counts the host ports in use on one node.
type HostPortInfo map[HostPort]int

// Conflicts reports whether binding p would clash with a port in use: the
// same protocol and port on the same IP, or on any IP when either side
// binds 0.0.0.0 (upstream's HostPortInfo.CheckConflict).
func (h HostPortInfo) Conflicts(p HostPort) bool {
	if p.IP == DefaultBindAllHostIP {
		for used := range h {
			if used.Protocol == p.Protocol && used.Port == p.Port {
				return true
			}
		}
		return false
	}
	if h[p] > 0 {
		return true
	}
	return h[HostPort{IP: DefaultBindAllHostIP, Protocol: p.Protocol, Port: p.Port}] > 0
}

// NodeInfo is the scheduler's view of one node: the Node object and the
// sum of what the pods bound (or assumed bound) to it ask for. The cache
// keeps one per node and updates it as pods come and go, so a scheduling
// cycle reads totals instead of adding up pods.
//
// Invariant: Requested, NonZeroRequested and UsedPorts are always the sums
// over Pods. Only the cache changes a NodeInfo, under its lock.
type NodeInfo struct {
	// Node is nil while the cache knows pods on a node it has not seen (or
	// no longer sees): such a NodeInfo is never offered to plugins.
	Node *api.Node
	// Pods are the pods on the node by UID, including assumed ones.
	Pods map[string]*PodInfo
	// Allocatable is the node's status.allocatable.
	Allocatable Resource
	// Requested sums the pods' Requests.
	Requested Resource
	// NonZeroRequested sums the pods' NonZeroRequests.
	NonZeroRequested Resource
	// UsedPorts counts the pods' host ports.
	UsedPorts HostPortInfo
}

// NewNodeInfo returns an empty NodeInfo for node (which may be nil).
func NewNodeInfo(node *api.Node) *NodeInfo {
	n := &NodeInfo{Pods: map[string]*PodInfo{}, UsedPorts: HostPortInfo{}}
	n.SetNode(node)
	return n
}

// Name returns the node's name, or "" for a NodeInfo without a Node.
func (n *NodeInfo) Name() string {
	if n.Node == nil {
		return ""
	}
	return n.Node.Name
}

// SetNode records the latest Node object and its allocatable.
func (n *NodeInfo) SetNode(node *api.Node) {
	n.Node = node
	if node == nil {
		n.Allocatable = Resource{}
		return
	}
	n.Allocatable = resourceFromList(node.Status.Allocatable)
}

// AddPod counts a pod on the node. Adding a UID already present replaces
// the old entry.
func (n *NodeInfo) AddPod(p *PodInfo) {
	n.RemovePod(p.UID)
	n.Pods[p.UID] = p
	n.Requested.Add(p.Requests)
	n.NonZeroRequested.Add(p.NonZeroRequests)
	for _, hp := range p.HostPorts {
		n.UsedPorts[hp]++
	}
}

// RemovePod stops counting the pod with uid; it reports whether it was there.
func (n *NodeInfo) RemovePod(uid string) bool {
	p, ok := n.Pods[uid]
	if !ok {
		return false
	}
	delete(n.Pods, uid)
	n.Requested.Sub(p.Requests)
	n.NonZeroRequested.Sub(p.NonZeroRequests)
	for _, hp := range p.HostPorts {
		if n.UsedPorts[hp]--; n.UsedPorts[hp] <= 0 {
			delete(n.UsedPorts, hp)
		}
	}
	return true
}
