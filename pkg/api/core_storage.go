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
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       PersistentVolumeSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     PersistentVolumeStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PersistentVolumeSpec is a volume's capacity, source and binding.
type PersistentVolumeSpec struct {
	Capacity                      ResourceList `json:"capacity,omitempty" protobuf:"bytes,1,rep,name=capacity,casttype=ResourceList,castkey=ResourceName" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	PersistentVolumeSource        `json:",inline" protobuf:"bytes,2,opt,name=persistentVolumeSource"`
	AccessModes                   []PersistentVolumeAccessMode  `json:"accessModes,omitempty" protobuf:"bytes,3,rep,name=accessModes,casttype=PersistentVolumeAccessMode"`
	ClaimRef                      *ObjectReference              `json:"claimRef,omitempty" protobuf:"bytes,4,opt,name=claimRef"`
	PersistentVolumeReclaimPolicy PersistentVolumeReclaimPolicy `json:"persistentVolumeReclaimPolicy,omitempty" protobuf:"bytes,5,opt,name=persistentVolumeReclaimPolicy,casttype=PersistentVolumeReclaimPolicy"`
	StorageClassName              string                        `json:"storageClassName,omitempty" protobuf:"bytes,6,opt,name=storageClassName"`
	MountOptions                  []string                      `json:"mountOptions,omitempty" protobuf:"bytes,7,opt,name=mountOptions"`
	VolumeMode                    *PersistentVolumeMode         `json:"volumeMode,omitempty" protobuf:"bytes,8,opt,name=volumeMode,casttype=PersistentVolumeMode"`
	NodeAffinity                  *VolumeNodeAffinity           `json:"nodeAffinity,omitempty" protobuf:"bytes,9,opt,name=nodeAffinity"`
	VolumeAttributesClassName     *string                       `json:"volumeAttributesClassName,omitempty" protobuf:"bytes,10,opt,name=volumeAttributesClassName"`
}

// PersistentVolumeSource is where a persistent volume's storage lives; exactly one member is set.
type PersistentVolumeSource struct {
	HostPath *HostPathVolumeSource      `json:"hostPath,omitempty" protobuf:"bytes,3,opt,name=hostPath"`
	NFS      *NFSVolumeSource           `json:"nfs,omitempty" protobuf:"bytes,5,opt,name=nfs"`
	ISCSI    *ISCSIVolumeSource         `json:"iscsi,omitempty" protobuf:"bytes,7,opt,name=iscsi"`
	FC       *FCVolumeSource            `json:"fc,omitempty" protobuf:"bytes,10,opt,name=fc"`
	Local    *LocalVolumeSource         `json:"local,omitempty" protobuf:"bytes,20,opt,name=local"`
	CSI      *CSIPersistentVolumeSource `json:"csi,omitempty" protobuf:"bytes,22,opt,name=csi"`
}

// LocalVolumeSource is a disk or directory on one node (pinned by nodeAffinity).
type LocalVolumeSource struct {
	Path   string  `json:"path" protobuf:"bytes,1,opt,name=path"`
	FSType *string `json:"fsType,omitempty" protobuf:"bytes,2,opt,name=fsType"`
}

// CSIPersistentVolumeSource is storage managed by a CSI driver.
type CSIPersistentVolumeSource struct {
	Driver                     string            `json:"driver" protobuf:"bytes,1,opt,name=driver"`
	VolumeHandle               string            `json:"volumeHandle" protobuf:"bytes,2,opt,name=volumeHandle"`
	ReadOnly                   bool              `json:"readOnly,omitempty" protobuf:"varint,3,opt,name=readOnly"`
	FSType                     string            `json:"fsType,omitempty" protobuf:"bytes,4,opt,name=fsType"`
	VolumeAttributes           map[string]string `json:"volumeAttributes,omitempty" protobuf:"bytes,5,rep,name=volumeAttributes" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	ControllerPublishSecretRef *SecretReference  `json:"controllerPublishSecretRef,omitempty" protobuf:"bytes,6,opt,name=controllerPublishSecretRef"`
	NodeStageSecretRef         *SecretReference  `json:"nodeStageSecretRef,omitempty" protobuf:"bytes,7,opt,name=nodeStageSecretRef"`
	NodePublishSecretRef       *SecretReference  `json:"nodePublishSecretRef,omitempty" protobuf:"bytes,8,opt,name=nodePublishSecretRef"`
	ControllerExpandSecretRef  *SecretReference  `json:"controllerExpandSecretRef,omitempty" protobuf:"bytes,9,opt,name=controllerExpandSecretRef"`
	NodeExpandSecretRef        *SecretReference  `json:"nodeExpandSecretRef,omitempty" protobuf:"bytes,10,opt,name=nodeExpandSecretRef"`
}

// VolumeNodeAffinity restricts which nodes can reach a volume.
type VolumeNodeAffinity struct {
	Required *NodeSelector `json:"required,omitempty" protobuf:"bytes,1,opt,name=required"`
}

