package api

// This file holds Pod, the unit the scheduler places and the kubelet runs,
// with its spec, status and conditions; PodTemplateSpec, the pod shape that
// workload controllers stamp out; and Binding, the body of pods/binding.

// Pod is a group of containers scheduled together onto one node, sharing
// network and volumes. Controllers create pods; the scheduler binds each to
// a node; that node's kubelet runs it and reports its status.
type Pod struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       PodSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     PodStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PodSpec is the desired state of a pod.
type PodSpec struct {
	Volumes                       []Volume                   `json:"volumes,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name" protobuf:"bytes,1,rep,name=volumes"`
	InitContainers                []Container                `json:"initContainers,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,20,rep,name=initContainers"`
	Containers                    []Container                `json:"containers" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=containers"`
	EphemeralContainers           []EphemeralContainer       `json:"ephemeralContainers,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,34,rep,name=ephemeralContainers"`
	RestartPolicy                 RestartPolicy              `json:"restartPolicy,omitempty" protobuf:"bytes,3,opt,name=restartPolicy,casttype=RestartPolicy"`
	TerminationGracePeriodSeconds *int64                     `json:"terminationGracePeriodSeconds,omitempty" protobuf:"varint,4,opt,name=terminationGracePeriodSeconds"`
	ActiveDeadlineSeconds         *int64                     `json:"activeDeadlineSeconds,omitempty" protobuf:"varint,5,opt,name=activeDeadlineSeconds"`
	DNSPolicy                     DNSPolicy                  `json:"dnsPolicy,omitempty" protobuf:"bytes,6,opt,name=dnsPolicy,casttype=DNSPolicy"`
	NodeSelector                  map[string]string          `json:"nodeSelector,omitempty" protobuf:"bytes,7,rep,name=nodeSelector" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	ServiceAccountName            string                     `json:"serviceAccountName,omitempty" protobuf:"bytes,8,opt,name=serviceAccountName"`
	DeprecatedServiceAccount      string                     `json:"serviceAccount,omitempty" protobuf:"bytes,9,opt,name=serviceAccount"`
	AutomountServiceAccountToken  *bool                      `json:"automountServiceAccountToken,omitempty" protobuf:"varint,21,opt,name=automountServiceAccountToken"`
	NodeName                      string                     `json:"nodeName,omitempty" protobuf:"bytes,10,opt,name=nodeName"`
	HostNetwork                   bool                       `json:"hostNetwork,omitempty" protobuf:"varint,11,opt,name=hostNetwork"`
	HostPID                       bool                       `json:"hostPID,omitempty" protobuf:"varint,12,opt,name=hostPID"`
	HostIPC                       bool                       `json:"hostIPC,omitempty" protobuf:"varint,13,opt,name=hostIPC"`
	ShareProcessNamespace         *bool                      `json:"shareProcessNamespace,omitempty" protobuf:"varint,27,opt,name=shareProcessNamespace"`
	SecurityContext               *PodSecurityContext        `json:"securityContext,omitempty" protobuf:"bytes,14,opt,name=securityContext"`
	ImagePullSecrets              []LocalObjectReference     `json:"imagePullSecrets,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,15,rep,name=imagePullSecrets"`
	Hostname                      string                     `json:"hostname,omitempty" protobuf:"bytes,16,opt,name=hostname"`
	Subdomain                     string                     `json:"subdomain,omitempty" protobuf:"bytes,17,opt,name=subdomain"`
	Affinity                      *Affinity                  `json:"affinity,omitempty" protobuf:"bytes,18,opt,name=affinity"`
	SchedulerName                 string                     `json:"schedulerName,omitempty" protobuf:"bytes,19,opt,name=schedulerName"`
	Tolerations                   []Toleration               `json:"tolerations,omitempty" protobuf:"bytes,22,opt,name=tolerations"`
	HostAliases                   []HostAlias                `json:"hostAliases,omitempty" patchStrategy:"merge" patchMergeKey:"ip" protobuf:"bytes,23,rep,name=hostAliases"`
	PriorityClassName             string                     `json:"priorityClassName,omitempty" protobuf:"bytes,24,opt,name=priorityClassName"`
	Priority                      *int32                     `json:"priority,omitempty" protobuf:"varint,25,opt,name=priority"`
	DNSConfig                     *PodDNSConfig              `json:"dnsConfig,omitempty" protobuf:"bytes,26,opt,name=dnsConfig"`
	ReadinessGates                []PodReadinessGate         `json:"readinessGates,omitempty" protobuf:"bytes,28,opt,name=readinessGates"`
	RuntimeClassName              *string                    `json:"runtimeClassName,omitempty" protobuf:"bytes,29,opt,name=runtimeClassName"`
	EnableServiceLinks            *bool                      `json:"enableServiceLinks,omitempty" protobuf:"varint,30,opt,name=enableServiceLinks"`
	PreemptionPolicy              *PreemptionPolicy          `json:"preemptionPolicy,omitempty" protobuf:"bytes,31,opt,name=preemptionPolicy"`
	Overhead                      ResourceList               `json:"overhead,omitempty" protobuf:"bytes,32,opt,name=overhead" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	TopologySpreadConstraints     []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty" patchStrategy:"merge" patchMergeKey:"topologyKey" protobuf:"bytes,33,opt,name=topologySpreadConstraints"`
	SetHostnameAsFQDN             *bool                      `json:"setHostnameAsFQDN,omitempty" protobuf:"varint,35,opt,name=setHostnameAsFQDN"`
	OS                            *PodOS                     `json:"os,omitempty" protobuf:"bytes,36,opt,name=os"`
	HostUsers                     *bool                      `json:"hostUsers,omitempty" protobuf:"varint,37,opt,name=hostUsers"`
	SchedulingGates               []PodSchedulingGate        `json:"schedulingGates,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,38,opt,name=schedulingGates"`
	ResourceClaims                []PodResourceClaim         `json:"resourceClaims,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name" protobuf:"bytes,39,rep,name=resourceClaims"`
	Resources                     *ResourceRequirements      `json:"resources,omitempty" protobuf:"bytes,40,opt,name=resources"`
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
	SELinuxOptions           *SELinuxOptions                `json:"seLinuxOptions,omitempty" protobuf:"bytes,1,opt,name=seLinuxOptions"`
	WindowsOptions           *WindowsSecurityContextOptions `json:"windowsOptions,omitempty" protobuf:"bytes,8,opt,name=windowsOptions"`
	RunAsUser                *int64                         `json:"runAsUser,omitempty" protobuf:"varint,2,opt,name=runAsUser"`
	RunAsGroup               *int64                         `json:"runAsGroup,omitempty" protobuf:"varint,6,opt,name=runAsGroup"`
	RunAsNonRoot             *bool                          `json:"runAsNonRoot,omitempty" protobuf:"varint,3,opt,name=runAsNonRoot"`
	SupplementalGroups       []int64                        `json:"supplementalGroups,omitempty" protobuf:"varint,4,rep,name=supplementalGroups"`
	SupplementalGroupsPolicy *string                        `json:"supplementalGroupsPolicy,omitempty" protobuf:"bytes,12,opt,name=supplementalGroupsPolicy"`
	FSGroup                  *int64                         `json:"fsGroup,omitempty" protobuf:"varint,5,opt,name=fsGroup"`
	Sysctls                  []Sysctl                       `json:"sysctls,omitempty" protobuf:"bytes,7,rep,name=sysctls"`
	FSGroupChangePolicy      *string                        `json:"fsGroupChangePolicy,omitempty" protobuf:"bytes,9,opt,name=fsGroupChangePolicy"`
	SeccompProfile           *SeccompProfile                `json:"seccompProfile,omitempty" protobuf:"bytes,10,opt,name=seccompProfile"`
	AppArmorProfile          *AppArmorProfile               `json:"appArmorProfile,omitempty" protobuf:"bytes,11,opt,name=appArmorProfile"`
	SELinuxChangePolicy      *string                        `json:"seLinuxChangePolicy,omitempty" protobuf:"bytes,13,opt,name=seLinuxChangePolicy"`
}

