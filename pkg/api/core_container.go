package api

// This file holds the core/v1 Container and everything hanging off it:
// ports, environment, resources, probes, lifecycle hooks and security
// context, plus the ContainerStatus the kubelet reports back.

// Container is one container of a pod: the image to run and how to run it.
type Container struct {
	Name                     string                   `json:"name"`
	Image                    string                   `json:"image,omitempty"`
	Command                  []string                 `json:"command,omitempty"`
	Args                     []string                 `json:"args,omitempty"`
	WorkingDir               string                   `json:"workingDir,omitempty"`
	Ports                    []ContainerPort          `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"containerPort"`
	EnvFrom                  []EnvFromSource          `json:"envFrom,omitempty"`
	Env                      []EnvVar                 `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	Resources                ResourceRequirements     `json:"resources,omitempty"`
	ResizePolicy             []ContainerResizePolicy  `json:"resizePolicy,omitempty"`
	RestartPolicy            *ContainerRestartPolicy  `json:"restartPolicy,omitempty"`
	VolumeMounts             []VolumeMount            `json:"volumeMounts,omitempty" patchStrategy:"merge" patchMergeKey:"mountPath"`
	VolumeDevices            []VolumeDevice           `json:"volumeDevices,omitempty" patchStrategy:"merge" patchMergeKey:"devicePath"`
	LivenessProbe            *Probe                   `json:"livenessProbe,omitempty"`
	ReadinessProbe           *Probe                   `json:"readinessProbe,omitempty"`
	StartupProbe             *Probe                   `json:"startupProbe,omitempty"`
	Lifecycle                *Lifecycle               `json:"lifecycle,omitempty"`
	TerminationMessagePath   string                   `json:"terminationMessagePath,omitempty"`
	TerminationMessagePolicy TerminationMessagePolicy `json:"terminationMessagePolicy,omitempty"`
	ImagePullPolicy          PullPolicy               `json:"imagePullPolicy,omitempty"`
	SecurityContext          *SecurityContext         `json:"securityContext,omitempty"`
	Stdin                    bool                     `json:"stdin,omitempty"`
	StdinOnce                bool                     `json:"stdinOnce,omitempty"`
	TTY                      bool                     `json:"tty,omitempty"`
}

// EphemeralContainer is a debugging container added to a running pod
// (kubectl debug). It has a Container's fields plus the container it targets.
type EphemeralContainer struct {
	Container           `json:",inline"`
	TargetContainerName string `json:"targetContainerName,omitempty"`
}

// PullPolicy says when the kubelet pulls a container image.
type PullPolicy string

// The image pull policies.
const (
	PullAlways       PullPolicy = "Always"
	PullNever        PullPolicy = "Never"
	PullIfNotPresent PullPolicy = "IfNotPresent"
)

// TerminationMessagePolicy says where a container's termination message comes from.
type TerminationMessagePolicy string

// The termination message policies.
const (
	TerminationMessageReadFile              TerminationMessagePolicy = "File"
	TerminationMessageFallbackToLogsOnError TerminationMessagePolicy = "FallbackToLogsOnError"
)

// ContainerRestartPolicy is the per-container restart policy; "Always" on an
// init container makes it a sidecar.
type ContainerRestartPolicy string

// ContainerRestartPolicyAlways marks an init container as a sidecar.
const ContainerRestartPolicyAlways ContainerRestartPolicy = "Always"

// ContainerPort is a port a container listens on.
type ContainerPort struct {
	Name          string   `json:"name,omitempty"`
	HostPort      int32    `json:"hostPort,omitempty"`
	ContainerPort int32    `json:"containerPort"`
	Protocol      Protocol `json:"protocol,omitempty"`
	HostIP        string   `json:"hostIP,omitempty"`
}

// EnvVar is one environment variable, given literally or taken from a source.
type EnvVar struct {
	Name      string        `json:"name"`
	Value     string        `json:"value,omitempty"`
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty"`
}

