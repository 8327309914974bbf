package api

// This file holds the policy/v1 PodDisruptionBudget: how many of an
// application's pods may be down at once for voluntary disruptions (a node
// drain, an eviction). The disruption controller (pkg/controllers/disruption)
// keeps its status; the apiserver's pods/eviction subresource obeys it
// (pkg/apiserver/eviction.go); the helpers both share are in
// pkg/api/poddisruptionbudget.

// PodDisruptionBudget limits how many of the pods it selects voluntary
// disruptions may take down at the same time.
type PodDisruptionBudget struct {
	// The kind (PodDisruptionBudget) and apiVersion (policy/v1).
	TypeMeta `json:",inline"`
	// Standard object metadata.
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The pods and how many of them must stay up (or may go down).
	Spec PodDisruptionBudgetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// How many disruptions are allowed right now, as the disruption
	// controller last computed.
	Status PodDisruptionBudgetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PodDisruptionBudgetSpec sets either minAvailable or maxUnavailable, never both.
type PodDisruptionBudgetSpec struct {
	// How many selected pods must still be available after an eviction:
	// a number or a percentage ("50%").
	MinAvailable *IntOrString `json:"minAvailable,omitempty" protobuf:"bytes,1,opt,name=minAvailable"`
	// The pods the budget covers. An empty selector selects every pod of
	// the namespace; a null one selects none.
	Selector *LabelSelector `json:"selector,omitempty" patchStrategy:"replace" protobuf:"bytes,2,opt,name=selector"`
	// How many selected pods may be unavailable after an eviction: a
	// number or a percentage.
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,3,opt,name=maxUnavailable"`
	// Whether running but not ready pods may be evicted: IfHealthyBudget
	// (only while the budget is met; the behaviour when unset) or
	// AlwaysAllow.
	UnhealthyPodEvictionPolicy *UnhealthyPodEvictionPolicyType `json:"unhealthyPodEvictionPolicy,omitempty" protobuf:"bytes,4,opt,name=unhealthyPodEvictionPolicy"`
}

// UnhealthyPodEvictionPolicyType says when unhealthy pods may be evicted.
type UnhealthyPodEvictionPolicyType string

// The unhealthy pod eviction policies.
const (
	IfHealthyBudget UnhealthyPodEvictionPolicyType = "IfHealthyBudget"
	AlwaysAllow     UnhealthyPodEvictionPolicyType = "AlwaysAllow"
)

// PodDisruptionBudgetStatus is the observed state of a budget.
type PodDisruptionBudgetStatus struct {
	// The generation of the budget this status was computed for.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// Pods being evicted that the controller has not yet seen go, by name,
	// with the time the eviction was granted.
	DisruptedPods map[string]Time `json:"disruptedPods,omitempty" protobuf:"bytes,2,rep,name=disruptedPods"`
	// How many pod disruptions are allowed now.
	DisruptionsAllowed int32 `json:"disruptionsAllowed" protobuf:"varint,3,opt,name=disruptionsAllowed"`
	// How many selected pods are healthy now.
	CurrentHealthy int32 `json:"currentHealthy" protobuf:"varint,4,opt,name=currentHealthy"`
	// How many selected pods should be healthy at least.
	DesiredHealthy int32 `json:"desiredHealthy" protobuf:"varint,5,opt,name=desiredHealthy"`
	// How many pods the budget counts.
	ExpectedPods int32 `json:"expectedPods" protobuf:"varint,6,opt,name=expectedPods"`
	// The budget's conditions; DisruptionAllowed says whether evictions
	// may go ahead.
	Conditions []Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,7,rep,name=conditions"`
}

// The DisruptionAllowed condition of a budget and its reasons (upstream's
// policy/v1 constants).
const (
	// DisruptionAllowedCondition is True while the budget allows at least
	// one more disruption.
	DisruptionAllowedCondition = "DisruptionAllowed"
	// SufficientPodsReason: enough pods are healthy for a disruption.
	SufficientPodsReason = "SufficientPods"
	// InsufficientPodsReason: a disruption now would break the budget.
	InsufficientPodsReason = "InsufficientPods"
	// SyncFailedReason: the disruption controller could not compute the
	// status (a pod without a known controller under a percentage, say)
	// and set disruptionsAllowed to 0 to be safe.
	SyncFailedReason = "SyncFailed"
)

// DisruptionBudgetCause is the StatusCause type of an eviction refused
// because of a budget: its message names the budget and its numbers.
const DisruptionBudgetCause = "DisruptionBudget"
