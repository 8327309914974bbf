package api

// This file holds small core/v1 types shared by many resources: references to
// other objects and the True/False/Unknown status every condition carries.

// ConditionStatus is the status of a condition: True, False or Unknown.
type ConditionStatus string

// The three condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// Protocol is a network protocol of a port.
type Protocol string

// The protocols a port may use; TCP is the default.
const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// ObjectReference points at any object, optionally at a field within it.
// Events use it for involvedObject, bindings for their target.
type ObjectReference struct {
	Kind            string `json:"kind,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	FieldPath       string `json:"fieldPath,omitempty"`
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	Name string `json:"name,omitempty"`
}

// TypedLocalObjectReference names an object of a given kind in the same namespace.
type TypedLocalObjectReference struct {
	APIGroup *string `json:"apiGroup"`
	Kind     string  `json:"kind"`
	Name     string  `json:"name"`
}

// TypedObjectReference names an object of a given kind, possibly in another namespace.
type TypedObjectReference struct {
	APIGroup  *string `json:"apiGroup"`
	Kind      string  `json:"kind"`
	Name      string  `json:"name"`
	Namespace *string `json:"namespace,omitempty"`
}

// SecretReference names a Secret in any namespace.
type SecretReference struct {
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// ObjectFieldSelector selects a field of the pod, e.g. metadata.name, for
// the downward API.
type ObjectFieldSelector struct {
	APIVersion string `json:"apiVersion,omitempty"`
	FieldPath  string `json:"fieldPath"`
}

// ResourceFieldSelector selects a container's resource request or limit,
// e.g. limits.cpu, for the downward API.
type ResourceFieldSelector struct {
	ContainerName string   `json:"containerName,omitempty"`
	Resource      string   `json:"resource"`
	Divisor       Quantity `json:"divisor,omitempty"`
}

// Well-known labels and annotations set by the control plane.
const (
	// LabelHostname is the node label holding the node's hostname.
	LabelHostname = "kubernetes.io/hostname"
	// LabelOS is the node label holding the operating system.
	LabelOS = "kubernetes.io/os"
	// LabelArch is the node label holding the CPU architecture.
	LabelArch = "kubernetes.io/arch"
	// LabelTopologyZone is the node label holding the failure zone.
	LabelTopologyZone = "topology.kubernetes.io/zone"
	// LabelTopologyRegion is the node label holding the region.
	LabelTopologyRegion = "topology.kubernetes.io/region"
	// LabelMetadataName is the namespace label that always equals its name.
	LabelMetadataName = "kubernetes.io/metadata.name"
	// LastAppliedConfigAnnotation is where kubectl apply keeps the applied manifest.
	LastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
)
