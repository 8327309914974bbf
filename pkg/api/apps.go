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
	ObjectMeta `json:"metadata,omitempty"`
	Spec       DeploymentSpec   `json:"spec,omitempty"`
	Status     DeploymentStatus `json:"status,omitempty"`
}

// DeploymentSpec is the desired state of a Deployment.
type DeploymentSpec struct {
	Replicas                *int32             `json:"replicas,omitempty"`
	Selector                *LabelSelector     `json:"selector"`
	Template                PodTemplateSpec    `json:"template"`
	Strategy                DeploymentStrategy `json:"strategy,omitempty" patchStrategy:"retainKeys"`
	MinReadySeconds         int32              `json:"minReadySeconds,omitempty"`
	RevisionHistoryLimit    *int32             `json:"revisionHistoryLimit,omitempty"`
	Paused                  bool               `json:"paused,omitempty"`
	ProgressDeadlineSeconds *int32             `json:"progressDeadlineSeconds,omitempty"`
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
	Type          DeploymentStrategyType   `json:"type,omitempty"`
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDeployment bounds a rolling update: at most maxSurge pods
// above, and maxUnavailable pods below, the desired count (numbers or percentages).
type RollingUpdateDeployment struct {
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
	MaxSurge       *IntOrString `json:"maxSurge,omitempty"`
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
	ObservedGeneration  int64                 `json:"observedGeneration,omitempty"`
	Replicas            int32                 `json:"replicas,omitempty"`
	UpdatedReplicas     int32                 `json:"updatedReplicas,omitempty"`
	ReadyReplicas       int32                 `json:"readyReplicas,omitempty"`
	AvailableReplicas   int32                 `json:"availableReplicas,omitempty"`
	UnavailableReplicas int32                 `json:"unavailableReplicas,omitempty"`
	TerminatingReplicas *int32                `json:"terminatingReplicas,omitempty"`
	Conditions          []DeploymentCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	CollisionCount      *int32                `json:"collisionCount,omitempty"`
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
	Type               DeploymentConditionType `json:"type"`
	Status             ConditionStatus         `json:"status"`
	LastUpdateTime     Time                    `json:"lastUpdateTime,omitempty"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
}

// ReplicaSet keeps spec.replicas pods matching its selector running. Its
// pods are interchangeable; a Deployment normally manages it.
type ReplicaSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       ReplicaSetSpec   `json:"spec,omitempty"`
	Status     ReplicaSetStatus `json:"status,omitempty"`
}

// ReplicaSetSpec is the desired replica count, selector and pod template.
type ReplicaSetSpec struct {
	Replicas        *int32          `json:"replicas,omitempty"`
	MinReadySeconds int32           `json:"minReadySeconds,omitempty"`
	Selector        *LabelSelector  `json:"selector"`
	Template        PodTemplateSpec `json:"template,omitempty"`
}

// ReplicaSetStatus counts a ReplicaSet's pods.
type ReplicaSetStatus struct {
	Replicas             int32                 `json:"replicas"`
	FullyLabeledReplicas int32                 `json:"fullyLabeledReplicas,omitempty"`
	ReadyReplicas        int32                 `json:"readyReplicas,omitempty"`
	AvailableReplicas    int32                 `json:"availableReplicas,omitempty"`
	TerminatingReplicas  *int32                `json:"terminatingReplicas,omitempty"`
	ObservedGeneration   int64                 `json:"observedGeneration,omitempty"`
	Conditions           []ReplicaSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// ReplicaSetConditionType names a ReplicaSet condition.
type ReplicaSetConditionType string

// ReplicaSetReplicaFailure is set when pods cannot be created or deleted.
const ReplicaSetReplicaFailure ReplicaSetConditionType = "ReplicaFailure"

// ReplicaSetCondition is one condition of a ReplicaSet.
type ReplicaSetCondition struct {
	Type               ReplicaSetConditionType `json:"type"`
	Status             ConditionStatus         `json:"status"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
}

// StatefulSet runs pods with stable identities: <name>-0, <name>-1, …, each
// with its own claims from volumeClaimTemplates and a DNS name under the
// governing headless Service. Pods are created, updated and deleted in order.
type StatefulSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       StatefulSetSpec   `json:"spec,omitempty"`
	Status     StatefulSetStatus `json:"status,omitempty"`
}

// StatefulSetSpec is the desired state of a StatefulSet.
type StatefulSetSpec struct {
	Replicas                             *int32                                           `json:"replicas,omitempty"`
	Selector                             *LabelSelector                                   `json:"selector"`
	Template                             PodTemplateSpec                                  `json:"template"`
	VolumeClaimTemplates                 []PersistentVolumeClaim                          `json:"volumeClaimTemplates,omitempty"`
	ServiceName                          string                                           `json:"serviceName"`
	PodManagementPolicy                  PodManagementPolicyType                          `json:"podManagementPolicy,omitempty"`
	UpdateStrategy                       StatefulSetUpdateStrategy                        `json:"updateStrategy,omitempty"`
	RevisionHistoryLimit                 *int32                                           `json:"revisionHistoryLimit,omitempty"`
	MinReadySeconds                      int32                                            `json:"minReadySeconds,omitempty"`
	PersistentVolumeClaimRetentionPolicy *StatefulSetPersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty"`
	Ordinals                             *StatefulSetOrdinals                             `json:"ordinals,omitempty"`
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
	Type          StatefulSetUpdateStrategyType     `json:"type,omitempty"`
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty"`
}

