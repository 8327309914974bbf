package api

// This file holds pod volumes: the Volume list of a PodSpec, each volume's
// source (emptyDir, hostPath, configMap, secret, a claim, …) and how
// containers mount them.

// Volume is a named directory available to the pod's containers.
type Volume struct {
	Name         string `json:"name" protobuf:"bytes,1,opt,name=name"`
	VolumeSource `json:",inline" protobuf:"bytes,2,opt,name=volumeSource"`
}

// VolumeSource says where a volume's content comes from; exactly one member
// is set (none is defaulted to an emptyDir).
type VolumeSource struct {
	HostPath              *HostPathVolumeSource              `json:"hostPath,omitempty" protobuf:"bytes,1,opt,name=hostPath"`
	EmptyDir              *EmptyDirVolumeSource              `json:"emptyDir,omitempty" protobuf:"bytes,2,opt,name=emptyDir"`
	Secret                *SecretVolumeSource                `json:"secret,omitempty" protobuf:"bytes,6,opt,name=secret"`
	NFS                   *NFSVolumeSource                   `json:"nfs,omitempty" protobuf:"bytes,7,opt,name=nfs"`
	ISCSI                 *ISCSIVolumeSource                 `json:"iscsi,omitempty" protobuf:"bytes,8,opt,name=iscsi"`
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty" protobuf:"bytes,10,opt,name=persistentVolumeClaim"`
	DownwardAPI           *DownwardAPIVolumeSource           `json:"downwardAPI,omitempty" protobuf:"bytes,16,opt,name=downwardAPI"`
	FC                    *FCVolumeSource                    `json:"fc,omitempty" protobuf:"bytes,17,opt,name=fc"`
	ConfigMap             *ConfigMapVolumeSource             `json:"configMap,omitempty" protobuf:"bytes,19,opt,name=configMap"`
	Projected             *ProjectedVolumeSource             `json:"projected,omitempty" protobuf:"bytes,26,opt,name=projected"`
	CSI                   *CSIVolumeSource                   `json:"csi,omitempty" protobuf:"bytes,28,opt,name=csi"`
	Ephemeral             *EphemeralVolumeSource             `json:"ephemeral,omitempty" protobuf:"bytes,29,opt,name=ephemeral"`
	Image                 *ImageVolumeSource                 `json:"image,omitempty" protobuf:"bytes,30,opt,name=image"`
}

// HostPathType says what must exist at a hostPath volume's path.
type HostPathType string

// The hostPath types; the empty string checks nothing.
const (
	HostPathUnset             HostPathType = ""
	HostPathDirectoryOrCreate HostPathType = "DirectoryOrCreate"
	HostPathDirectory         HostPathType = "Directory"
	HostPathFileOrCreate      HostPathType = "FileOrCreate"
	HostPathFile              HostPathType = "File"
	HostPathSocket            HostPathType = "Socket"
	HostPathCharDev           HostPathType = "CharDevice"
	HostPathBlockDev          HostPathType = "BlockDevice"
)

// HostPathVolumeSource mounts a path of the node's filesystem.
type HostPathVolumeSource struct {
	Path string        `json:"path" protobuf:"bytes,1,opt,name=path"`
	Type *HostPathType `json:"type,omitempty" protobuf:"bytes,2,opt,name=type"`
}

// StorageMedium is what backs an emptyDir.
type StorageMedium string

// The emptyDir media: the node's disk (default) or RAM.
const (
	StorageMediumDefault StorageMedium = ""
	StorageMediumMemory  StorageMedium = "Memory"
)

// EmptyDirVolumeSource is a scratch directory that lives as long as the pod.
type EmptyDirVolumeSource struct {
	Medium    StorageMedium `json:"medium,omitempty" protobuf:"bytes,1,opt,name=medium,casttype=StorageMedium"`
	SizeLimit *Quantity     `json:"sizeLimit,omitempty" protobuf:"bytes,2,opt,name=sizeLimit"`
}

// KeyToPath projects one key of a ConfigMap or Secret to a file path.
type KeyToPath struct {
	Key  string `json:"key" protobuf:"bytes,1,opt,name=key"`
	Path string `json:"path" protobuf:"bytes,2,opt,name=path"`
	Mode *int32 `json:"mode,omitempty" protobuf:"varint,3,opt,name=mode"`
}