// EnvVarSource is where an environment variable's value comes from.
type EnvVarSource struct {
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`
	ConfigMapKeyRef  *ConfigMapKeySelector  `json:"configMapKeyRef,omitempty"`
	SecretKeyRef     *SecretKeySelector     `json:"secretKeyRef,omitempty"`
}

// ConfigMapKeySelector selects one key of a ConfigMap.
type ConfigMapKeySelector struct {
	LocalObjectReference `json:",inline"`
	Key                  string `json:"key"`
	Optional             *bool  `json:"optional,omitempty"`
}

// SecretKeySelector selects one key of a Secret.
type SecretKeySelector struct {
	LocalObjectReference `json:",inline"`
	Key                  string `json:"key"`
	Optional             *bool  `json:"optional,omitempty"`
}

// EnvFromSource imports every key of a ConfigMap or Secret as environment variables.
type EnvFromSource struct {
	Prefix       string              `json:"prefix,omitempty"`
	ConfigMapRef *ConfigMapEnvSource `json:"configMapRef,omitempty"`
	SecretRef    *SecretEnvSource    `json:"secretRef,omitempty"`
}

// ConfigMapEnvSource names the ConfigMap of an EnvFromSource.
type ConfigMapEnvSource struct {
	LocalObjectReference `json:",inline"`
	Optional             *bool `json:"optional,omitempty"`
}

// SecretEnvSource names the Secret of an EnvFromSource.
type SecretEnvSource struct {
	LocalObjectReference `json:",inline"`
	Optional             *bool `json:"optional,omitempty"`
}

// ResourceRequirements are a container's resource requests (what the
// scheduler reserves) and limits (what the runtime enforces).
type ResourceRequirements struct {
	Limits   ResourceList    `json:"limits,omitempty"`
	Requests ResourceList    `json:"requests,omitempty"`
	Claims   []ResourceClaim `json:"claims,omitempty"`
}

// ResourceClaim names a dynamic resource claim of the pod that a container uses.
type ResourceClaim struct {
	Name    string `json:"name"`
	Request string `json:"request,omitempty"`
}

// ResourceResizeRestartPolicy says whether resizing a resource restarts the container.
type ResourceResizeRestartPolicy string

// The resize restart policies.
const (
	NotRequired      ResourceResizeRestartPolicy = "NotRequired"
	RestartContainer ResourceResizeRestartPolicy = "RestartContainer"
)

// ContainerResizePolicy is the resize restart policy of one resource.
type ContainerResizePolicy struct {
	ResourceName  ResourceName                `json:"resourceName"`
	RestartPolicy ResourceResizeRestartPolicy `json:"restartPolicy"`
}

// Probe is a periodic health check: liveness restarts the container on
// failure, readiness removes the pod from service endpoints, startup holds
// the other two back until the container has started.
type Probe struct {
	ProbeHandler                  `json:",inline"`
	InitialDelaySeconds           int32  `json:"initialDelaySeconds,omitempty"`
	TimeoutSeconds                int32  `json:"timeoutSeconds,omitempty"`
	PeriodSeconds                 int32  `json:"periodSeconds,omitempty"`
	SuccessThreshold              int32  `json:"successThreshold,omitempty"`
	FailureThreshold              int32  `json:"failureThreshold,omitempty"`
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
}

// ProbeHandler is the check a probe runs; exactly one member is set.
type ProbeHandler struct {
	Exec      *ExecAction      `json:"exec,omitempty"`
	HTTPGet   *HTTPGetAction   `json:"httpGet,omitempty"`
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty"`
	GRPC      *GRPCAction      `json:"grpc,omitempty"`
}

// ExecAction runs a command in the container; exit status 0 is success.
type ExecAction struct {
	Command []string `json:"command,omitempty"`
}

// URIScheme is the scheme of an HTTP probe.
type URIScheme string

// The HTTP probe schemes.
const (
	URISchemeHTTP  URIScheme = "HTTP"
	URISchemeHTTPS URIScheme = "HTTPS"
)

// HTTPGetAction sends an HTTP GET; a 2xx or 3xx status is success.
type HTTPGetAction struct {
	Path        string       `json:"path,omitempty"`
	Port        IntOrString  `json:"port"`
	Host        string       `json:"host,omitempty"`
	Scheme      URIScheme    `json:"scheme,omitempty"`
	HTTPHeaders []HTTPHeader `json:"httpHeaders,omitempty"`
}

// HTTPHeader is a header an HTTP probe sends.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// TCPSocketAction opens a TCP connection; connecting is success.
type TCPSocketAction struct {
	Port IntOrString `json:"port"`
	Host string      `json:"host,omitempty"`
}

// GRPCAction calls the gRPC health-checking protocol.
type GRPCAction struct {
	Port    int32   `json:"port"`
	Service *string `json:"service"`
}

// SleepAction pauses for a number of seconds (a lifecycle hook).
type SleepAction struct {
	Seconds int64 `json:"seconds"`
}

// Lifecycle holds hooks the kubelet runs after a container starts and before it stops.
type Lifecycle struct {
	PostStart  *LifecycleHandler `json:"postStart,omitempty"`
	PreStop    *LifecycleHandler `json:"preStop,omitempty"`
	StopSignal *string           `json:"stopSignal,omitempty"`
}

// LifecycleHandler is the action of a lifecycle hook; exactly one member is set.
type LifecycleHandler struct {
	Exec      *ExecAction      `json:"exec,omitempty"`
	HTTPGet   *HTTPGetAction   `json:"httpGet,omitempty"`
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty"`
	Sleep     *SleepAction     `json:"sleep,omitempty"`
}

