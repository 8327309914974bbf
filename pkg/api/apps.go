package api

// This file holds the apps/v1 workloads: Deployment (rolling updates over
// ReplicaSets), ReplicaSet (N identical pods), StatefulSet (pods with stable
// names and storage), DaemonSet (one pod per node) and ControllerRevision
// (the template history StatefulSets and DaemonSets roll back to).

import "encoding/json"

// Deployment declares a replicated, updatable application. The deployment
// controller creates one ReplicaSet per pod template and moves pods from the
// old ReplicaSets to the new one as its strategy allows.
type Deployment struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       DeploymentSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     DeploymentStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// DeploymentSpec is the desired state of a Deployment.
type DeploymentSpec struct {
	Replicas                *int32             `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	Selector                *LabelSelector     `json:"selector" protobuf:"bytes,2,opt,name=selector"`
	Template                PodTemplateSpec    `json:"template" protobuf:"bytes,3,opt,name=template"`
	Strategy                DeploymentStrategy `json:"strategy,omitempty" patchStrategy:"retainKeys" protobuf:"bytes,4,opt,name=strategy"`
	MinReadySeconds         int32              `json:"minReadySeconds,omitempty" protobuf:"varint,5,opt,name=minReadySeconds"`
	RevisionHistoryLimit    *int32             `json:"revisionHistoryLimit,omitempty" protobuf:"varint,6,opt,name=revisionHistoryLimit"`
	Paused                  bool               `json:"paused,omitempty" protobuf:"varint,7,opt,name=paused"`
	ProgressDeadlineSeconds *int32             `json:"progressDeadlineSeconds,omitempty" protobuf:"varint,9,opt,name=progressDeadlineSeconds"`
}

// DeploymentStrategyType is how a Deployment replaces old pods.
type DeploymentStrategyType string

// The deployment strategies; RollingUpdate is the default.
const (
	// RecreateDeploymentStrategyType kills all old pods before creating new ones.
	RecreateDeploymentStrategyType DeploymentStrategyType = "Recreate"
	// RollingUpdateDeploymentStrategyType replaces pods gradually within maxSurge/maxUnavailable.
	RollingUpdateDeploymentStrategyType DeploymentStrategyType = "RollingUpdate"
)

// DeploymentStrategy is how a Deployment rolls out a new template.
type DeploymentStrategy struct {
	Type          DeploymentStrategyType   `json:"type,omitempty" protobuf:"bytes,1,opt,name=type,casttype=DeploymentStrategyType"`
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// RollingUpdateDeployment bounds a rolling update: at most maxSurge pods
// above, and maxUnavailable pods below, the desired count (numbers or percentages).
type RollingUpdateDeployment struct {
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,1,opt,name=maxUnavailable"`
	MaxSurge       *IntOrString `json:"maxSurge,omitempty" protobuf:"bytes,2,opt,name=maxSurge"`
}

// Annotations the deployment controller maintains.
const (
	// DeploymentRevisionAnnotation numbers a Deployment's ReplicaSets (kubectl rollout history).
	DeploymentRevisionAnnotation = "deployment.kubernetes.io/revision"
	// DeploymentDesiredReplicasAnnotation records the Deployment's replicas on each ReplicaSet.
	DeploymentDesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	// DeploymentMaxReplicasAnnotation records replicas+maxSurge on each ReplicaSet.
	DeploymentMaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"
	// DefaultDeploymentUniqueLabelKey is the label that keeps ReplicaSets' pods apart.
	DefaultDeploymentUniqueLabelKey = "pod-template-hash"
)

// DeploymentStatus is the observed state of a Deployment.
type DeploymentStatus struct {
	ObservedGeneration  int64                 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	Replicas            int32                 `json:"replicas,omitempty" protobuf:"varint,2,opt,name=replicas"`
	UpdatedReplicas     int32                 `json:"updatedReplicas,omitempty" protobuf:"varint,3,opt,name=updatedReplicas"`
	ReadyReplicas       int32                 `json:"readyReplicas,omitempty" protobuf:"varint,7,opt,name=readyReplicas"`
	AvailableReplicas   int32                 `json:"availableReplicas,omitempty" protobuf:"varint,4,opt,name=availableReplicas"`
	UnavailableReplicas int32                 `json:"unavailableReplicas,omitempty" protobuf:"varint,5,opt,name=unavailableReplicas"`
	TerminatingReplicas *int32                `json:"terminatingReplicas,omitempty" protobuf:"varint,9,opt,name=terminatingReplicas"`
	Conditions          []DeploymentCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
	CollisionCount      *int32                `json:"collisionCount,omitempty" protobuf:"varint,8,opt,name=collisionCount"`
}

