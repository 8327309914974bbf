package api

// This file holds the core/v1 Container and everything hanging off it:
// ports, environment, resources, probes, lifecycle hooks and security
// context, plus the ContainerStatus the kubelet reports back.

// Container is one container of a pod: the image to run and how to run it.
type Container struct {
	Name                     string                   `json:"name" protobuf:"bytes,1,opt,name=name"`
	Image                    string                   `json:"image,omitempty" protobuf:"bytes,2,opt,name=image"`
	Command                  []string                 `json:"command,omitempty" protobuf:"bytes,3,rep,name=command"`
	Args                     []string                 `json:"args,omitempty" protobuf:"bytes,4,rep,name=args"`
	WorkingDir               string                   `json:"workingDir,omitempty" protobuf:"bytes,5,opt,name=workingDir"`
	Ports                    []ContainerPort          `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"containerPort" protobuf:"bytes,6,rep,name=ports"`
	EnvFrom                  []EnvFromSource          `json:"envFrom,omitempty" protobuf:"bytes,19,rep,name=envFrom"`
	Env                      []EnvVar                 `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,7,rep,name=env"`
	Resources                ResourceRequirements     `json:"resources,omitempty" protobuf:"bytes,8,opt,name=resources"`
	ResizePolicy             []ContainerResizePolicy  `json:"resizePolicy,omitempty" protobuf:"bytes,23,rep,name=resizePolicy"`
	RestartPolicy            *ContainerRestartPolicy  `json:"restartPolicy,omitempty" protobuf:"bytes,24,opt,name=restartPolicy,casttype=ContainerRestartPolicy"`
	VolumeMounts             []VolumeMount            `json:"volumeMounts,omitempty" patchStrategy:"merge" patchMergeKey:"mountPath" protobuf:"bytes,9,rep,name=volumeMounts"`
	VolumeDevices            []VolumeDevice           `json:"volumeDevices,omitempty" patchStrategy:"merge" patchMergeKey:"devicePath" protobuf:"bytes,21,rep,name=volumeDevices"`
	LivenessProbe            *Probe                   `json:"livenessProbe,omitempty" protobuf:"bytes,10,opt,name=livenessProbe"`
	ReadinessProbe           *Probe                   `json:"readinessProbe,omitempty" protobuf:"bytes,11,opt,name=readinessProbe"`
	StartupProbe             *Probe                   `json:"startupProbe,omitempty" protobuf:"bytes,22,opt,name=startupProbe"`
	Lifecycle                *Lifecycle               `json:"lifecycle,omitempty" protobuf:"bytes,12,opt,name=lifecycle"`
	TerminationMessagePath   string                   `json:"terminationMessagePath,omitempty" protobuf:"bytes,13,opt,name=terminationMessagePath"`
	TerminationMessagePolicy TerminationMessagePolicy `json:"terminationMessagePolicy,omitempty" protobuf:"bytes,20,opt,name=terminationMessagePolicy,casttype=TerminationMessagePolicy"`
	ImagePullPolicy          PullPolicy               `json:"imagePullPolicy,omitempty" protobuf:"bytes,14,opt,name=imagePullPolicy,casttype=PullPolicy"`
	SecurityContext          *SecurityContext         `json:"securityContext,omitempty" protobuf:"bytes,15,opt,name=securityContext"`
	Stdin                    bool                     `json:"stdin,omitempty" protobuf:"varint,16,opt,name=stdin"`
	StdinOnce                bool                     `json:"stdinOnce,omitempty" protobuf:"varint,17,opt,name=stdinOnce"`
	TTY                      bool                     `json:"tty,omitempty" protobuf:"varint,18,opt,name=tty"`
}

// EphemeralContainer is a debugging container added to a running pod
// (kubectl debug). It has a Container's fields plus the container it targets.
type EphemeralContainer struct {
	Container           `json:",inline" protobuf:"bytes,1,req"`
	TargetContainerName string `json:"targetContainerName,omitempty" protobuf:"bytes,2,opt,name=targetContainerName"`
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
	Name          string   `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	HostPort      int32    `json:"hostPort,omitempty" protobuf:"varint,2,opt,name=hostPort"`
	ContainerPort int32    `json:"containerPort" protobuf:"varint,3,opt,name=containerPort"`
	Protocol      Protocol `json:"protocol,omitempty" protobuf:"bytes,4,opt,name=protocol,casttype=Protocol"`
	HostIP        string   `json:"hostIP,omitempty" protobuf:"bytes,5,opt,name=hostIP"`
}

// EnvVar is one environment variable, given literally or taken from a source.
type EnvVar struct {
	Name      string        `json:"name" protobuf:"bytes,1,opt,name=name"`
	Value     string        `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty" protobuf:"bytes,3,opt,name=valueFrom"`
}