// PersistentVolumeStatus is a volume's phase.
type PersistentVolumeStatus struct {
	Phase                   PersistentVolumePhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=PersistentVolumePhase"`
	Message                 string                `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	Reason                  string                `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	LastPhaseTransitionTime *Time                 `json:"lastPhaseTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastPhaseTransitionTime"`
}

// PersistentVolumeClaim is a request for storage in a namespace; pods mount
// the volume it binds to by the claim's name.
type PersistentVolumeClaim struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       PersistentVolumeClaimSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     PersistentVolumeClaimStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PersistentVolumeClaimSpec is what a claim asks for.
type PersistentVolumeClaimSpec struct {
	AccessModes               []PersistentVolumeAccessMode `json:"accessModes,omitempty" protobuf:"bytes,1,rep,name=accessModes,casttype=PersistentVolumeAccessMode"`
	Selector                  *LabelSelector               `json:"selector,omitempty" protobuf:"bytes,4,opt,name=selector"`
	Resources                 VolumeResourceRequirements   `json:"resources,omitempty" protobuf:"bytes,2,opt,name=resources"`
	VolumeName                string                       `json:"volumeName,omitempty" protobuf:"bytes,3,opt,name=volumeName"`
	StorageClassName          *string                      `json:"storageClassName,omitempty" protobuf:"bytes,5,opt,name=storageClassName"`
	VolumeMode                *PersistentVolumeMode        `json:"volumeMode,omitempty" protobuf:"bytes,6,opt,name=volumeMode,casttype=PersistentVolumeMode"`
	DataSource                *TypedLocalObjectReference   `json:"dataSource,omitempty" protobuf:"bytes,7,opt,name=dataSource"`
	DataSourceRef             *TypedObjectReference        `json:"dataSourceRef,omitempty" protobuf:"bytes,8,opt,name=dataSourceRef"`
	VolumeAttributesClassName *string                      `json:"volumeAttributesClassName,omitempty" protobuf:"bytes,9,opt,name=volumeAttributesClassName"`
}

// VolumeResourceRequirements is the storage a claim requests (and at most uses).
type VolumeResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty" protobuf:"bytes,1,rep,name=limits,casttype=ResourceList,castkey=ResourceName" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	Requests ResourceList `json:"requests,omitempty" protobuf:"bytes,2,rep,name=requests,casttype=ResourceList,castkey=ResourceName" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
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
	Type               PersistentVolumeClaimConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=PersistentVolumeClaimConditionType"`
	Status             ConditionStatus                    `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	LastProbeTime      Time                               `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	LastTransitionTime Time                               `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	Reason             string                             `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	Message            string                             `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// PersistentVolumeClaimStatus is a claim's phase and the capacity it got.
type PersistentVolumeClaimStatus struct {
	Phase                            PersistentVolumeClaimPhase       `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=PersistentVolumeClaimPhase"`
	AccessModes                      []PersistentVolumeAccessMode     `json:"accessModes,omitempty" protobuf:"bytes,2,rep,name=accessModes,casttype=PersistentVolumeAccessMode"`
	Capacity                         ResourceList                     `json:"capacity,omitempty" protobuf:"bytes,3,rep,name=capacity,casttype=ResourceList,castkey=ResourceName" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	Conditions                       []PersistentVolumeClaimCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,4,rep,name=conditions"`
	AllocatedResources               ResourceList                     `json:"allocatedResources,omitempty" protobuf:"bytes,5,rep,name=allocatedResources,casttype=ResourceList,castkey=ResourceName" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	AllocatedResourceStatuses        map[ResourceName]string          `json:"allocatedResourceStatuses,omitempty" protobuf:"bytes,7,rep,name=allocatedResourceStatuses" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	CurrentVolumeAttributesClassName *string                          `json:"currentVolumeAttributesClassName,omitempty" protobuf:"bytes,8,opt,name=currentVolumeAttributesClassName"`
	ModifyVolumeStatus               *ModifyVolumeStatus              `json:"modifyVolumeStatus,omitempty" protobuf:"bytes,9,opt,name=modifyVolumeStatus"`
}

// ModifyVolumeStatus is the progress of changing a claim's volume attributes class.
type ModifyVolumeStatus struct {
	TargetVolumeAttributesClassName string `json:"targetVolumeAttributesClassName,omitempty" protobuf:"bytes,1,opt,name=targetVolumeAttributesClassName"`
	Status                          string `json:"status" protobuf:"bytes,2,opt,name=status,casttype=PersistentVolumeClaimModifyVolumeStatus"`
}

// TopologySelectorTerm is one term of a StorageClass's allowedTopologies:
// every requirement must hold (terms are ORed).
type TopologySelectorTerm struct {
	MatchLabelExpressions []TopologySelectorLabelRequirement `json:"matchLabelExpressions,omitempty" protobuf:"bytes,1,rep,name=matchLabelExpressions"`
}

// TopologySelectorLabelRequirement requires a topology label to have one
// of the values.
type TopologySelectorLabelRequirement struct {
	Key    string   `json:"key" protobuf:"bytes,1,opt,name=key"`
	Values []string `json:"values" protobuf:"bytes,2,rep,name=values"`
}
