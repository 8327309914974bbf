package api

// This file holds the autoscaling resources: HorizontalPodAutoscaler in its
// autoscaling/v2 shape, and Scale (autoscaling/v1), the body of the scale
// subresource through which the HPA and `kubectl scale` change replicas.

// HorizontalPodAutoscaler scales a workload's replicas between minReplicas
// and maxReplicas so that observed metrics (e.g. average CPU utilisation)
// approach their targets.
type HorizontalPodAutoscaler struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       HorizontalPodAutoscalerSpec   `json:"spec,omitempty"`
	Status     HorizontalPodAutoscalerStatus `json:"status,omitempty"`
}

// HorizontalPodAutoscalerSpec is the target, bounds, metrics and behaviour of an HPA.
type HorizontalPodAutoscalerSpec struct {
	ScaleTargetRef CrossVersionObjectReference      `json:"scaleTargetRef"`
	MinReplicas    *int32                           `json:"minReplicas,omitempty"`
	MaxReplicas    int32                            `json:"maxReplicas"`
	Metrics        []MetricSpec                     `json:"metrics,omitempty"`
	Behavior       *HorizontalPodAutoscalerBehavior `json:"behavior,omitempty"`
}

// CrossVersionObjectReference names the object an HPA scales, e.g. apps/v1 Deployment web.
type CrossVersionObjectReference struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// MetricSourceType names a kind of metric.
type MetricSourceType string

// The metric source types.
const (
	ObjectMetricSourceType            MetricSourceType = "Object"
	PodsMetricSourceType              MetricSourceType = "Pods"
	ResourceMetricSourceType          MetricSourceType = "Resource"
	ContainerResourceMetricSourceType MetricSourceType = "ContainerResource"
	ExternalMetricSourceType          MetricSourceType = "External"
)

// MetricSpec is one metric an HPA scales on; the member named by Type is set.
type MetricSpec struct {
	Type              MetricSourceType               `json:"type"`
	Object            *ObjectMetricSource            `json:"object,omitempty"`
	Pods              *PodsMetricSource              `json:"pods,omitempty"`
	Resource          *ResourceMetricSource          `json:"resource,omitempty"`
	ContainerResource *ContainerResourceMetricSource `json:"containerResource,omitempty"`
	External          *ExternalMetricSource          `json:"external,omitempty"`
}

// ObjectMetricSource is a metric describing one object, e.g. an Ingress's request rate.
type ObjectMetricSource struct {
	DescribedObject CrossVersionObjectReference `json:"describedObject"`
	Target          MetricTarget                `json:"target"`
	Metric          MetricIdentifier            `json:"metric"`
}

// PodsMetricSource is a custom metric averaged over the target's pods.
type PodsMetricSource struct {
	Metric MetricIdentifier `json:"metric"`
	Target MetricTarget     `json:"target"`
}

// ResourceMetricSource is a resource (cpu, memory) averaged over the target's pods.
type ResourceMetricSource struct {
	Name   ResourceName `json:"name"`
	Target MetricTarget `json:"target"`
}

// ContainerResourceMetricSource is a resource of one container averaged over the pods.
type ContainerResourceMetricSource struct {
	Name      ResourceName `json:"name"`
	Target    MetricTarget `json:"target"`
	Container string       `json:"container"`
}

// ExternalMetricSource is a metric from outside the cluster.
type ExternalMetricSource struct {
	Metric MetricIdentifier `json:"metric"`
	Target MetricTarget     `json:"target"`
}

// MetricIdentifier names a metric and optionally narrows it by labels.
type MetricIdentifier struct {
	Name     string         `json:"name"`
	Selector *LabelSelector `json:"selector,omitempty"`
}

// MetricTargetType says which member of a MetricTarget is the target.
type MetricTargetType string

// The metric target types.
const (
	UtilizationMetricType  MetricTargetType = "Utilization"
	ValueMetricType        MetricTargetType = "Value"
	AverageValueMetricType MetricTargetType = "AverageValue"
)

// MetricTarget is the desired value of a metric.
type MetricTarget struct {
	Type               MetricTargetType `json:"type"`
	Value              *Quantity        `json:"value,omitempty"`
	AverageValue       *Quantity        `json:"averageValue,omitempty"`
	AverageUtilization *int32           `json:"averageUtilization,omitempty"`
}

// HorizontalPodAutoscalerBehavior tunes how fast an HPA scales up and down.
type HorizontalPodAutoscalerBehavior struct {
	ScaleUp   *HPAScalingRules `json:"scaleUp,omitempty"`
	ScaleDown *HPAScalingRules `json:"scaleDown,omitempty"`
}

// ScalingPolicySelect picks among several scaling policies.
type ScalingPolicySelect string

// The policy selections.
const (
	MaxChangePolicySelect ScalingPolicySelect = "Max"
	MinChangePolicySelect ScalingPolicySelect = "Min"
	DisabledPolicySelect  ScalingPolicySelect = "Disabled"
)

