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
	Kind            string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	Namespace       string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
	Name            string `json:"name,omitempty" protobuf:"bytes,3,opt,name=name"`
	UID             string `json:"uid,omitempty" protobuf:"bytes,4,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	APIVersion      string `json:"apiVersion,omitempty" protobuf:"bytes,5,opt,name=apiVersion"`
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	FieldPath       string `json:"fieldPath,omitempty" protobuf:"bytes,7,opt,name=fieldPath"`
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
}

// TypedLocalObjectReference names an object of a given kind in the same namespace.
type TypedLocalObjectReference struct {
	APIGroup *string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	Kind     string  `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	Name     string  `json:"name" protobuf:"bytes,3,opt,name=name"`
}

// TypedObjectReference names an object of a given kind, possibly in another namespace.
type TypedObjectReference struct {
	APIGroup  *string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	Kind      string  `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	Name      string  `json:"name" protobuf:"bytes,3,opt,name=name"`
	Namespace *string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
}

// SecretReference names a Secret in any namespace.
type SecretReference struct {
	Name      string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
}

// ObjectFieldSelector selects a field of the pod, e.g. metadata.name, for
// the downward API.
type ObjectFieldSelector struct {
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,1,opt,name=apiVersion"`
	FieldPath  string `json:"fieldPath" protobuf:"bytes,2,opt,name=fieldPath"`
}

// ResourceFieldSelector selects a container's resource request or limit,
// e.g. limits.cpu, for the downward API.
type ResourceFieldSelector struct {
	ContainerName string   `json:"containerName,omitempty" protobuf:"bytes,1,opt,name=containerName"`
	Resource      string   `json:"resource" protobuf:"bytes,2,opt,name=resource"`
	Divisor       Quantity `json:"divisor,omitempty" protobuf:"bytes,3,opt,name=divisor"`
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
