package api

// This file holds ReplicationController, the original replica controller
// that ReplicaSet superseded; it selects pods by equality on labels only.

// ReplicationController keeps spec.replicas pods matching its selector running.
type ReplicationController struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       ReplicationControllerSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     ReplicationControllerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ReplicationControllerSpec is the desired replica count, selector and pod template.
type ReplicationControllerSpec struct {
	Replicas        *int32            `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	MinReadySeconds int32             `json:"minReadySeconds,omitempty" protobuf:"varint,4,opt,name=minReadySeconds"`
	Selector        map[string]string `json:"selector,omitempty" protobuf:"bytes,2,rep,name=selector" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	Template        *PodTemplateSpec  `json:"template,omitempty" protobuf:"bytes,3,opt,name=template"`
}

// ReplicationControllerConditionType names a replication controller condition.
type ReplicationControllerConditionType string

// ReplicationControllerReplicaFailure is set when pods cannot be created or deleted.
const ReplicationControllerReplicaFailure ReplicationControllerConditionType = "ReplicaFailure"

// ReplicationControllerStatus counts the controller's pods.
type ReplicationControllerStatus struct {
	Replicas             int32                            `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	FullyLabeledReplicas int32                            `json:"fullyLabeledReplicas,omitempty" protobuf:"varint,2,opt,name=fullyLabeledReplicas"`
	ReadyReplicas        int32                            `json:"readyReplicas,omitempty" protobuf:"varint,4,opt,name=readyReplicas"`
	AvailableReplicas    int32                            `json:"availableReplicas,omitempty" protobuf:"varint,5,opt,name=availableReplicas"`
	ObservedGeneration   int64                            `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	Conditions           []ReplicationControllerCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
}

// ReplicationControllerCondition is one condition of a replication controller.
type ReplicationControllerCondition struct {
	Type               ReplicationControllerConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=ReplicationControllerConditionType"`
	Status             ConditionStatus                    `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	LastTransitionTime Time                               `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                             `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                             `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}