// HPAScalingRules limit scaling in one direction: a stabilisation window
// and rate policies.
type HPAScalingRules struct {
	StabilizationWindowSeconds *int32               `json:"stabilizationWindowSeconds,omitempty"`
	SelectPolicy               *ScalingPolicySelect `json:"selectPolicy,omitempty"`
	Policies                   []HPAScalingPolicy   `json:"policies,omitempty"`
	Tolerance                  *Quantity            `json:"tolerance,omitempty"`
}

// HPAScalingPolicyType is the unit of a scaling policy's value.
type HPAScalingPolicyType string

// The scaling policy types.
const (
	PodsScalingPolicy    HPAScalingPolicyType = "Pods"
	PercentScalingPolicy HPAScalingPolicyType = "Percent"
)

// HPAScalingPolicy allows a change of at most Value pods (or percent) per PeriodSeconds.
type HPAScalingPolicy struct {
	Type          HPAScalingPolicyType `json:"type"`
	Value         int32                `json:"value"`
	PeriodSeconds int32                `json:"periodSeconds"`
}

// HorizontalPodAutoscalerStatus is the observed state of an HPA.
type HorizontalPodAutoscalerStatus struct {
	ObservedGeneration *int64                             `json:"observedGeneration,omitempty"`
	LastScaleTime      *Time                              `json:"lastScaleTime,omitempty"`
	CurrentReplicas    int32                              `json:"currentReplicas,omitempty"`
	DesiredReplicas    int32                              `json:"desiredReplicas"`
	CurrentMetrics     []MetricStatus                     `json:"currentMetrics"`
	Conditions         []HorizontalPodAutoscalerCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// MetricStatus is the last observed value of one metric.
type MetricStatus struct {
	Type              MetricSourceType               `json:"type"`
	Object            *ObjectMetricStatus            `json:"object,omitempty"`
	Pods              *PodsMetricStatus              `json:"pods,omitempty"`
	Resource          *ResourceMetricStatus          `json:"resource,omitempty"`
	ContainerResource *ContainerResourceMetricStatus `json:"containerResource,omitempty"`
	External          *ExternalMetricStatus          `json:"external,omitempty"`
}

// ObjectMetricStatus is the current value of an object metric.
type ObjectMetricStatus struct {
	Metric          MetricIdentifier            `json:"metric"`
	Current         MetricValueStatus           `json:"current"`
	DescribedObject CrossVersionObjectReference `json:"describedObject"`
}

// PodsMetricStatus is the current value of a pods metric.
type PodsMetricStatus struct {
	Metric  MetricIdentifier  `json:"metric"`
	Current MetricValueStatus `json:"current"`
}

// ResourceMetricStatus is the current value of a resource metric.
type ResourceMetricStatus struct {
	Name    ResourceName      `json:"name"`
	Current MetricValueStatus `json:"current"`
}

// ContainerResourceMetricStatus is the current value of a container resource metric.
type ContainerResourceMetricStatus struct {
	Name      ResourceName      `json:"name"`
	Current   MetricValueStatus `json:"current"`
	Container string            `json:"container"`
}

// ExternalMetricStatus is the current value of an external metric.
type ExternalMetricStatus struct {
	Metric  MetricIdentifier  `json:"metric"`
	Current MetricValueStatus `json:"current"`
}

// MetricValueStatus is a metric's current value in the form its target uses.
type MetricValueStatus struct {
	Value              *Quantity `json:"value,omitempty"`
	AverageValue       *Quantity `json:"averageValue,omitempty"`
	AverageUtilization *int32    `json:"averageUtilization,omitempty"`
}

// HorizontalPodAutoscalerConditionType names an HPA condition.
type HorizontalPodAutoscalerConditionType string

// The HPA condition types.
const (
	// ScalingActive: the HPA can compute a desired scale from its metrics.
	ScalingActive HorizontalPodAutoscalerConditionType = "ScalingActive"
	// AbleToScale: the HPA can read and update the target's scale.
	AbleToScale HorizontalPodAutoscalerConditionType = "AbleToScale"
	// ScalingLimited: the desired count was clamped by min/max or a policy.
	ScalingLimited HorizontalPodAutoscalerConditionType = "ScalingLimited"
)

// HorizontalPodAutoscalerCondition is one condition of an HPA.
type HorizontalPodAutoscalerCondition struct {
	Type               HorizontalPodAutoscalerConditionType `json:"type"`
	Status             ConditionStatus                      `json:"status"`
	LastTransitionTime Time                                 `json:"lastTransitionTime,omitempty"`
	Reason             string                               `json:"reason,omitempty"`
	Message            string                               `json:"message,omitempty"`
}

// Scale is the autoscaling/v1 body of a workload's scale subresource: the
// desired replicas, and the observed replicas and pod selector.
type Scale struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       ScaleSpec   `json:"spec,omitempty"`
	Status     ScaleStatus `json:"status,omitempty"`
}

// ScaleSpec is the desired replica count.
type ScaleSpec struct {
	Replicas int32 `json:"replicas,omitempty"`
}

// ScaleStatus is the observed replica count and the workload's selector in
// label-query form (e.g. "app=web").
type ScaleStatus struct {
	Replicas int32  `json:"replicas"`
	Selector string `json:"selector,omitempty"`
}