// Sysctl is a kernel parameter set for the pod.
type Sysctl struct {
	Name  string `json:"name" protobuf:"bytes,1,opt,name=name"`
	Value string `json:"value" protobuf:"bytes,2,opt,name=value"`
}

// HostAlias is an extra /etc/hosts entry.
type HostAlias struct {
	IP        string   `json:"ip" protobuf:"bytes,1,opt,name=ip"`
	Hostnames []string `json:"hostnames,omitempty" protobuf:"bytes,2,rep,name=hostnames"`
}

// PodDNSConfig adds to (or, with dnsPolicy None, replaces) a pod's DNS settings.
type PodDNSConfig struct {
	Nameservers []string             `json:"nameservers,omitempty" protobuf:"bytes,1,rep,name=nameservers"`
	Searches    []string             `json:"searches,omitempty" protobuf:"bytes,2,rep,name=searches"`
	Options     []PodDNSConfigOption `json:"options,omitempty" protobuf:"bytes,3,rep,name=options"`
}

// PodDNSConfigOption is a resolv.conf option such as ndots:2.
type PodDNSConfigOption struct {
	Name  string  `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	Value *string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
}

// PodReadinessGate names an extra condition that must be True for the pod to be Ready.
type PodReadinessGate struct {
	ConditionType PodConditionType `json:"conditionType" protobuf:"bytes,1,opt,name=conditionType,casttype=PodConditionType"`
}

// PodOS names the operating system a pod needs (linux or windows).
type PodOS struct {
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// PodSchedulingGate holds a pod back from scheduling until it is removed.
type PodSchedulingGate struct {
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// PodResourceClaim names a dynamic resource claim a pod uses.
type PodResourceClaim struct {
	Name                      string  `json:"name" protobuf:"bytes,1,name=name"`
	ResourceClaimName         *string `json:"resourceClaimName,omitempty" protobuf:"bytes,3,opt,name=resourceClaimName"`
	ResourceClaimTemplateName *string `json:"resourceClaimTemplateName,omitempty" protobuf:"bytes,4,opt,name=resourceClaimTemplateName"`
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
	ObservedGeneration         int64                    `json:"observedGeneration,omitempty" protobuf:"varint,17,opt,name=observedGeneration"`
	Phase                      PodPhase                 `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=PodPhase"`
	Conditions                 []PodCondition           `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,2,rep,name=conditions"`
	Message                    string                   `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	Reason                     string                   `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	NominatedNodeName          string                   `json:"nominatedNodeName,omitempty" protobuf:"bytes,11,opt,name=nominatedNodeName"`
	HostIP                     string                   `json:"hostIP,omitempty" protobuf:"bytes,5,opt,name=hostIP"`
	HostIPs                    []HostIP                 `json:"hostIPs,omitempty" patchStrategy:"merge" patchMergeKey:"ip" protobuf:"bytes,16,rep,name=hostIPs"`
	PodIP                      string                   `json:"podIP,omitempty" protobuf:"bytes,6,opt,name=podIP"`
	PodIPs                     []PodIP                  `json:"podIPs,omitempty" patchStrategy:"merge" patchMergeKey:"ip" protobuf:"bytes,12,rep,name=podIPs"`
	StartTime                  *Time                    `json:"startTime,omitempty" protobuf:"bytes,7,opt,name=startTime"`
	InitContainerStatuses      []ContainerStatus        `json:"initContainerStatuses,omitempty" protobuf:"bytes,10,rep,name=initContainerStatuses"`
	ContainerStatuses          []ContainerStatus        `json:"containerStatuses,omitempty" protobuf:"bytes,8,rep,name=containerStatuses"`
	QOSClass                   PodQOSClass              `json:"qosClass,omitempty" protobuf:"bytes,9,rep,name=qosClass"`
	EphemeralContainerStatuses []ContainerStatus        `json:"ephemeralContainerStatuses,omitempty" protobuf:"bytes,13,rep,name=ephemeralContainerStatuses"`
	Resize                     string                   `json:"resize,omitempty" protobuf:"bytes,14,opt,name=resize,casttype=PodResizeStatus"`
	ResourceClaimStatuses      []PodResourceClaimStatus `json:"resourceClaimStatuses,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name" protobuf:"bytes,15,rep,name=resourceClaimStatuses"`
}

// PodCondition is one condition of a pod, e.g. Ready=True.
type PodCondition struct {
	Type               PodConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=PodConditionType"`
	ObservedGeneration int64            `json:"observedGeneration,omitempty" protobuf:"varint,7,opt,name=observedGeneration"`
	Status             ConditionStatus  `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	LastProbeTime      Time             `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	LastTransitionTime Time             `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	Reason             string           `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	Message            string           `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// HostIP is one IP address of the node a pod runs on.
type HostIP struct {
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
}

// PodIP is one IP address of a pod.
type PodIP struct {
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
}

// PodResourceClaimStatus names the ResourceClaim generated for a pod's claim.
type PodResourceClaimStatus struct {
	Name              string  `json:"name" protobuf:"bytes,1,name=name"`
	ResourceClaimName *string `json:"resourceClaimName,omitempty" protobuf:"bytes,2,opt,name=resourceClaimName"`
}

// PodTemplateSpec is the pod a workload controller creates: metadata (labels
// that its selector matches) and a spec.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       PodSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// Binding is the body of a POST to pods/<name>/binding: the scheduler's
// decision to place the pod on the target node.
type Binding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Target     ObjectReference `json:"target" protobuf:"bytes,2,opt,name=target"`
}
