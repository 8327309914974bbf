package api

// This file holds Pod, the unit the scheduler places and the kubelet runs,
// with its spec, status and conditions; PodTemplateSpec, the pod shape that
// workload controllers stamp out; and Binding, the body of pods/binding.

// Pod is a group of containers scheduled together onto one node, sharing
// network and volumes. Controllers create pods; the scheduler binds each to
// a node; that node's kubelet runs it and reports its status.
type Pod struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PodSpec   `json:"spec,omitempty"`
	Status     PodStatus `json:"status,omitempty"`
}

// PodSpec is the desired state of a pod.
type PodSpec struct {
	Volumes                       []Volume                   `json:"volumes,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name"`
	InitContainers                []Container                `json:"initContainers,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	Containers                    []Container                `json:"containers" patchStrategy:"merge" patchMergeKey:"name"`
	EphemeralContainers           []EphemeralContainer       `json:"ephemeralContainers,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	RestartPolicy                 RestartPolicy              `json:"restartPolicy,omitempty"`
	TerminationGracePeriodSeconds *int64                     `json:"terminationGracePeriodSeconds,omitempty"`
	ActiveDeadlineSeconds         *int64                     `json:"activeDeadlineSeconds,omitempty"`
	DNSPolicy                     DNSPolicy                  `json:"dnsPolicy,omitempty"`
	NodeSelector                  map[string]string          `json:"nodeSelector,omitempty"`
	ServiceAccountName            string                     `json:"serviceAccountName,omitempty"`
	DeprecatedServiceAccount      string                     `json:"serviceAccount,omitempty"`
	AutomountServiceAccountToken  *bool                      `json:"automountServiceAccountToken,omitempty"`
	NodeName                      string                     `json:"nodeName,omitempty"`
	HostNetwork                   bool                       `json:"hostNetwork,omitempty"`
	HostPID                       bool                       `json:"hostPID,omitempty"`
	HostIPC                       bool                       `json:"hostIPC,omitempty"`
	ShareProcessNamespace         *bool                      `json:"shareProcessNamespace,omitempty"`
	SecurityContext               *PodSecurityContext        `json:"securityContext,omitempty"`
	ImagePullSecrets              []LocalObjectReference     `json:"imagePullSecrets,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	Hostname                      string                     `json:"hostname,omitempty"`
	Subdomain                     string                     `json:"subdomain,omitempty"`
	Affinity                      *Affinity                  `json:"affinity,omitempty"`
	SchedulerName                 string                     `json:"schedulerName,omitempty"`
	Tolerations                   []Toleration               `json:"tolerations,omitempty"`
	HostAliases                   []HostAlias                `json:"hostAliases,omitempty" patchStrategy:"merge" patchMergeKey:"ip"`
	PriorityClassName             string                     `json:"priorityClassName,omitempty"`
	Priority                      *int32                     `json:"priority,omitempty"`
	DNSConfig                     *PodDNSConfig              `json:"dnsConfig,omitempty"`
	ReadinessGates                []PodReadinessGate         `json:"readinessGates,omitempty"`
	RuntimeClassName              *string                    `json:"runtimeClassName,omitempty"`
	EnableServiceLinks            *bool                      `json:"enableServiceLinks,omitempty"`
	PreemptionPolicy              *PreemptionPolicy          `json:"preemptionPolicy,omitempty"`
	Overhead                      ResourceList               `json:"overhead,omitempty"`
	TopologySpreadConstraints     []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty" patchStrategy:"merge" patchMergeKey:"topologyKey"`
	SetHostnameAsFQDN             *bool                      `json:"setHostnameAsFQDN,omitempty"`
	OS                            *PodOS                     `json:"os,omitempty"`
	HostUsers                     *bool                      `json:"hostUsers,omitempty"`
	SchedulingGates               []PodSchedulingGate        `json:"schedulingGates,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	ResourceClaims                []PodResourceClaim         `json:"resourceClaims,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name"`
	Resources                     *ResourceRequirements      `json:"resources,omitempty"`
}

// RestartPolicy says when the kubelet restarts a pod's exited containers.
type RestartPolicy string

// The restart policies; Always is the default.
const (
	RestartPolicyAlways    RestartPolicy = "Always"
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	RestartPolicyNever     RestartPolicy = "Never"
)

// DNSPolicy says how a pod's resolv.conf is built.
type DNSPolicy string

// The DNS policies; ClusterFirst is the default.
const (
	DNSClusterFirstWithHostNet DNSPolicy = "ClusterFirstWithHostNet"
	DNSClusterFirst            DNSPolicy = "ClusterFirst"
	DNSDefault                 DNSPolicy = "Default"
	DNSNone                    DNSPolicy = "None"
)

// PreemptionPolicy says whether a pod may evict lower-priority pods to fit.
type PreemptionPolicy string

// The preemption policies; PreemptLowerPriority is the default.
const (
	PreemptLowerPriority PreemptionPolicy = "PreemptLowerPriority"
	PreemptNever         PreemptionPolicy = "Never"
)

// Defaults the apiserver fills into pods.
const (
	// DefaultSchedulerName is the scheduler that places pods naming none.
	DefaultSchedulerName = "default-scheduler"
	// DefaultTerminationGracePeriodSeconds is the time between SIGTERM and SIGKILL.
	DefaultTerminationGracePeriodSeconds = 30
	// DefaultTerminationMessagePath is where a container may write why it exited.
	DefaultTerminationMessagePath = "/dev/termination-log"
	// DefaultServiceAccountName is the service account pods run as.
	DefaultServiceAccountName = "default"
)

// PodSecurityContext holds pod-wide security settings.
type PodSecurityContext struct {
	SELinuxOptions           *SELinuxOptions                `json:"seLinuxOptions,omitempty"`
	WindowsOptions           *WindowsSecurityContextOptions `json:"windowsOptions,omitempty"`
	RunAsUser                *int64                         `json:"runAsUser,omitempty"`
	RunAsGroup               *int64                         `json:"runAsGroup,omitempty"`
	RunAsNonRoot             *bool                          `json:"runAsNonRoot,omitempty"`
	SupplementalGroups       []int64                        `json:"supplementalGroups,omitempty"`
	SupplementalGroupsPolicy *string                        `json:"supplementalGroupsPolicy,omitempty"`
	FSGroup                  *int64                         `json:"fsGroup,omitempty"`
	Sysctls                  []Sysctl                       `json:"sysctls,omitempty"`
	FSGroupChangePolicy      *string                        `json:"fsGroupChangePolicy,omitempty"`
	SeccompProfile           *SeccompProfile                `json:"seccompProfile,omitempty"`
	AppArmorProfile          *AppArmorProfile               `json:"appArmorProfile,omitempty"`
	SELinuxChangePolicy      *string                        `json:"seLinuxChangePolicy,omitempty"`
}

// Sysctl is a kernel parameter set for the pod.
type Sysctl struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HostAlias is an extra /etc/hosts entry.
type HostAlias struct {
	IP        string   `json:"ip"`
	Hostnames []string `json:"hostnames,omitempty"`
}

// PodDNSConfig adds to (or, with dnsPolicy None, replaces) a pod's DNS settings.
type PodDNSConfig struct {
	Nameservers []string             `json:"nameservers,omitempty"`
	Searches    []string             `json:"searches,omitempty"`
	Options     []PodDNSConfigOption `json:"options,omitempty"`
}

// PodDNSConfigOption is a resolv.conf option such as ndots:2.
type PodDNSConfigOption struct {
	Name  string  `json:"name,omitempty"`
	Value *string `json:"value,omitempty"`
}

// PodReadinessGate names an extra condition that must be True for the pod to be Ready.
type PodReadinessGate struct {
	ConditionType PodConditionType `json:"conditionType"`
}

// PodOS names the operating system a pod needs (linux or windows).
type PodOS struct {
	Name string `json:"name"`
}

// PodSchedulingGate holds a pod back from scheduling until it is removed.
type PodSchedulingGate struct {
	Name string `json:"name"`
}

// PodResourceClaim names a dynamic resource claim a pod uses.
type PodResourceClaim struct {
	Name                      string  `json:"name"`
	ResourceClaimName         *string `json:"resourceClaimName,omitempty"`
	ResourceClaimTemplateName *string `json:"resourceClaimTemplateName,omitempty"`
}

// PodPhase is a pod's place in its lifecycle.
type PodPhase string

// The pod phases.
const (
	// PodPending: accepted, but not all containers have started (includes scheduling and image pulls).
	PodPending PodPhase = "Pending"
	// PodRunning: bound to a node with at least one container running.
	PodRunning PodPhase = "Running"
	// PodSucceeded: all containers exited 0 and will not be restarted.
	PodSucceeded PodPhase = "Succeeded"
	// PodFailed: all containers exited and at least one failed.
	PodFailed PodPhase = "Failed"
	// PodUnknown: the pod's state could not be obtained.
	PodUnknown PodPhase = "Unknown"
)

// PodConditionType names a pod condition.
type PodConditionType string

// The pod condition types.
const (
	// PodScheduled: the scheduler has bound the pod to a node.
	PodScheduled PodConditionType = "PodScheduled"
	// PodReadyToStartContainers: the sandbox and network are set up.
	PodReadyToStartContainers PodConditionType = "PodReadyToStartContainers"
	// PodInitialized: all init containers have completed.
	PodInitialized PodConditionType = "Initialized"
	// ContainersReady: every container is ready.
	ContainersReady PodConditionType = "ContainersReady"
	// PodReady: the pod can serve traffic and joins service endpoints.
	PodReady PodConditionType = "Ready"
	// DisruptionTarget: the pod is about to be deleted by a disruption (eviction, preemption, taint).
	DisruptionTarget PodConditionType = "DisruptionTarget"
)

// Reasons recorded on pod conditions and statuses.
const (
	// PodReasonUnschedulable is the PodScheduled=False reason when no node fits.
	PodReasonUnschedulable = "Unschedulable"
	// PodReasonSchedulingGated is the PodScheduled=False reason while scheduling gates remain.
	PodReasonSchedulingGated = "SchedulingGated"
	// PodReasonPreemptionByScheduler marks a pod preempted by the scheduler.
	PodReasonPreemptionByScheduler = "PreemptionByScheduler"
	// PodReasonTerminationByKubelet marks a pod evicted by the kubelet.
	PodReasonTerminationByKubelet = "TerminationByKubelet"
)

// PodQOSClass is the quality-of-service class derived from requests and limits.
type PodQOSClass string

// The QoS classes.
const (
	PodQOSGuaranteed PodQOSClass = "Guaranteed"
	PodQOSBurstable  PodQOSClass = "Burstable"
	PodQOSBestEffort PodQOSClass = "BestEffort"
)

// PodStatus is the observed state of a pod, written by the scheduler
// (PodScheduled) and the kubelet (everything else).
type PodStatus struct {
	ObservedGeneration         int64                    `json:"observedGeneration,omitempty"`
	Phase                      PodPhase                 `json:"phase,omitempty"`
	Conditions                 []PodCondition           `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	Message                    string                   `json:"message,omitempty"`
	Reason                     string                   `json:"reason,omitempty"`
	NominatedNodeName          string                   `json:"nominatedNodeName,omitempty"`
	HostIP                     string                   `json:"hostIP,omitempty"`
	HostIPs                    []HostIP                 `json:"hostIPs,omitempty" patchStrategy:"merge" patchMergeKey:"ip"`
	PodIP                      string                   `json:"podIP,omitempty"`
	PodIPs                     []PodIP                  `json:"podIPs,omitempty" patchStrategy:"merge" patchMergeKey:"ip"`
	StartTime                  *Time                    `json:"startTime,omitempty"`
	InitContainerStatuses      []ContainerStatus        `json:"initContainerStatuses,omitempty"`
	ContainerStatuses          []ContainerStatus        `json:"containerStatuses,omitempty"`
	QOSClass                   PodQOSClass              `json:"qosClass,omitempty"`
	EphemeralContainerStatuses []ContainerStatus        `json:"ephemeralContainerStatuses,omitempty"`
	Resize                     string                   `json:"resize,omitempty"`
	ResourceClaimStatuses      []PodResourceClaimStatus `json:"resourceClaimStatuses,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name"`
}

