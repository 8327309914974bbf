package api

// This file holds Node, a machine (here, a simulated kubelet) that runs pods,
// with the capacity, conditions and addresses its kubelet reports.

// Node is a worker machine. Its kubelet registers it, reports capacity and
// conditions in status, and renews a Lease as a heartbeat; the node
// lifecycle controller taints it when the heartbeats stop.
type Node struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       NodeSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     NodeStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// NodeSpec is the desired state of a node.
type NodeSpec struct {
	PodCIDR            string   `json:"podCIDR,omitempty" protobuf:"bytes,1,opt,name=podCIDR"`
	PodCIDRs           []string `json:"podCIDRs,omitempty" patchStrategy:"merge" protobuf:"bytes,7,opt,name=podCIDRs"`
	ProviderID         string   `json:"providerID,omitempty" protobuf:"bytes,3,opt,name=providerID"`
	Unschedulable      bool     `json:"unschedulable,omitempty" protobuf:"varint,4,opt,name=unschedulable"`
	Taints             []Taint  `json:"taints,omitempty" protobuf:"bytes,5,opt,name=taints"`
	DoNotUseExternalID string   `json:"externalID,omitempty" protobuf:"bytes,2,opt,name=externalID"`
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
	Type               NodeConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=NodeConditionType"`
	Status             ConditionStatus   `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	LastHeartbeatTime  Time              `json:"lastHeartbeatTime,omitempty" protobuf:"bytes,3,opt,name=lastHeartbeatTime"`
	LastTransitionTime Time              `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	Reason             string            `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	Message            string            `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
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
	Type    NodeAddressType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=NodeAddressType"`
	Address string          `json:"address" protobuf:"bytes,2,opt,name=address"`
}

// NodeStatus is what a kubelet reports about its node.
type NodeStatus struct {
	Capacity        ResourceList         `json:"capacity,omitempty" protobuf:"bytes,1,rep,name=capacity,casttype=ResourceList,castkey=ResourceName" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	Allocatable     ResourceList         `json:"allocatable,omitempty" protobuf:"bytes,2,rep,name=allocatable,casttype=ResourceList,castkey=ResourceName" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	Phase           NodePhase            `json:"phase,omitempty" protobuf:"bytes,3,opt,name=phase,casttype=NodePhase"`
	Conditions      []NodeCondition      `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,4,rep,name=conditions"`
	Addresses       []NodeAddress        `json:"addresses,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,5,rep,name=addresses"`
	DaemonEndpoints NodeDaemonEndpoints  `json:"daemonEndpoints,omitempty" protobuf:"bytes,6,opt,name=daemonEndpoints"`
	NodeInfo        NodeSystemInfo       `json:"nodeInfo,omitempty" protobuf:"bytes,7,opt,name=nodeInfo"`
	Images          []ContainerImage     `json:"images,omitempty" protobuf:"bytes,8,rep,name=images"`
	VolumesInUse    []string             `json:"volumesInUse,omitempty" protobuf:"bytes,9,rep,name=volumesInUse"`
	VolumesAttached []AttachedVolume     `json:"volumesAttached,omitempty" protobuf:"bytes,10,rep,name=volumesAttached"`
	RuntimeHandlers []NodeRuntimeHandler `json:"runtimeHandlers,omitempty" protobuf:"bytes,12,rep,name=runtimeHandlers"`
	Features        *NodeFeatures        `json:"features,omitempty" protobuf:"bytes,13,rep,name=features"`
}

// NodeDaemonEndpoints lists the ports of daemons on the node.
type NodeDaemonEndpoints struct {
	KubeletEndpoint DaemonEndpoint `json:"kubeletEndpoint,omitempty" protobuf:"bytes,1,opt,name=kubeletEndpoint"`
}

// DaemonEndpoint is a daemon's port. The capitalised JSON name is upstream's.
type DaemonEndpoint struct {
	Port int32 `json:"Port" protobuf:"varint,1,opt,name=Port"`
}

// NodeSystemInfo describes the node's machine and software versions.
type NodeSystemInfo struct {
	MachineID               string          `json:"machineID" protobuf:"bytes,1,opt,name=machineID"`
	SystemUUID              string          `json:"systemUUID" protobuf:"bytes,2,opt,name=systemUUID"`
	BootID                  string          `json:"bootID" protobuf:"bytes,3,opt,name=bootID"`
	KernelVersion           string          `json:"kernelVersion" protobuf:"bytes,4,opt,name=kernelVersion"`
	OSImage                 string          `json:"osImage" protobuf:"bytes,5,opt,name=osImage"`
	ContainerRuntimeVersion string          `json:"containerRuntimeVersion" protobuf:"bytes,6,opt,name=containerRuntimeVersion"`
	KubeletVersion          string          `json:"kubeletVersion" protobuf:"bytes,7,opt,name=kubeletVersion"`
	KubeProxyVersion        string          `json:"kubeProxyVersion" protobuf:"bytes,8,opt,name=kubeProxyVersion"`
	OperatingSystem         string          `json:"operatingSystem" protobuf:"bytes,9,opt,name=operatingSystem"`
	Architecture            string          `json:"architecture" protobuf:"bytes,10,opt,name=architecture"`
	Swap                    *NodeSwapStatus `json:"swap,omitempty" protobuf:"bytes,11,opt,name=swap"`
}

// NodeSwapStatus is the node's swap space.
type NodeSwapStatus struct {
	Capacity *int64 `json:"capacity,omitempty" protobuf:"varint,1,opt,name=capacity"`
}

// ContainerImage is an image present on the node.
type ContainerImage struct {
	Names     []string `json:"names" protobuf:"bytes,1,rep,name=names"`
	SizeBytes int64    `json:"sizeBytes,omitempty" protobuf:"varint,2,opt,name=sizeBytes"`
}

// AttachedVolume is a volume attached to the node.
type AttachedVolume struct {
	Name       string `json:"name" protobuf:"bytes,1,rep,name=name"`
	DevicePath string `json:"devicePath" protobuf:"bytes,2,rep,name=devicePath"`
}

// NodeRuntimeHandler is a container runtime handler available on the node.
type NodeRuntimeHandler struct {
	Name     string                      `json:"name" protobuf:"bytes,1,opt,name=name"`
	Features *NodeRuntimeHandlerFeatures `json:"features,omitempty" protobuf:"bytes,2,opt,name=features"`
}

// NodeRuntimeHandlerFeatures lists what a runtime handler supports.
type NodeRuntimeHandlerFeatures struct {
	RecursiveReadOnlyMounts *bool `json:"recursiveReadOnlyMounts,omitempty" protobuf:"varint,1,opt,name=recursiveReadOnlyMounts"`
	UserNamespaces          *bool `json:"userNamespaces,omitempty" protobuf:"varint,2,opt,name=userNamespaces"`
}

// NodeFeatures lists features the node's kubelet supports.
type NodeFeatures struct {
	SupplementalGroupsPolicy *bool `json:"supplementalGroupsPolicy,omitempty" protobuf:"varint,1,opt,name=supplementalGroupsPolicy"`
}
