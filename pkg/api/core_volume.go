package api

// This file holds pod volumes: the Volume list of a PodSpec, each volume's
// source (emptyDir, hostPath, configMap, secret, a claim, …) and how
// containers mount them.

// Volume is a named directory available to the pod's containers.
type Volume struct {
	Name         string `json:"name"`
	VolumeSource `json:",inline"`
}

// VolumeSource says where a volume's content comes from; exactly one member
// is set (none is defaulted to an emptyDir).
type VolumeSource struct {
	HostPath              *HostPathVolumeSource              `json:"hostPath,omitempty"`
	EmptyDir              *EmptyDirVolumeSource              `json:"emptyDir,omitempty"`
	Secret                *SecretVolumeSource                `json:"secret,omitempty"`
	NFS                   *NFSVolumeSource                   `json:"nfs,omitempty"`
	ISCSI                 *ISCSIVolumeSource                 `json:"iscsi,omitempty"`
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
	DownwardAPI           *DownwardAPIVolumeSource           `json:"downwardAPI,omitempty"`
	FC                    *FCVolumeSource                    `json:"fc,omitempty"`
	ConfigMap             *ConfigMapVolumeSource             `json:"configMap,omitempty"`
	Projected             *ProjectedVolumeSource             `json:"projected,omitempty"`
	CSI                   *CSIVolumeSource                   `json:"csi,omitempty"`
	Ephemeral             *EphemeralVolumeSource             `json:"ephemeral,omitempty"`
	Image                 *ImageVolumeSource                 `json:"image,omitempty"`
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
	Path string        `json:"path"`
	Type *HostPathType `json:"type,omitempty"`
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
	Medium    StorageMedium `json:"medium,omitempty"`
	SizeLimit *Quantity     `json:"sizeLimit,omitempty"`
}

// KeyToPath projects one key of a ConfigMap or Secret to a file path.
type KeyToPath struct {
	Key  string `json:"key"`
	Path string `json:"path"`
	Mode *int32 `json:"mode,omitempty"`
}

// SecretVolumeSource mounts a Secret's keys as files.
type SecretVolumeSource struct {
	SecretName  string      `json:"secretName,omitempty"`
	Items       []KeyToPath `json:"items,omitempty"`
	DefaultMode *int32      `json:"defaultMode,omitempty"`
	Optional    *bool       `json:"optional,omitempty"`
}

// ConfigMapVolumeSource mounts a ConfigMap's keys as files.
type ConfigMapVolumeSource struct {
	LocalObjectReference `json:",inline"`
	Items                []KeyToPath `json:"items,omitempty"`
	DefaultMode          *int32      `json:"defaultMode,omitempty"`
	Optional             *bool       `json:"optional,omitempty"`
}

// NFSVolumeSource mounts an NFS export.
type NFSVolumeSource struct {
	Server   string `json:"server"`
	Path     string `json:"path"`
	ReadOnly bool   `json:"readOnly,omitempty"`
}

// ISCSIVolumeSource mounts an iSCSI disk.
type ISCSIVolumeSource struct {
	TargetPortal      string                `json:"targetPortal"`
	IQN               string                `json:"iqn"`
	Lun               int32                 `json:"lun"`
	ISCSIInterface    string                `json:"iscsiInterface,omitempty"`
	FSType            string                `json:"fsType,omitempty"`
	ReadOnly          bool                  `json:"readOnly,omitempty"`
	Portals           []string              `json:"portals,omitempty"`
	DiscoveryCHAPAuth bool                  `json:"chapAuthDiscovery,omitempty"`
	SessionCHAPAuth   bool                  `json:"chapAuthSession,omitempty"`
	SecretRef         *LocalObjectReference `json:"secretRef,omitempty"`
	InitiatorName     *string               `json:"initiatorName,omitempty"`
}

// FCVolumeSource mounts a Fibre Channel disk.
type FCVolumeSource struct {
	TargetWWNs []string `json:"targetWWNs,omitempty"`
	Lun        *int32   `json:"lun,omitempty"`
	FSType     string   `json:"fsType,omitempty"`
	ReadOnly   bool     `json:"readOnly,omitempty"`
	WWIDs      []string `json:"wwids,omitempty"`
}