// SecretVolumeSource mounts a Secret's keys as files.
type SecretVolumeSource struct {
	SecretName  string      `json:"secretName,omitempty" protobuf:"bytes,1,opt,name=secretName"`
	Items       []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	DefaultMode *int32      `json:"defaultMode,omitempty" protobuf:"varint,3,opt,name=defaultMode"`
	Optional    *bool       `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// ConfigMapVolumeSource mounts a ConfigMap's keys as files.
type ConfigMapVolumeSource struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	Items                []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	DefaultMode          *int32      `json:"defaultMode,omitempty" protobuf:"varint,3,opt,name=defaultMode"`
	Optional             *bool       `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// NFSVolumeSource mounts an NFS export.
type NFSVolumeSource struct {
	Server   string `json:"server" protobuf:"bytes,1,opt,name=server"`
	Path     string `json:"path" protobuf:"bytes,2,opt,name=path"`
	ReadOnly bool   `json:"readOnly,omitempty" protobuf:"varint,3,opt,name=readOnly"`
}

// ISCSIVolumeSource mounts an iSCSI disk.
type ISCSIVolumeSource struct {
	TargetPortal      string                `json:"targetPortal" protobuf:"bytes,1,opt,name=targetPortal"`
	IQN               string                `json:"iqn" protobuf:"bytes,2,opt,name=iqn"`
	Lun               int32                 `json:"lun" protobuf:"varint,3,opt,name=lun"`
	ISCSIInterface    string                `json:"iscsiInterface,omitempty" protobuf:"bytes,4,opt,name=iscsiInterface"`
	FSType            string                `json:"fsType,omitempty" protobuf:"bytes,5,opt,name=fsType"`
	ReadOnly          bool                  `json:"readOnly,omitempty" protobuf:"varint,6,opt,name=readOnly"`
	Portals           []string              `json:"portals,omitempty" protobuf:"bytes,7,opt,name=portals"`
	DiscoveryCHAPAuth bool                  `json:"chapAuthDiscovery,omitempty" protobuf:"varint,8,opt,name=chapAuthDiscovery"`
	SessionCHAPAuth   bool                  `json:"chapAuthSession,omitempty" protobuf:"varint,11,opt,name=chapAuthSession"`
	SecretRef         *LocalObjectReference `json:"secretRef,omitempty" protobuf:"bytes,10,opt,name=secretRef"`
	InitiatorName     *string               `json:"initiatorName,omitempty" protobuf:"bytes,12,opt,name=initiatorName"`
}

// FCVolumeSource mounts a Fibre Channel disk.
type FCVolumeSource struct {
	TargetWWNs []string `json:"targetWWNs,omitempty" protobuf:"bytes,1,rep,name=targetWWNs"`
	Lun        *int32   `json:"lun,omitempty" protobuf:"varint,2,opt,name=lun"`
	FSType     string   `json:"fsType,omitempty" protobuf:"bytes,3,opt,name=fsType"`
	ReadOnly   bool     `json:"readOnly,omitempty" protobuf:"varint,4,opt,name=readOnly"`
	WWIDs      []string `json:"wwids,omitempty" protobuf:"bytes,5,rep,name=wwids"`
}

// PersistentVolumeClaimVolumeSource mounts the volume bound to a claim in the pod's namespace.
type PersistentVolumeClaimVolumeSource struct {
	ClaimName string `json:"claimName" protobuf:"bytes,1,opt,name=claimName"`
	ReadOnly  bool   `json:"readOnly,omitempty" protobuf:"varint,2,opt,name=readOnly"`
}

// DownwardAPIVolumeSource writes pod fields and container resources into files.
type DownwardAPIVolumeSource struct {
	Items       []DownwardAPIVolumeFile `json:"items,omitempty" protobuf:"bytes,1,rep,name=items"`
	DefaultMode *int32                  `json:"defaultMode,omitempty" protobuf:"varint,2,opt,name=defaultMode"`
}

// DownwardAPIVolumeFile is one file of a downward API volume.
type DownwardAPIVolumeFile struct {
	Path             string                 `json:"path" protobuf:"bytes,1,opt,name=path"`
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty" protobuf:"bytes,2,opt,name=fieldRef"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty" protobuf:"bytes,3,opt,name=resourceFieldRef"`
	Mode             *int32                 `json:"mode,omitempty" protobuf:"varint,4,opt,name=mode"`
}

// ProjectedVolumeSource merges several sources into one directory; it is how
// service account tokens reach pods.
type ProjectedVolumeSource struct {
	Sources     []VolumeProjection `json:"sources" protobuf:"bytes,1,rep,name=sources"`
	DefaultMode *int32             `json:"defaultMode,omitempty" protobuf:"varint,2,opt,name=defaultMode"`
}

// VolumeProjection is one source of a projected volume; exactly one member is set.
type VolumeProjection struct {
	Secret              *SecretProjection              `json:"secret,omitempty" protobuf:"bytes,1,opt,name=secret"`
	DownwardAPI         *DownwardAPIProjection         `json:"downwardAPI,omitempty" protobuf:"bytes,2,opt,name=downwardAPI"`
	ConfigMap           *ConfigMapProjection           `json:"configMap,omitempty" protobuf:"bytes,3,opt,name=configMap"`
	ServiceAccountToken *ServiceAccountTokenProjection `json:"serviceAccountToken,omitempty" protobuf:"bytes,4,opt,name=serviceAccountToken"`
	ClusterTrustBundle  *ClusterTrustBundleProjection  `json:"clusterTrustBundle,omitempty" protobuf:"bytes,5,opt,name=clusterTrustBundle"`
}

// SecretProjection projects a Secret into a projected volume.
type SecretProjection struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	Items                []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	Optional             *bool       `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// ConfigMapProjection projects a ConfigMap into a projected volume.
type ConfigMapProjection struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	Items                []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	Optional             *bool       `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// DownwardAPIProjection projects pod fields into a projected volume.
type DownwardAPIProjection struct {
	Items []DownwardAPIVolumeFile `json:"items,omitempty" protobuf:"bytes,1,rep,name=items"`
}

// ServiceAccountTokenProjection projects a bound service account token.
type ServiceAccountTokenProjection struct {
	Audience          string `json:"audience,omitempty" protobuf:"bytes,1,rep,name=audience"`
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty" protobuf:"varint,2,opt,name=expirationSeconds"`
	Path              string `json:"path" protobuf:"bytes,3,opt,name=path"`
}

// ClusterTrustBundleProjection projects CA certificates from ClusterTrustBundles.
type ClusterTrustBundleProjection struct {
	Name          *string        `json:"name,omitempty" protobuf:"bytes,1,rep,name=name"`
	SignerName    *string        `json:"signerName,omitempty" protobuf:"bytes,2,rep,name=signerName"`
	LabelSelector *LabelSelector `json:"labelSelector,omitempty" protobuf:"bytes,3,rep,name=labelSelector"`
	Optional      *bool          `json:"optional,omitempty" protobuf:"varint,5,opt,name=optional"`
	Path          string         `json:"path" protobuf:"bytes,4,rep,name=path"`
}

// CSIVolumeSource is an inline volume provided by a CSI driver.
type CSIVolumeSource struct {
	Driver               string                `json:"driver" protobuf:"bytes,1,opt,name=driver"`
	ReadOnly             *bool                 `json:"readOnly,omitempty" protobuf:"varint,2,opt,name=readOnly"`
	FSType               *string               `json:"fsType,omitempty" protobuf:"bytes,3,opt,name=fsType"`
	VolumeAttributes     map[string]string     `json:"volumeAttributes,omitempty" protobuf:"bytes,4,rep,name=volumeAttributes" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	NodePublishSecretRef *LocalObjectReference `json:"nodePublishSecretRef,omitempty" protobuf:"bytes,5,opt,name=nodePublishSecretRef"`
}

// EphemeralVolumeSource is a volume backed by a claim created for, and
// deleted with, the pod.
type EphemeralVolumeSource struct {
	VolumeClaimTemplate *PersistentVolumeClaimTemplate `json:"volumeClaimTemplate,omitempty" protobuf:"bytes,1,opt,name=volumeClaimTemplate"`
}

// PersistentVolumeClaimTemplate is the claim an ephemeral volume creates.
type PersistentVolumeClaimTemplate struct {
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       PersistentVolumeClaimSpec `json:"spec" protobuf:"bytes,2,name=spec"`
}

// ImageVolumeSource mounts the content of an OCI image.
type ImageVolumeSource struct {
	Reference  string     `json:"reference,omitempty" protobuf:"bytes,1,opt,name=reference"`
	PullPolicy PullPolicy `json:"pullPolicy,omitempty" protobuf:"bytes,2,opt,name=pullPolicy,casttype=PullPolicy"`
}

// MountPropagationMode says how mounts propagate between host and container.
type MountPropagationMode string

// The mount propagation modes.
const (
	MountPropagationNone            MountPropagationMode = "None"
	MountPropagationHostToContainer MountPropagationMode = "HostToContainer"
	MountPropagationBidirectional   MountPropagationMode = "Bidirectional"
)

// VolumeMount mounts a pod volume into a container.
type VolumeMount struct {
	Name              string                `json:"name" protobuf:"bytes,1,opt,name=name"`
	ReadOnly          bool                  `json:"readOnly,omitempty" protobuf:"varint,2,opt,name=readOnly"`
	RecursiveReadOnly *string               `json:"recursiveReadOnly,omitempty" protobuf:"bytes,7,opt,name=recursiveReadOnly,casttype=RecursiveReadOnlyMode"`
	MountPath         string                `json:"mountPath" protobuf:"bytes,3,opt,name=mountPath"`
	SubPath           string                `json:"subPath,omitempty" protobuf:"bytes,4,opt,name=subPath"`
	MountPropagation  *MountPropagationMode `json:"mountPropagation,omitempty" protobuf:"bytes,5,opt,name=mountPropagation,casttype=MountPropagationMode"`
	SubPathExpr       string                `json:"subPathExpr,omitempty" protobuf:"bytes,6,opt,name=subPathExpr"`
}

// VolumeDevice maps a raw block volume to a device path in a container.
type VolumeDevice struct {
	Name       string `json:"name" protobuf:"bytes,1,opt,name=name"`
	DevicePath string `json:"devicePath" protobuf:"bytes,2,opt,name=devicePath"`
}