// SecurityContext holds a container's security settings; where a field is
// also in the PodSecurityContext, the container's value wins.
type SecurityContext struct {
	Capabilities             *Capabilities                  `json:"capabilities,omitempty"`
	Privileged               *bool                          `json:"privileged,omitempty"`
	SELinuxOptions           *SELinuxOptions                `json:"seLinuxOptions,omitempty"`
	WindowsOptions           *WindowsSecurityContextOptions `json:"windowsOptions,omitempty"`
	RunAsUser                *int64                         `json:"runAsUser,omitempty"`
	RunAsGroup               *int64                         `json:"runAsGroup,omitempty"`
	RunAsNonRoot             *bool                          `json:"runAsNonRoot,omitempty"`
	ReadOnlyRootFilesystem   *bool                          `json:"readOnlyRootFilesystem,omitempty"`
	AllowPrivilegeEscalation *bool                          `json:"allowPrivilegeEscalation,omitempty"`
	ProcMount                *string                        `json:"procMount,omitempty"`
	SeccompProfile           *SeccompProfile                `json:"seccompProfile,omitempty"`
	AppArmorProfile          *AppArmorProfile               `json:"appArmorProfile,omitempty"`
}

// Capabilities are Linux capabilities added to or dropped from a container.
type Capabilities struct {
	Add  []string `json:"add,omitempty"`
	Drop []string `json:"drop,omitempty"`
}

// SELinuxOptions is an SELinux label.
type SELinuxOptions struct {
	User  string `json:"user,omitempty"`
	Role  string `json:"role,omitempty"`
	Type  string `json:"type,omitempty"`
	Level string `json:"level,omitempty"`
}

// WindowsSecurityContextOptions holds Windows-specific security settings.
type WindowsSecurityContextOptions struct {
	GMSACredentialSpecName *string `json:"gmsaCredentialSpecName,omitempty"`
	GMSACredentialSpec     *string `json:"gmsaCredentialSpec,omitempty"`
	RunAsUserName          *string `json:"runAsUserName,omitempty"`
	HostProcess            *bool   `json:"hostProcess,omitempty"`
}

// SeccompProfile selects a seccomp profile: RuntimeDefault, Unconfined or Localhost.
type SeccompProfile struct {
	Type             string  `json:"type"`
	LocalhostProfile *string `json:"localhostProfile,omitempty"`
}

// AppArmorProfile selects an AppArmor profile: RuntimeDefault, Unconfined or Localhost.
type AppArmorProfile struct {
	Type             string  `json:"type"`
	LocalhostProfile *string `json:"localhostProfile,omitempty"`
}

// ContainerStatus is what the kubelet reports about one container.
type ContainerStatus struct {
	Name                 string                `json:"name"`
	State                ContainerState        `json:"state,omitempty"`
	LastTerminationState ContainerState        `json:"lastState,omitempty"`
	Ready                bool                  `json:"ready"`
	RestartCount         int32                 `json:"restartCount"`
	Image                string                `json:"image"`
	ImageID              string                `json:"imageID"`
	ContainerID          string                `json:"containerID,omitempty"`
	Started              *bool                 `json:"started,omitempty"`
	AllocatedResources   ResourceList          `json:"allocatedResources,omitempty"`
	Resources            *ResourceRequirements `json:"resources,omitempty"`
	VolumeMounts         []VolumeMountStatus   `json:"volumeMounts,omitempty" patchStrategy:"merge" patchMergeKey:"mountPath"`
	User                 *ContainerUser        `json:"user,omitempty"`
	StopSignal           *string               `json:"stopSignal,omitempty"`
}

// ContainerState is the state of a container; exactly one member is set
// (none means Waiting with no reason).
type ContainerState struct {
	Waiting    *ContainerStateWaiting    `json:"waiting,omitempty"`
	Running    *ContainerStateRunning    `json:"running,omitempty"`
	Terminated *ContainerStateTerminated `json:"terminated,omitempty"`
}

// ContainerStateWaiting is a container not yet running, e.g. ContainerCreating or CrashLoopBackOff.
type ContainerStateWaiting struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ContainerStateRunning is a running container.
type ContainerStateRunning struct {
	StartedAt Time `json:"startedAt,omitempty"`
}

// ContainerStateTerminated is a container that has exited.
type ContainerStateTerminated struct {
	ExitCode    int32  `json:"exitCode"`
	Signal      int32  `json:"signal,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Message     string `json:"message,omitempty"`
	StartedAt   Time   `json:"startedAt,omitempty"`
	FinishedAt  Time   `json:"finishedAt,omitempty"`
	ContainerID string `json:"containerID,omitempty"`
}

// VolumeMountStatus is the observed state of a volume mount.
type VolumeMountStatus struct {
	Name              string  `json:"name"`
	MountPath         string  `json:"mountPath"`
	ReadOnly          bool    `json:"readOnly,omitempty"`
	RecursiveReadOnly *string `json:"recursiveReadOnly,omitempty"`
}

// ContainerUser is the identity the container's first process runs as.
type ContainerUser struct {
	Linux *LinuxContainerUser `json:"linux,omitempty"`
}

// LinuxContainerUser is a Linux uid, gid and supplementary groups.
type LinuxContainerUser struct {
	UID                int64   `json:"uid"`
	GID                int64   `json:"gid"`
	SupplementalGroups []int64 `json:"supplementalGroups,omitempty"`
}
