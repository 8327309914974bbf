package api

// This file holds ComponentStatus, the apiserver's answer to "are the
// scheduler, the controller-manager and etcd healthy?" (`kubectl get cs`).

// ComponentStatus is the health of one control-plane component as the
// apiserver found it just now: it is never stored, each read probes the
// component again. Upstream deprecated it in v1.19 (it only ever probed
// fixed ports on the apiserver's own host) and still serves it.
type ComponentStatus struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Conditions holds one condition, Healthy.
	Conditions []ComponentCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,2,rep,name=conditions"`
}

// ComponentConditionType names a component condition; Healthy is the only one.
type ComponentConditionType string

// ComponentHealthy says whether the component's health check passed.
const ComponentHealthy ComponentConditionType = "Healthy"

// ComponentCondition is the outcome of one probe of a component.
type ComponentCondition struct {
	// Type is Healthy, the only component condition.
	Type ComponentConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=ComponentConditionType"`
	// Status is True when the check passed, False when it failed and
	// Unknown when it could not be made.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	// Message is what the component answered ("ok"), or why the probe
	// failed.
	Message string `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	// Error is the error of a check that could not be made.
	Error string `json:"error,omitempty" protobuf:"bytes,4,opt,name=error"`
}
