package api

// This file holds PersistentVolume (a piece of storage in the cluster) and
// PersistentVolumeClaim (a namespace's request for storage), which the
// persistent volume controller binds to each other.

// PersistentVolumeAccessMode says how many nodes may mount a volume, and how.
type PersistentVolumeAccessMode string

// The access modes.
const (
	ReadWriteOnce    PersistentVolumeAccessMode = "ReadWriteOnce"
	ReadOnlyMany     PersistentVolumeAccessMode = "ReadOnlyMany"
	ReadWriteMany    PersistentVolumeAccessMode = "ReadWriteMany"
	ReadWriteOncePod PersistentVolumeAccessMode = "ReadWriteOncePod"
)

// PersistentVolumeReclaimPolicy says what happens to a volume released by its claim.
type PersistentVolumeReclaimPolicy string

// The reclaim policies; Retain is the default for manually created volumes.
const (
	PersistentVolumeReclaimRecycle PersistentVolumeReclaimPolicy = "Recycle"
	PersistentVolumeReclaimDelete  PersistentVolumeReclaimPolicy = "Delete"
	PersistentVolumeReclaimRetain  PersistentVolumeReclaimPolicy = "Retain"
)

// PersistentVolumeMode says whether a volume is a filesystem or a raw block device.
type PersistentVolumeMode string

// The volume modes; Filesystem is the default.
const (
	PersistentVolumeBlock      PersistentVolumeMode = "Block"
	PersistentVolumeFilesystem PersistentVolumeMode = "Filesystem"
)

// PersistentVolumePhase is where a volume is in its lifecycle.
type PersistentVolumePhase string

// The volume phases.
const (
	VolumePending   PersistentVolumePhase = "Pending"
	VolumeAvailable PersistentVolumePhase = "Available"
	VolumeBound     PersistentVolumePhase = "Bound"
	VolumeReleased  PersistentVolumePhase = "Released"
	VolumeFailed    PersistentVolumePhase = "Failed"
)

// PersistentVolumeClaimPhase is where a claim is in its lifecycle.
type PersistentVolumeClaimPhase string

// The claim phases.
const (
	ClaimPending PersistentVolumeClaimPhase = "Pending"
	ClaimBound   PersistentVolumeClaimPhase = "Bound"
	ClaimLost    PersistentVolumeClaimPhase = "Lost"
)

// PersistentVolume is cluster-scoped storage, provisioned by an admin or a
// storage class, that a claim can bind to.
type PersistentVolume struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PersistentVolumeSpec   `json:"spec,omitempty"`
	Status     PersistentVolumeStatus `json:"status,omitempty"`
}

// PersistentVolumeSpec is a volume's capacity, source and binding.
type PersistentVolumeSpec struct {
	Capacity                      ResourceList `json:"capacity,omitempty"`
	PersistentVolumeSource        `json:",inline"`
	AccessModes                   []PersistentVolumeAccessMode  `json:"accessModes,omitempty"`
	ClaimRef                      *ObjectReference              `json:"claimRef,omitempty"`
	PersistentVolumeReclaimPolicy PersistentVolumeReclaimPolicy `json:"persistentVolumeReclaimPolicy,omitempty"`
	StorageClassName              string                        `json:"storageClassName,omitempty"`
	MountOptions                  []string                      `json:"mountOptions,omitempty"`
	VolumeMode                    *PersistentVolumeMode         `json:"volumeMode,omitempty"`
	NodeAffinity                  *VolumeNodeAffinity           `json:"nodeAffinity,omitempty"`
	VolumeAttributesClassName     *string                       `json:"volumeAttributesClassName,omitempty"`
}

// PersistentVolumeSource is where a persistent volume's storage lives; exactly one member is set.
type PersistentVolumeSource struct {
	HostPath *HostPathVolumeSource      `json:"hostPath,omitempty"`
	NFS      *NFSVolumeSource           `json:"nfs,omitempty"`
	ISCSI    *ISCSIVolumeSource         `json:"iscsi,omitempty"`
	FC       *FCVolumeSource            `json:"fc,omitempty"`
	Local    *LocalVolumeSource         `json:"local,omitempty"`
	CSI      *CSIPersistentVolumeSource `json:"csi,omitempty"`
}

// LocalVolumeSource is a disk or directory on one node (pinned by nodeAffinity).
type LocalVolumeSource struct {
	Path   string  `json:"path"`
	FSType *string `json:"fsType,omitempty"`
}

