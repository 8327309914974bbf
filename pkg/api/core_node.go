package api

// This file holds Node, a machine (here, a simulated kubelet) that runs pods,
// with the capacity, conditions and addresses its kubelet reports.

// Node is a worker machine. Its kubelet registers it, reports capacity and
// conditions in status, and renews a Lease as a heartbeat; the node
// lifecycle controller taints it when the heartbeats stop.
type Node struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       NodeSpec   `json:"spec,omitempty"`
	Status     NodeStatus `json:"status,omitempty"`
}

// NodeSpec is the desired state of a node.
type NodeSpec struct {
	PodCIDR            string   `json:"podCIDR,omitempty"`
	PodCIDRs           []string `json:"podCIDRs,omitempty" patchStrategy:"merge"`
	ProviderID         string   `json:"providerID,omitempty"`
	Unschedulable      bool     `json:"unschedulable,omitempty"`
	Taints             []Taint  `json:"taints,omitempty"`
	DoNotUseExternalID string   `json:"externalID,omitempty"`
}

// NodePhase is a node's lifecycle phase (deprecated upstream, still served).
type NodePhase string

// The node phases.
const (
	NodePending    NodePhase = "Pending"
	NodeRunning    NodePhase = "Running"
	NodeTerminated NodePhase = "Terminated"
)

// NodeConditionType names a node condition.
type NodeConditionType string

// The node condition types.
const (
	// NodeReady: the kubelet is healthy and ready to accept pods.
	NodeReady NodeConditionType = "Ready"
	// NodeMemoryPressure: the node is short of memory.
	NodeMemoryPressure NodeConditionType = "MemoryPressure"
	// NodeDiskPressure: the node is short of disk.
	NodeDiskPressure NodeConditionType = "DiskPressure"
	// NodePIDPressure: the node is short of process IDs.
	NodePIDPressure NodeConditionType = "PIDPressure"
	// NodeNetworkUnavailable: the node's network is not configured.
	NodeNetworkUnavailable NodeConditionType = "NetworkUnavailable"
)

// NodeCondition is one condition of a node, refreshed by each kubelet heartbeat.
type NodeCondition struct {
	Type               NodeConditionType `json:"type"`
	Status             ConditionStatus   `json:"status"`
	LastHeartbeatTime  Time              `json:"lastHeartbeatTime,omitempty"`
	LastTransitionTime Time              `json:"lastTransitionTime,omitempty"`
	Reason             string            `json:"reason,omitempty"`
	Message            string            `json:"message,omitempty"`
}

// NodeAddressType names a kind of node address.
type NodeAddressType string

// The node address types.
const (
	NodeHostName    NodeAddressType = "Hostname"
	NodeInternalIP  NodeAddressType = "InternalIP"
	NodeExternalIP  NodeAddressType = "ExternalIP"
	NodeInternalDNS NodeAddressType = "InternalDNS"
	NodeExternalDNS NodeAddressType = "ExternalDNS"
)

// NodeAddress is one address of a node.
type NodeAddress struct {
	Type    NodeAddressType `json:"type"`
	Address string          `json:"address"`
}

// NodeStatus is what a kubelet reports about its node.
type NodeStatus struct {
	Capacity        ResourceList         `json:"capacity,omitempty"`
	Allocatable     ResourceList         `json:"allocatable,omitempty"`
	Phase           NodePhase            `json:"phase,omitempty"`
	Conditions      []NodeCondition      `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	Addresses       []NodeAddress        `json:"addresses,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	DaemonEndpoints NodeDaemonEndpoints  `json:"daemonEndpoints,omitempty"`
	NodeInfo        NodeSystemInfo       `json:"nodeInfo,omitempty"`
	Images          []ContainerImage     `json:"images,omitempty"`
	VolumesInUse    []string             `json:"volumesInUse,omitempty"`
	VolumesAttached []AttachedVolume     `json:"volumesAttached,omitempty"`
	RuntimeHandlers []NodeRuntimeHandler `json:"runtimeHandlers,omitempty"`
	Features        *NodeFeatures        `json:"features,omitempty"`
}

// NodeDaemonEndpoints lists the ports of daemons on the node.
type NodeDaemonEndpoints struct {
	KubeletEndpoint DaemonEndpoint `json:"kubeletEndpoint,omitempty"`
}

// DaemonEndpoint is a daemon's port. The capitalised JSON name is upstream's.
type DaemonEndpoint struct {
	Port int32 `json:"Port"`
}

// NodeSystemInfo describes the node's machine and software versions.
type NodeSystemInfo struct {
	MachineID               string          `json:"machineID"`
	SystemUUID              string          `json:"systemUUID"`
	BootID                  string          `json:"bootID"`
	KernelVersion           string          `json:"kernelVersion"`
	OSImage                 string          `json:"osImage"`
	ContainerRuntimeVersion string          `json:"containerRuntimeVersion"`
	KubeletVersion          string          `json:"kubeletVersion"`
	KubeProxyVersion        string          `json:"kubeProxyVersion"`
	OperatingSystem         string          `json:"operatingSystem"`
	Architecture            string          `json:"architecture"`
	Swap                    *NodeSwapStatus `json:"swap,omitempty"`
}

// NodeSwapStatus is the node's swap space.
type NodeSwapStatus struct {
	Capacity *int64 `json:"capacity,omitempty"`
}

// ContainerImage is an image present on the node.
type ContainerImage struct {
	Names     []string `json:"names"`
	SizeBytes int64    `json:"sizeBytes,omitempty"`
}

// AttachedVolume is a volume attached to the node.
type AttachedVolume struct {
	Name       string `json:"name"`
	DevicePath string `json:"devicePath"`
}

// NodeRuntimeHandler is a container runtime handler available on the node.
type NodeRuntimeHandler struct {
	Name     string                      `json:"name"`
	Features *NodeRuntimeHandlerFeatures `json:"features,omitempty"`
}

// NodeRuntimeHandlerFeatures lists what a runtime handler supports.
type NodeRuntimeHandlerFeatures struct {
	RecursiveReadOnlyMounts *bool `json:"recursiveReadOnlyMounts,omitempty"`
	UserNamespaces          *bool `json:"userNamespaces,omitempty"`
}

// NodeFeatures lists features the node's kubelet supports.
type NodeFeatures struct {
	SupplementalGroupsPolicy *bool `json:"supplementalGroupsPolicy,omitempty"`
}
