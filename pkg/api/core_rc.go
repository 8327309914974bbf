package api

// This file holds ReplicationController, the original replica controller
// that ReplicaSet superseded; it selects pods by equality on labels only.

// ReplicationController keeps spec.replicas pods matching its selector running.
type ReplicationController struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       ReplicationControllerSpec   `json:"spec,omitempty"`
	Status     ReplicationControllerStatus `json:"status,omitempty"`
}

// ReplicationControllerSpec is the desired replica count, selector and pod template.
type ReplicationControllerSpec struct {
	Replicas        *int32            `json:"replicas,omitempty"`
	MinReadySeconds int32             `json:"minReadySeconds,omitempty"`
	Selector        map[string]string `json:"selector,omitempty"`
	Template        *PodTemplateSpec  `json:"template,omitempty"`
}

// ReplicationControllerConditionType names a replication controller condition.
type ReplicationControllerConditionType string

// ReplicationControllerReplicaFailure is set when pods cannot be created or deleted.
const ReplicationControllerReplicaFailure ReplicationControllerConditionType = "ReplicaFailure"

// ReplicationControllerStatus counts the controller's pods.
type ReplicationControllerStatus struct {
	Replicas             int32                            `json:"replicas"`
	FullyLabeledReplicas int32                            `json:"fullyLabeledReplicas,omitempty"`
	ReadyReplicas        int32                            `json:"readyReplicas,omitempty"`
	AvailableReplicas    int32                            `json:"availableReplicas,omitempty"`
	ObservedGeneration   int64                            `json:"observedGeneration,omitempty"`
	Conditions           []ReplicationControllerCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// ReplicationControllerCondition is one condition of a replication controller.
type ReplicationControllerCondition struct {
	Type               ReplicationControllerConditionType `json:"type"`
	Status             ConditionStatus                    `json:"status"`
	LastTransitionTime Time                               `json:"lastTransitionTime,omitempty"`
	Reason             string                             `json:"reason,omitempty"`
	Message            string                             `json:"message,omitempty"`
}