// RollingUpdateStatefulSetStrategy bounds a StatefulSet rolling update: only
// pods with ordinal ≥ partition are updated.
type RollingUpdateStatefulSetStrategy struct {
	Partition      *int32       `json:"partition,omitempty"`
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
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
	WhenDeleted PersistentVolumeClaimRetentionPolicyType `json:"whenDeleted,omitempty"`
	WhenScaled  PersistentVolumeClaimRetentionPolicyType `json:"whenScaled,omitempty"`
}

// StatefulSetOrdinals sets the first pod ordinal (default 0).
type StatefulSetOrdinals struct {
	Start int32 `json:"start"`
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
	ObservedGeneration int64                  `json:"observedGeneration,omitempty"`
	Replicas           int32                  `json:"replicas"`
	ReadyReplicas      int32                  `json:"readyReplicas,omitempty"`
	CurrentReplicas    int32                  `json:"currentReplicas,omitempty"`
	UpdatedReplicas    int32                  `json:"updatedReplicas,omitempty"`
	CurrentRevision    string                 `json:"currentRevision,omitempty"`
	UpdateRevision     string                 `json:"updateRevision,omitempty"`
	CollisionCount     *int32                 `json:"collisionCount,omitempty"`
	Conditions         []StatefulSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	AvailableReplicas  int32                  `json:"availableReplicas"`
}

// StatefulSetConditionType names a StatefulSet condition.
type StatefulSetConditionType string

// StatefulSetCondition is one condition of a StatefulSet.
type StatefulSetCondition struct {
	Type               StatefulSetConditionType `json:"type"`
	Status             ConditionStatus          `json:"status"`
	LastTransitionTime Time                     `json:"lastTransitionTime,omitempty"`
	Reason             string                   `json:"reason,omitempty"`
	Message            string                   `json:"message,omitempty"`
}

// DaemonSet runs one copy of a pod on every (matching) node, e.g. a log
// collector or kube-proxy.
type DaemonSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       DaemonSetSpec   `json:"spec,omitempty"`
	Status     DaemonSetStatus `json:"status,omitempty"`
}

// DaemonSetSpec is the desired state of a DaemonSet.
type DaemonSetSpec struct {
	Selector             *LabelSelector          `json:"selector"`
	Template             PodTemplateSpec         `json:"template"`
	UpdateStrategy       DaemonSetUpdateStrategy `json:"updateStrategy,omitempty"`
	MinReadySeconds      int32                   `json:"minReadySeconds,omitempty"`
	RevisionHistoryLimit *int32                  `json:"revisionHistoryLimit,omitempty"`
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
	Type          DaemonSetUpdateStrategyType `json:"type,omitempty"`
	RollingUpdate *RollingUpdateDaemonSet     `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDaemonSet bounds a DaemonSet rolling update.
type RollingUpdateDaemonSet struct {
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
	MaxSurge       *IntOrString `json:"maxSurge,omitempty"`
}

// DaemonSetStatus counts a DaemonSet's pods across nodes.
type DaemonSetStatus struct {
	CurrentNumberScheduled int32                `json:"currentNumberScheduled"`
	NumberMisscheduled     int32                `json:"numberMisscheduled"`
	DesiredNumberScheduled int32                `json:"desiredNumberScheduled"`
	NumberReady            int32                `json:"numberReady"`
	ObservedGeneration     int64                `json:"observedGeneration,omitempty"`
	UpdatedNumberScheduled int32                `json:"updatedNumberScheduled,omitempty"`
	NumberAvailable        int32                `json:"numberAvailable,omitempty"`
	NumberUnavailable      int32                `json:"numberUnavailable,omitempty"`
	CollisionCount         *int32               `json:"collisionCount,omitempty"`
	Conditions             []DaemonSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// DaemonSetConditionType names a DaemonSet condition.
type DaemonSetConditionType string

// DaemonSetCondition is one condition of a DaemonSet.
type DaemonSetCondition struct {
	Type               DaemonSetConditionType `json:"type"`
	Status             ConditionStatus        `json:"status"`
	LastTransitionTime Time                   `json:"lastTransitionTime,omitempty"`
	Reason             string                 `json:"reason,omitempty"`
	Message            string                 `json:"message,omitempty"`
}

// ControllerRevision is an immutable snapshot of a StatefulSet's or
// DaemonSet's template (Data, usually a strategic merge patch) numbered by
// Revision, which rollbacks restore.
type ControllerRevision struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
	Revision   int64           `json:"revision"`
}
