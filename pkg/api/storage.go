package api

// This file holds the storage.k8s.io/v1 StorageClass: how a claim that
// names a class (or gets the default one) has a volume made for it.

// VolumeBindingMode says when a claim of a class is bound or provisioned.
type VolumeBindingMode string

const (
	// VolumeBindingImmediate binds or provisions a claim as soon as it is
	// created, wherever its first pod will land.
	VolumeBindingImmediate VolumeBindingMode = "Immediate"
	// VolumeBindingWaitForFirstConsumer waits until the scheduler has
	// picked a node for the claim's first pod (the
	// volume.kubernetes.io/selected-node annotation), so the volume is
	// made where the pod runs.
	VolumeBindingWaitForFirstConsumer VolumeBindingMode = "WaitForFirstConsumer"
)

// AnnDefaultStorageClass marks the class that claims without a
// storageClassName get (the DefaultStorageClass admission plugin); its
// value must be "true".
const AnnDefaultStorageClass = "storageclass.kubernetes.io/is-default-class"

// annBetaDefaultStorageClass marked the default class before the GA
// annotation; upstream still honours it.
const annBetaDefaultStorageClass = "storageclass.beta.kubernetes.io/is-default-class"

// Annotations of upstream's volume provisioning protocol, which the binder,
// the scheduler and provisioners pass a claim between them with.
const (
	// AnnStorageProvisioner is set on a claim by the binder: the
	// provisioner that is to make its volume.
	AnnStorageProvisioner = "volume.kubernetes.io/storage-provisioner"
	// AnnBetaStorageProvisioner is the same under its older name, which
	// the binder still writes and provisioners still read.
	AnnBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner"
	// AnnSelectedNode is set on a claim of a WaitForFirstConsumer class by
	// the scheduler's PreBind: the node chosen for its first pod, where its
	// volume is to be made.
	AnnSelectedNode = "volume.kubernetes.io/selected-node"
)

// IsDefaultStorageClass reports whether class is marked as a default
// class, by either annotation (upstream's IsDefaultAnnotation).
func IsDefaultStorageClass(class *StorageClass) bool {
	return class.Annotations[AnnDefaultStorageClass] == "true" || class.Annotations[annBetaDefaultStorageClass] == "true"
}

// StorageClass describes a kind of storage: the provisioner that makes
// volumes of it, with what parameters, and what becomes of them when their
// claim goes. It is cluster-scoped, and everything but its metadata and
// allowVolumeExpansion is immutable once created.
type StorageClass struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Provisioner names the component that creates volumes of this class
	// ("kplane.io/hostpath", "rancher.io/local-path", a CSI driver's name).
	Provisioner string `json:"provisioner" protobuf:"bytes,2,opt,name=provisioner"`
	// Parameters are handed to the provisioner as they are.
	Parameters map[string]string `json:"parameters,omitempty" protobuf:"bytes,3,rep,name=parameters" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// ReclaimPolicy is given to every volume provisioned for the class;
	// Delete when unset.
	ReclaimPolicy *PersistentVolumeReclaimPolicy `json:"reclaimPolicy,omitempty" protobuf:"bytes,4,opt,name=reclaimPolicy,casttype=PersistentVolumeReclaimPolicy"`
	// MountOptions are copied to the provisioned volumes.
	MountOptions []string `json:"mountOptions,omitempty" protobuf:"bytes,5,rep,name=mountOptions"`
	// AllowVolumeExpansion lets claims of the class grow.
	AllowVolumeExpansion *bool `json:"allowVolumeExpansion,omitempty" protobuf:"varint,6,opt,name=allowVolumeExpansion"`
	// VolumeBindingMode is when claims are bound; Immediate when unset.
	VolumeBindingMode *VolumeBindingMode `json:"volumeBindingMode,omitempty" protobuf:"bytes,7,opt,name=volumeBindingMode,casttype=VolumeBindingMode"`
	// AllowedTopologies restricts where volumes may be provisioned.
	AllowedTopologies []TopologySelectorTerm `json:"allowedTopologies,omitempty" protobuf:"bytes,8,rep,name=allowedTopologies"`
}