// DeploymentConditionType names a Deployment condition.
type DeploymentConditionType string

// The Deployment condition types.
const (
	// DeploymentAvailable: at least replicas-maxUnavailable pods are available.
	DeploymentAvailable DeploymentConditionType = "Available"
	// DeploymentProgressing: a rollout is moving, or has finished (reason NewReplicaSetAvailable).
	DeploymentProgressing DeploymentConditionType = "Progressing"
	// DeploymentReplicaFailure: pods could not be created or deleted.
	DeploymentReplicaFailure DeploymentConditionType = "ReplicaFailure"
)

// DeploymentCondition is one condition of a Deployment.
type DeploymentCondition struct {
	Type               DeploymentConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=DeploymentConditionType"`
	Status             ConditionStatus         `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	LastUpdateTime     Time                    `json:"lastUpdateTime,omitempty" protobuf:"bytes,6,opt,name=lastUpdateTime"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty" protobuf:"bytes,7,opt,name=lastTransitionTime"`
	Reason             string                  `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                  `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// ReplicaSet keeps spec.replicas pods matching its selector running. Its
// pods are interchangeable; a Deployment normally manages it.
type ReplicaSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       ReplicaSetSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     ReplicaSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ReplicaSetSpec is the desired replica count, selector and pod template.
type ReplicaSetSpec struct {
	Replicas        *int32          `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	MinReadySeconds int32           `json:"minReadySeconds,omitempty" protobuf:"varint,4,opt,name=minReadySeconds"`
	Selector        *LabelSelector  `json:"selector" protobuf:"bytes,2,opt,name=selector"`
	Template        PodTemplateSpec `json:"template,omitempty" protobuf:"bytes,3,opt,name=template"`
}

// ReplicaSetStatus counts a ReplicaSet's pods.
type ReplicaSetStatus struct {
	Replicas             int32                 `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	FullyLabeledReplicas int32                 `json:"fullyLabeledReplicas,omitempty" protobuf:"varint,2,opt,name=fullyLabeledReplicas"`
	ReadyReplicas        int32                 `json:"readyReplicas,omitempty" protobuf:"varint,4,opt,name=readyReplicas"`
	AvailableReplicas    int32                 `json:"availableReplicas,omitempty" protobuf:"varint,5,opt,name=availableReplicas"`
	TerminatingReplicas  *int32                `json:"terminatingReplicas,omitempty" protobuf:"varint,7,opt,name=terminatingReplicas"`
	ObservedGeneration   int64                 `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	Conditions           []ReplicaSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
}

// ReplicaSetConditionType names a ReplicaSet condition.
type ReplicaSetConditionType string

// ReplicaSetReplicaFailure is set when pods cannot be created or deleted.
const ReplicaSetReplicaFailure ReplicaSetConditionType = "ReplicaFailure"

// ReplicaSetCondition is one condition of a ReplicaSet.
type ReplicaSetCondition struct {
	Type               ReplicaSetConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=ReplicaSetConditionType"`
	Status             ConditionStatus         `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                  `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                  `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// StatefulSet runs pods with stable identities: <name>-0, <name>-1, …, each
// with its own claims from volumeClaimTemplates and a DNS name under the
// governing headless Service. Pods are created, updated and deleted in order.
type StatefulSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       StatefulSetSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     StatefulSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// StatefulSetSpec is the desired state of a StatefulSet.
type StatefulSetSpec struct {
	Replicas                             *int32                                           `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	Selector                             *LabelSelector                                   `json:"selector" protobuf:"bytes,2,opt,name=selector"`
	Template                             PodTemplateSpec                                  `json:"template" protobuf:"bytes,3,opt,name=template"`
	VolumeClaimTemplates                 []PersistentVolumeClaim                          `json:"volumeClaimTemplates,omitempty" protobuf:"bytes,4,rep,name=volumeClaimTemplates"`
	ServiceName                          string                                           `json:"serviceName" protobuf:"bytes,5,opt,name=serviceName"`
	PodManagementPolicy                  PodManagementPolicyType                          `json:"podManagementPolicy,omitempty" protobuf:"bytes,6,opt,name=podManagementPolicy,casttype=PodManagementPolicyType"`
	UpdateStrategy                       StatefulSetUpdateStrategy                        `json:"updateStrategy,omitempty" protobuf:"bytes,7,opt,name=updateStrategy"`
	RevisionHistoryLimit                 *int32                                           `json:"revisionHistoryLimit,omitempty" protobuf:"varint,8,opt,name=revisionHistoryLimit"`
	MinReadySeconds                      int32                                            `json:"minReadySeconds,omitempty" protobuf:"varint,9,opt,name=minReadySeconds"`
	PersistentVolumeClaimRetentionPolicy *StatefulSetPersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty" protobuf:"bytes,10,opt,name=persistentVolumeClaimRetentionPolicy"`
	Ordinals                             *StatefulSetOrdinals                             `json:"ordinals,omitempty" protobuf:"bytes,11,opt,name=ordinals"`
}

// PodManagementPolicyType says whether a StatefulSet waits for each pod.
type PodManagementPolicyType string

// The pod management policies; OrderedReady is the default.
const (
	// OrderedReadyPodManagement creates pods one at a time, each after the previous is Ready.
	OrderedReadyPodManagement PodManagementPolicyType = "OrderedReady"
	// ParallelPodManagement creates and deletes pods without waiting.
	ParallelPodManagement PodManagementPolicyType = "Parallel"
)

// StatefulSetUpdateStrategyType is how a StatefulSet updates its pods.
type StatefulSetUpdateStrategyType string

// The StatefulSet update strategies; RollingUpdate is the default.
const (
	RollingUpdateStatefulSetStrategyType StatefulSetUpdateStrategyType = "RollingUpdate"
	OnDeleteStatefulSetStrategyType      StatefulSetUpdateStrategyType = "OnDelete"
)

// StatefulSetUpdateStrategy is how a StatefulSet rolls out a new template.
type StatefulSetUpdateStrategy struct {
	Type          StatefulSetUpdateStrategyType     `json:"type,omitempty" protobuf:"bytes,1,opt,name=type,casttype=StatefulSetStrategyType"`
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// RollingUpdateStatefulSetStrategy bounds a StatefulSet rolling update: only
// pods with ordinal ≥ partition are updated.
type RollingUpdateStatefulSetStrategy struct {
	Partition      *int32       `json:"partition,omitempty" protobuf:"varint,1,opt,name=partition"`
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,2,opt,name=maxUnavailable"`
}

// PersistentVolumeClaimRetentionPolicyType says whether a StatefulSet's claims survive it.
type PersistentVolumeClaimRetentionPolicyType string

// The claim retention policies; Retain is the default.
const (
	RetainPersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Retain"
	DeletePersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Delete"
)

// StatefulSetPersistentVolumeClaimRetentionPolicy says what happens to claims
// from volumeClaimTemplates when the set is deleted or scaled down.
type StatefulSetPersistentVolumeClaimRetentionPolicy struct {
	WhenDeleted PersistentVolumeClaimRetentionPolicyType `json:"whenDeleted,omitempty" protobuf:"bytes,1,opt,name=whenDeleted,casttype=PersistentVolumeClaimRetentionPolicyType"`
	WhenScaled  PersistentVolumeClaimRetentionPolicyType `json:"whenScaled,omitempty" protobuf:"bytes,2,opt,name=whenScaled,casttype=PersistentVolumeClaimRetentionPolicyType"`
}

// StatefulSetOrdinals sets the first pod ordinal (default 0).
type StatefulSetOrdinals struct {
	Start int32 `json:"start" protobuf:"varint,1,opt,name=start"`
}

// Labels the StatefulSet controller puts on its pods.
const (
	// StatefulSetPodNameLabel holds the pod's own name, so a Service can select one pod.
	StatefulSetPodNameLabel = "statefulset.kubernetes.io/pod-name"
	// PodIndexLabel holds the pod's ordinal.
	PodIndexLabel = "apps.kubernetes.io/pod-index"
	// ControllerRevisionHashLabelKey holds the revision of the template a pod came from.
	ControllerRevisionHashLabelKey = "controller-revision-hash"
)

// StatefulSetStatus is the observed state of a StatefulSet.
type StatefulSetStatus struct {
	ObservedGeneration int64                  `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	Replicas           int32                  `json:"replicas" protobuf:"varint,2,opt,name=replicas"`
	ReadyReplicas      int32                  `json:"readyReplicas,omitempty" protobuf:"varint,3,opt,name=readyReplicas"`
	CurrentReplicas    int32                  `json:"currentReplicas,omitempty" protobuf:"varint,4,opt,name=currentReplicas"`
	UpdatedReplicas    int32                  `json:"updatedReplicas,omitempty" protobuf:"varint,5,opt,name=updatedReplicas"`
	CurrentRevision    string                 `json:"currentRevision,omitempty" protobuf:"bytes,6,opt,name=currentRevision"`
	UpdateRevision     string                 `json:"updateRevision,omitempty" protobuf:"bytes,7,opt,name=updateRevision"`
	CollisionCount     *int32                 `json:"collisionCount,omitempty" protobuf:"varint,9,opt,name=collisionCount"`
	Conditions         []StatefulSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,10,rep,name=conditions"`
	AvailableReplicas  int32                  `json:"availableReplicas" protobuf:"varint,11,opt,name=availableReplicas"`
}

// StatefulSetConditionType names a StatefulSet condition.
type StatefulSetConditionType string

// StatefulSetCondition is one condition of a StatefulSet.
type StatefulSetCondition struct {
	Type               StatefulSetConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=StatefulSetConditionType"`
	Status             ConditionStatus          `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	LastTransitionTime Time                     `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                   `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                   `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// DaemonSet runs one copy of a pod on every (matching) node, e.g. a log
// collector or kube-proxy.
type DaemonSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       DaemonSetSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     DaemonSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// DaemonSetSpec is the desired state of a DaemonSet.
type DaemonSetSpec struct {
	Selector             *LabelSelector          `json:"selector" protobuf:"bytes,1,opt,name=selector"`
	Template             PodTemplateSpec         `json:"template" protobuf:"bytes,2,opt,name=template"`
	UpdateStrategy       DaemonSetUpdateStrategy `json:"updateStrategy,omitempty" protobuf:"bytes,3,opt,name=updateStrategy"`
	MinReadySeconds      int32                   `json:"minReadySeconds,omitempty" protobuf:"varint,4,opt,name=minReadySeconds"`
	RevisionHistoryLimit *int32                  `json:"revisionHistoryLimit,omitempty" protobuf:"varint,6,opt,name=revisionHistoryLimit"`
}

// DaemonSetUpdateStrategyType is how a DaemonSet updates its pods.
type DaemonSetUpdateStrategyType string

// The DaemonSet update strategies; RollingUpdate is the default.
const (
	RollingUpdateDaemonSetStrategyType DaemonSetUpdateStrategyType = "RollingUpdate"
	OnDeleteDaemonSetStrategyType      DaemonSetUpdateStrategyType = "OnDelete"
)

// DaemonSetUpdateStrategy is how a DaemonSet rolls out a new template.
type DaemonSetUpdateStrategy struct {
	Type          DaemonSetUpdateStrategyType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	RollingUpdate *RollingUpdateDaemonSet     `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// RollingUpdateDaemonSet bounds a DaemonSet rolling update.
type RollingUpdateDaemonSet struct {
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,1,opt,name=maxUnavailable"`
	MaxSurge       *IntOrString `json:"maxSurge,omitempty" protobuf:"bytes,2,opt,name=maxSurge"`
}

// DaemonSetStatus counts a DaemonSet's pods across nodes.
type DaemonSetStatus struct {
	CurrentNumberScheduled int32                `json:"currentNumberScheduled" protobuf:"varint,1,opt,name=currentNumberScheduled"`
	NumberMisscheduled     int32                `json:"numberMisscheduled" protobuf:"varint,2,opt,name=numberMisscheduled"`
	DesiredNumberScheduled int32                `json:"desiredNumberScheduled" protobuf:"varint,3,opt,name=desiredNumberScheduled"`
	NumberReady            int32                `json:"numberReady" protobuf:"varint,4,opt,name=numberReady"`
	ObservedGeneration     int64                `json:"observedGeneration,omitempty" protobuf:"varint,5,opt,name=observedGeneration"`
	UpdatedNumberScheduled int32                `json:"updatedNumberScheduled,omitempty" protobuf:"varint,6,opt,name=updatedNumberScheduled"`
	NumberAvailable        int32                `json:"numberAvailable,omitempty" protobuf:"varint,7,opt,name=numberAvailable"`
	NumberUnavailable      int32                `json:"numberUnavailable,omitempty" protobuf:"varint,8,opt,name=numberUnavailable"`
	CollisionCount         *int32               `json:"collisionCount,omitempty" protobuf:"varint,9,opt,name=collisionCount"`
	Conditions             []DaemonSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,10,rep,name=conditions"`
}

// DaemonSetConditionType names a DaemonSet condition.
type DaemonSetConditionType string

// DaemonSetCondition is one condition of a DaemonSet.
type DaemonSetCondition struct {
	Type               DaemonSetConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=DaemonSetConditionType"`
	Status             ConditionStatus        `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	LastTransitionTime Time                   `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                 `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                 `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// ControllerRevision is an immutable snapshot of a StatefulSet's or
// DaemonSet's template (Data, usually a strategic merge patch) numbered by
// Revision, which rollbacks restore.
type ControllerRevision struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Data       json.RawMessage `json:"data,omitempty" protobuf:"bytes,2,opt,name=data"`
	Revision   int64           `json:"revision" protobuf:"varint,3,opt,name=revision"`
}