// EnvVarSource is where an environment variable's value comes from.
type EnvVarSource struct {
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty" protobuf:"bytes,1,opt,name=fieldRef"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty" protobuf:"bytes,2,opt,name=resourceFieldRef"`
	ConfigMapKeyRef  *ConfigMapKeySelector  `json:"configMapKeyRef,omitempty" protobuf:"bytes,3,opt,name=configMapKeyRef"`
	SecretKeyRef     *SecretKeySelector     `json:"secretKeyRef,omitempty" protobuf:"bytes,4,opt,name=secretKeyRef"`
}

// ConfigMapKeySelector selects one key of a ConfigMap.
type ConfigMapKeySelector struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	Key                  string `json:"key" protobuf:"bytes,2,opt,name=key"`
	Optional             *bool  `json:"optional,omitempty" protobuf:"varint,3,opt,name=optional"`
}

// SecretKeySelector selects one key of a Secret.
type SecretKeySelector struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	Key                  string `json:"key" protobuf:"bytes,2,opt,name=key"`
	Optional             *bool  `json:"optional,omitempty" protobuf:"varint,3,opt,name=optional"`
}

// EnvFromSource imports every key of a ConfigMap or Secret as environment variables.
type EnvFromSource struct {
	Prefix       string              `json:"prefix,omitempty" protobuf:"bytes,1,opt,name=prefix"`
	ConfigMapRef *ConfigMapEnvSource `json:"configMapRef,omitempty" protobuf:"bytes,2,opt,name=configMapRef"`
	SecretRef    *SecretEnvSource    `json:"secretRef,omitempty" protobuf:"bytes,3,opt,name=secretRef"`
}

// ConfigMapEnvSource names the ConfigMap of an EnvFromSource.
type ConfigMapEnvSource struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	Optional             *bool `json:"optional,omitempty" protobuf:"varint,2,opt,name=optional"`
}

// SecretEnvSource names the Secret of an EnvFromSource.
type SecretEnvSource struct {
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	Optional             *bool `json:"optional,omitempty" protobuf:"varint,2,opt,name=optional"`
}

// ResourceRequirements are a container's resource requests (what the
// scheduler reserves) and limits (what the runtime enforces).
type ResourceRequirements struct {
	Limits   ResourceList    `json:"limits,omitempty" protobuf:"bytes,1,rep,name=limits,casttype=ResourceList,castkey=ResourceName" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	Requests ResourceList    `json:"requests,omitempty" protobuf:"bytes,2,rep,name=requests,casttype=ResourceList,castkey=ResourceName" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	Claims   []ResourceClaim `json:"claims,omitempty" protobuf:"bytes,3,opt,name=claims"`
}

// ResourceClaim names a dynamic resource claim of the pod that a container uses.
type ResourceClaim struct {
	Name    string `json:"name" protobuf:"bytes,1,opt,name=name"`
	Request string `json:"request,omitempty" protobuf:"bytes,2,opt,name=request"`
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
	ResourceName  ResourceName                `json:"resourceName" protobuf:"bytes,1,opt,name=resourceName,casttype=ResourceName"`
	RestartPolicy ResourceResizeRestartPolicy `json:"restartPolicy" protobuf:"bytes,2,opt,name=restartPolicy,casttype=ResourceResizeRestartPolicy"`
}

// Probe is a periodic health check: liveness restarts the container on
// failure, readiness removes the pod from service endpoints, startup holds
// the other two back until the container has started.
type Probe struct {
	ProbeHandler                  `json:",inline" protobuf:"bytes,1,opt,name=handler"`
	InitialDelaySeconds           int32  `json:"initialDelaySeconds,omitempty" protobuf:"varint,2,opt,name=initialDelaySeconds"`
	TimeoutSeconds                int32  `json:"timeoutSeconds,omitempty" protobuf:"varint,3,opt,name=timeoutSeconds"`
	PeriodSeconds                 int32  `json:"periodSeconds,omitempty" protobuf:"varint,4,opt,name=periodSeconds"`
	SuccessThreshold              int32  `json:"successThreshold,omitempty" protobuf:"varint,5,opt,name=successThreshold"`
	FailureThreshold              int32  `json:"failureThreshold,omitempty" protobuf:"varint,6,opt,name=failureThreshold"`
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty" protobuf:"varint,7,opt,name=terminationGracePeriodSeconds"`
}