// CSIPersistentVolumeSource is storage managed by a CSI driver.
type CSIPersistentVolumeSource struct {
	Driver                     string            `json:"driver"`
	VolumeHandle               string            `json:"volumeHandle"`
	ReadOnly                   bool              `json:"readOnly,omitempty"`
	FSType                     string            `json:"fsType,omitempty"`
	VolumeAttributes           map[string]string `json:"volumeAttributes,omitempty"`
	ControllerPublishSecretRef *SecretReference  `json:"controllerPublishSecretRef,omitempty"`
	NodeStageSecretRef         *SecretReference  `json:"nodeStageSecretRef,omitempty"`
	NodePublishSecretRef       *SecretReference  `json:"nodePublishSecretRef,omitempty"`
	ControllerExpandSecretRef  *SecretReference  `json:"controllerExpandSecretRef,omitempty"`
	NodeExpandSecretRef        *SecretReference  `json:"nodeExpandSecretRef,omitempty"`
}

// VolumeNodeAffinity restricts which nodes can reach a volume.
type VolumeNodeAffinity struct {
	Required *NodeSelector `json:"required,omitempty"`
}

// PersistentVolumeStatus is a volume's phase.
type PersistentVolumeStatus struct {
	Phase                   PersistentVolumePhase `json:"phase,omitempty"`
	Message                 string                `json:"message,omitempty"`
	Reason                  string                `json:"reason,omitempty"`
	LastPhaseTransitionTime *Time                 `json:"lastPhaseTransitionTime,omitempty"`
}

// PersistentVolumeClaim is a request for storage in a namespace; pods mount
// the volume it binds to by the claim's name.
type PersistentVolumeClaim struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PersistentVolumeClaimSpec   `json:"spec,omitempty"`
	Status     PersistentVolumeClaimStatus `json:"status,omitempty"`
}

// PersistentVolumeClaimSpec is what a claim asks for.
type PersistentVolumeClaimSpec struct {
	AccessModes               []PersistentVolumeAccessMode `json:"accessModes,omitempty"`
	Selector                  *LabelSelector               `json:"selector,omitempty"`
	Resources                 VolumeResourceRequirements   `json:"resources,omitempty"`
	VolumeName                string                       `json:"volumeName,omitempty"`
	StorageClassName          *string                      `json:"storageClassName,omitempty"`
	VolumeMode                *PersistentVolumeMode        `json:"volumeMode,omitempty"`
	DataSource                *TypedLocalObjectReference   `json:"dataSource,omitempty"`
	DataSourceRef             *TypedObjectReference        `json:"dataSourceRef,omitempty"`
	VolumeAttributesClassName *string                      `json:"volumeAttributesClassName,omitempty"`
}

// VolumeResourceRequirements is the storage a claim requests (and at most uses).
type VolumeResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
}

// PersistentVolumeClaimConditionType names a claim condition.
type PersistentVolumeClaimConditionType string

// The claim condition types.
const (
	PersistentVolumeClaimResizing                PersistentVolumeClaimConditionType = "Resizing"
	PersistentVolumeClaimFileSystemResizePending PersistentVolumeClaimConditionType = "FileSystemResizePending"
)

// PersistentVolumeClaimCondition is one condition of a claim.
type PersistentVolumeClaimCondition struct {
	Type               PersistentVolumeClaimConditionType `json:"type"`
	Status             ConditionStatus                    `json:"status"`
	LastProbeTime      Time                               `json:"lastProbeTime,omitempty"`
	LastTransitionTime Time                               `json:"lastTransitionTime,omitempty"`
	Reason             string                             `json:"reason,omitempty"`
	Message            string                             `json:"message,omitempty"`
}

// PersistentVolumeClaimStatus is a claim's phase and the capacity it got.
type PersistentVolumeClaimStatus struct {
	Phase                            PersistentVolumeClaimPhase       `json:"phase,omitempty"`
	AccessModes                      []PersistentVolumeAccessMode     `json:"accessModes,omitempty"`
	Capacity                         ResourceList                     `json:"capacity,omitempty"`
	Conditions                       []PersistentVolumeClaimCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	AllocatedResources               ResourceList                     `json:"allocatedResources,omitempty"`
	AllocatedResourceStatuses        map[ResourceName]string          `json:"allocatedResourceStatuses,omitempty"`
	CurrentVolumeAttributesClassName *string                          `json:"currentVolumeAttributesClassName,omitempty"`
	ModifyVolumeStatus               *ModifyVolumeStatus              `json:"modifyVolumeStatus,omitempty"`
}

// ModifyVolumeStatus is the progress of changing a claim's volume attributes class.
type ModifyVolumeStatus struct {
	TargetVolumeAttributesClassName string `json:"targetVolumeAttributesClassName,omitempty"`
	Status                          string `json:"status"`
}