// PersistentVolumeClaimVolumeSource mounts the volume bound to a claim in the pod's namespace.
type PersistentVolumeClaimVolumeSource struct {
	ClaimName string `json:"claimName"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// DownwardAPIVolumeSource writes pod fields and container resources into files.
type DownwardAPIVolumeSource struct {
	Items       []DownwardAPIVolumeFile `json:"items,omitempty"`
	DefaultMode *int32                  `json:"defaultMode,omitempty"`
}

// DownwardAPIVolumeFile is one file of a downward API volume.
type DownwardAPIVolumeFile struct {
	Path             string                 `json:"path"`
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`
	Mode             *int32                 `json:"mode,omitempty"`
}

// ProjectedVolumeSource merges several sources into one directory; it is how
// service account tokens reach pods.
type ProjectedVolumeSource struct {
	Sources     []VolumeProjection `json:"sources"`
	DefaultMode *int32             `json:"defaultMode,omitempty"`
}

// VolumeProjection is one source of a projected volume; exactly one member is set.
type VolumeProjection struct {
	Secret              *SecretProjection              `json:"secret,omitempty"`
	DownwardAPI         *DownwardAPIProjection         `json:"downwardAPI,omitempty"`
	ConfigMap           *ConfigMapProjection           `json:"configMap,omitempty"`
	ServiceAccountToken *ServiceAccountTokenProjection `json:"serviceAccountToken,omitempty"`
	ClusterTrustBundle  *ClusterTrustBundleProjection  `json:"clusterTrustBundle,omitempty"`
}

// SecretProjection projects a Secret into a projected volume.
type SecretProjection struct {
	LocalObjectReference `json:",inline"`
	Items                []KeyToPath `json:"items,omitempty"`
	Optional             *bool       `json:"optional,omitempty"`
}

// ConfigMapProjection projects a ConfigMap into a projected volume.
type ConfigMapProjection struct {
	LocalObjectReference `json:",inline"`
	Items                []KeyToPath `json:"items,omitempty"`
	Optional             *bool       `json:"optional,omitempty"`
}

// DownwardAPIProjection projects pod fields into a projected volume.
type DownwardAPIProjection struct {
	Items []DownwardAPIVolumeFile `json:"items,omitempty"`
}

// ServiceAccountTokenProjection projects a bound service account token.
type ServiceAccountTokenProjection struct {
	Audience          string `json:"audience,omitempty"`
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`
	Path              string `json:"path"`
}

// ClusterTrustBundleProjection projects CA certificates from ClusterTrustBundles.
type ClusterTrustBundleProjection struct {
	Name          *string        `json:"name,omitempty"`
	SignerName    *string        `json:"signerName,omitempty"`
	LabelSelector *LabelSelector `json:"labelSelector,omitempty"`
	Optional      *bool          `json:"optional,omitempty"`
	Path          string         `json:"path"`
}

// CSIVolumeSource is an inline volume provided by a CSI driver.
type CSIVolumeSource struct {
	Driver               string                `json:"driver"`
	ReadOnly             *bool                 `json:"readOnly,omitempty"`
	FSType               *string               `json:"fsType,omitempty"`
	VolumeAttributes     map[string]string     `json:"volumeAttributes,omitempty"`
	NodePublishSecretRef *LocalObjectReference `json:"nodePublishSecretRef,omitempty"`
}

// EphemeralVolumeSource is a volume backed by a claim created for, and
// deleted with, the pod.
type EphemeralVolumeSource struct {
	VolumeClaimTemplate *PersistentVolumeClaimTemplate `json:"volumeClaimTemplate,omitempty"`
}

// PersistentVolumeClaimTemplate is the claim an ephemeral volume creates.
type PersistentVolumeClaimTemplate struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PersistentVolumeClaimSpec `json:"spec"`
}

// ImageVolumeSource mounts the content of an OCI image.
type ImageVolumeSource struct {
	Reference  string     `json:"reference,omitempty"`
	PullPolicy PullPolicy `json:"pullPolicy,omitempty"`
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
	Name              string                `json:"name"`
	ReadOnly          bool                  `json:"readOnly,omitempty"`
	RecursiveReadOnly *string               `json:"recursiveReadOnly,omitempty"`
	MountPath         string                `json:"mountPath"`
	SubPath           string                `json:"subPath,omitempty"`
	MountPropagation  *MountPropagationMode `json:"mountPropagation,omitempty"`
	SubPathExpr       string                `json:"subPathExpr,omitempty"`
}

// VolumeDevice maps a raw block volume to a device path in a container.
type VolumeDevice struct {
	Name       string `json:"name"`
	DevicePath string `json:"devicePath"`
}