// ProbeHandler is the check a probe runs; exactly one member is set.
type ProbeHandler struct {
	Exec      *ExecAction      `json:"exec,omitempty" protobuf:"bytes,1,opt,name=exec"`
	HTTPGet   *HTTPGetAction   `json:"httpGet,omitempty" protobuf:"bytes,2,opt,name=httpGet"`
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty" protobuf:"bytes,3,opt,name=tcpSocket"`
	GRPC      *GRPCAction      `json:"grpc,omitempty" protobuf:"bytes,4,opt,name=grpc"`
}

// ExecAction runs a command in the container; exit status 0 is success.
type ExecAction struct {
	Command []string `json:"command,omitempty" protobuf:"bytes,1,rep,name=command"`
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
	Path        string       `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	Port        IntOrString  `json:"port" protobuf:"bytes,2,opt,name=port"`
	Host        string       `json:"host,omitempty" protobuf:"bytes,3,opt,name=host"`
	Scheme      URIScheme    `json:"scheme,omitempty" protobuf:"bytes,4,opt,name=scheme,casttype=URIScheme"`
	HTTPHeaders []HTTPHeader `json:"httpHeaders,omitempty" protobuf:"bytes,5,rep,name=httpHeaders"`
}

// HTTPHeader is a header an HTTP probe sends.
type HTTPHeader struct {
	Name  string `json:"name" protobuf:"bytes,1,opt,name=name"`
	Value string `json:"value" protobuf:"bytes,2,opt,name=value"`
}

// TCPSocketAction opens a TCP connection; connecting is success.
type TCPSocketAction struct {
	Port IntOrString `json:"port" protobuf:"bytes,1,opt,name=port"`
	Host string      `json:"host,omitempty" protobuf:"bytes,2,opt,name=host"`
}

// GRPCAction calls the gRPC health-checking protocol.
type GRPCAction struct {
	Port    int32   `json:"port" protobuf:"varint,1,opt,name=port"`
	Service *string `json:"service" protobuf:"bytes,2,opt,name=service"`
}

// SleepAction pauses for a number of seconds (a lifecycle hook).
type SleepAction struct {
	Seconds int64 `json:"seconds" protobuf:"varint,1,opt,name=seconds"`
}

// Lifecycle holds hooks the kubelet runs after a container starts and before it stops.
type Lifecycle struct {
	PostStart  *LifecycleHandler `json:"postStart,omitempty" protobuf:"bytes,1,opt,name=postStart"`
	PreStop    *LifecycleHandler `json:"preStop,omitempty" protobuf:"bytes,2,opt,name=preStop"`
	StopSignal *string           `json:"stopSignal,omitempty" protobuf:"bytes,3,opt,name=stopSignal,casttype=Signal"`
}

// LifecycleHandler is the action of a lifecycle hook; exactly one member is set.
type LifecycleHandler struct {
	Exec      *ExecAction      `json:"exec,omitempty" protobuf:"bytes,1,opt,name=exec"`
	HTTPGet   *HTTPGetAction   `json:"httpGet,omitempty" protobuf:"bytes,2,opt,name=httpGet"`
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty" protobuf:"bytes,3,opt,name=tcpSocket"`
	Sleep     *SleepAction     `json:"sleep,omitempty" protobuf:"bytes,4,opt,name=sleep"`
}