// PodCondition is one condition of a pod, e.g. Ready=True.
type PodCondition struct {
	Type               PodConditionType `json:"type"`
	ObservedGeneration int64            `json:"observedGeneration,omitempty"`
	Status             ConditionStatus  `json:"status"`
	LastProbeTime      Time             `json:"lastProbeTime,omitempty"`
	LastTransitionTime Time             `json:"lastTransitionTime,omitempty"`
	Reason             string           `json:"reason,omitempty"`
	Message            string           `json:"message,omitempty"`
}

// HostIP is one IP address of the node a pod runs on.
type HostIP struct {
	IP string `json:"ip"`
}

// PodIP is one IP address of a pod.
type PodIP struct {
	IP string `json:"ip"`
}

// PodResourceClaimStatus names the ResourceClaim generated for a pod's claim.
type PodResourceClaimStatus struct {
	Name              string  `json:"name"`
	ResourceClaimName *string `json:"resourceClaimName,omitempty"`
}

// PodTemplateSpec is the pod a workload controller creates: metadata (labels
// that its selector matches) and a spec.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PodSpec `json:"spec,omitempty"`
}

// Binding is the body of a POST to pods/<name>/binding: the scheduler's
// decision to place the pod on the target node.
type Binding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Target     ObjectReference `json:"target"`
}