// SecurityContext holds a container's security settings; where a field is
// also in the PodSecurityContext, the container's value wins.
type SecurityContext struct {
	Capabilities             *Capabilities                  `json:"capabilities,omitempty" protobuf:"bytes,1,opt,name=capabilities"`
	Privileged               *bool                          `json:"privileged,omitempty" protobuf:"varint,2,opt,name=privileged"`
	SELinuxOptions           *SELinuxOptions                `json:"seLinuxOptions,omitempty" protobuf:"bytes,3,opt,name=seLinuxOptions"`
	WindowsOptions           *WindowsSecurityContextOptions `json:"windowsOptions,omitempty" protobuf:"bytes,10,opt,name=windowsOptions"`
	RunAsUser                *int64                         `json:"runAsUser,omitempty" protobuf:"varint,4,opt,name=runAsUser"`
	RunAsGroup               *int64                         `json:"runAsGroup,omitempty" protobuf:"varint,8,opt,name=runAsGroup"`
	RunAsNonRoot             *bool                          `json:"runAsNonRoot,omitempty" protobuf:"varint,5,opt,name=runAsNonRoot"`
	ReadOnlyRootFilesystem   *bool                          `json:"readOnlyRootFilesystem,omitempty" protobuf:"varint,6,opt,name=readOnlyRootFilesystem"`
	AllowPrivilegeEscalation *bool                          `json:"allowPrivilegeEscalation,omitempty" protobuf:"varint,7,opt,name=allowPrivilegeEscalation"`
	ProcMount                *string                        `json:"procMount,omitempty" protobuf:"bytes,9,opt,name=procMount"`
	SeccompProfile           *SeccompProfile                `json:"seccompProfile,omitempty" protobuf:"bytes,11,opt,name=seccompProfile"`
	AppArmorProfile          *AppArmorProfile               `json:"appArmorProfile,omitempty" protobuf:"bytes,12,opt,name=appArmorProfile"`
}

// Capabilities are Linux capabilities added to or dropped from a container.
type Capabilities struct {
	Add  []string `json:"add,omitempty" protobuf:"bytes,1,rep,name=add,casttype=Capability"`
	Drop []string `json:"drop,omitempty" protobuf:"bytes,2,rep,name=drop,casttype=Capability"`
}

// SELinuxOptions is an SELinux label.
type SELinuxOptions struct {
	User  string `json:"user,omitempty" protobuf:"bytes,1,opt,name=user"`
	Role  string `json:"role,omitempty" protobuf:"bytes,2,opt,name=role"`
	Type  string `json:"type,omitempty" protobuf:"bytes,3,opt,name=type"`
	Level string `json:"level,omitempty" protobuf:"bytes,4,opt,name=level"`
}

// WindowsSecurityContextOptions holds Windows-specific security settings.
type WindowsSecurityContextOptions struct {
	GMSACredentialSpecName *string `json:"gmsaCredentialSpecName,omitempty" protobuf:"bytes,1,opt,name=gmsaCredentialSpecName"`
	GMSACredentialSpec     *string `json:"gmsaCredentialSpec,omitempty" protobuf:"bytes,2,opt,name=gmsaCredentialSpec"`
	RunAsUserName          *string `json:"runAsUserName,omitempty" protobuf:"bytes,3,opt,name=runAsUserName"`
	HostProcess            *bool   `json:"hostProcess,omitempty" protobuf:"varint,4,opt,name=hostProcess"`
}

// SeccompProfile selects a seccomp profile: RuntimeDefault, Unconfined or Localhost.
type SeccompProfile struct {
	Type             string  `json:"type" protobuf:"bytes,1,opt,name=type,casttype=SeccompProfileType"`
	LocalhostProfile *string `json:"localhostProfile,omitempty" protobuf:"bytes,2,opt,name=localhostProfile"`
}

// AppArmorProfile selects an AppArmor profile: RuntimeDefault, Unconfined or Localhost.
type AppArmorProfile struct {
	Type             string  `json:"type" protobuf:"bytes,1,opt,name=type,casttype=AppArmorProfileType"`
	LocalhostProfile *string `json:"localhostProfile,omitempty" protobuf:"bytes,2,opt,name=localhostProfile"`
}

// ContainerStatus is what the kubelet reports about one container.
type ContainerStatus struct {
	Name                 string                `json:"name" protobuf:"bytes,1,opt,name=name"`
	State                ContainerState        `json:"state,omitempty" protobuf:"bytes,2,opt,name=state"`
	LastTerminationState ContainerState        `json:"lastState,omitempty" protobuf:"bytes,3,opt,name=lastState"`
	Ready                bool                  `json:"ready" protobuf:"varint,4,opt,name=ready"`
	RestartCount         int32                 `json:"restartCount" protobuf:"varint,5,opt,name=restartCount"`
	Image                string                `json:"image" protobuf:"bytes,6,opt,name=image"`
	ImageID              string                `json:"imageID" protobuf:"bytes,7,opt,name=imageID"`
	ContainerID          string                `json:"containerID,omitempty" protobuf:"bytes,8,opt,name=containerID"`
	Started              *bool                 `json:"started,omitempty" protobuf:"varint,9,opt,name=started"`
	AllocatedResources   ResourceList          `json:"allocatedResources,omitempty" protobuf:"bytes,10,rep,name=allocatedResources,casttype=ResourceList,castkey=ResourceName" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	Resources            *ResourceRequirements `json:"resources,omitempty" protobuf:"bytes,11,opt,name=resources"`
	VolumeMounts         []VolumeMountStatus   `json:"volumeMounts,omitempty" patchStrategy:"merge" patchMergeKey:"mountPath" protobuf:"bytes,12,rep,name=volumeMounts"`
	User                 *ContainerUser        `json:"user,omitempty" protobuf:"bytes,13,opt,name=user,casttype=ContainerUser"`
	StopSignal           *string               `json:"stopSignal,omitempty" protobuf:"bytes,15,opt,name=stopSignal,casttype=Signal"`
}

// ContainerState is the state of a container; exactly one member is set
// (none means Waiting with no reason).
type ContainerState struct {
	Waiting    *ContainerStateWaiting    `json:"waiting,omitempty" protobuf:"bytes,1,opt,name=waiting"`
	Running    *ContainerStateRunning    `json:"running,omitempty" protobuf:"bytes,2,opt,name=running"`
	Terminated *ContainerStateTerminated `json:"terminated,omitempty" protobuf:"bytes,3,opt,name=terminated"`
}

// ContainerStateWaiting is a container not yet running, e.g. ContainerCreating or CrashLoopBackOff.
type ContainerStateWaiting struct {
	Reason  string `json:"reason,omitempty" protobuf:"bytes,1,opt,name=reason"`
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
}

// ContainerStateRunning is a running container.
type ContainerStateRunning struct {
	StartedAt Time `json:"startedAt,omitempty" protobuf:"bytes,1,opt,name=startedAt"`
}

// ContainerStateTerminated is a container that has exited.
type ContainerStateTerminated struct {
	ExitCode    int32  `json:"exitCode" protobuf:"varint,1,opt,name=exitCode"`
	Signal      int32  `json:"signal,omitempty" protobuf:"varint,2,opt,name=signal"`
	Reason      string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	Message     string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	StartedAt   Time   `json:"startedAt,omitempty" protobuf:"bytes,5,opt,name=startedAt"`
	FinishedAt  Time   `json:"finishedAt,omitempty" protobuf:"bytes,6,opt,name=finishedAt"`
	ContainerID string `json:"containerID,omitempty" protobuf:"bytes,7,opt,name=containerID"`
}

// VolumeMountStatus is the observed state of a volume mount.
type VolumeMountStatus struct {
	Name              string  `json:"name" protobuf:"bytes,1,opt,name=name"`
	MountPath         string  `json:"mountPath" protobuf:"bytes,2,opt,name=mountPath"`
	ReadOnly          bool    `json:"readOnly,omitempty" protobuf:"varint,3,opt,name=readOnly"`
	RecursiveReadOnly *string `json:"recursiveReadOnly,omitempty" protobuf:"bytes,4,opt,name=recursiveReadOnly,casttype=RecursiveReadOnlyMode"`
}

// ContainerUser is the identity the container's first process runs as.
type ContainerUser struct {
	Linux *LinuxContainerUser `json:"linux,omitempty" protobuf:"bytes,1,opt,name=linux,casttype=LinuxContainerUser"`
}

// LinuxContainerUser is a Linux uid, gid and supplementary groups.
type LinuxContainerUser struct {
	UID                int64   `json:"uid" protobuf:"varint,1,name=uid"`
	GID                int64   `json:"gid" protobuf:"varint,2,name=gid"`
	SupplementalGroups []int64 `json:"supplementalGroups,omitempty" protobuf:"varint,3,rep,name=supplementalGroups"`
}
