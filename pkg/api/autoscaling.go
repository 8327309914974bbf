package api

// This file holds the autoscaling resources: HorizontalPodAutoscaler in its
// autoscaling/v2 shape, and Scale (autoscaling/v1), the body of the scale
// subresource through which the HPA and `kubectl scale` change replicas.

// HorizontalPodAutoscaler scales a workload's replicas between minReplicas
// and maxReplicas so that observed metrics (e.g. average CPU utilisation)
// approach their targets.
type HorizontalPodAutoscaler struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       HorizontalPodAutoscalerSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     HorizontalPodAutoscalerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// HorizontalPodAutoscalerSpec is the target, bounds, metrics and behaviour of an HPA.
type HorizontalPodAutoscalerSpec struct {
	ScaleTargetRef CrossVersionObjectReference      `json:"scaleTargetRef" protobuf:"bytes,1,opt,name=scaleTargetRef"`
	MinReplicas    *int32                           `json:"minReplicas,omitempty" protobuf:"varint,2,opt,name=minReplicas"`
	MaxReplicas    int32                            `json:"maxReplicas" protobuf:"varint,3,opt,name=maxReplicas"`
	Metrics        []MetricSpec                     `json:"metrics,omitempty" protobuf:"bytes,4,rep,name=metrics"`
	Behavior       *HorizontalPodAutoscalerBehavior `json:"behavior,omitempty" protobuf:"bytes,5,opt,name=behavior"`
}

// CrossVersionObjectReference names the object an HPA scales, e.g. apps/v1 Deployment web.
type CrossVersionObjectReference struct {
	Kind       string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	Name       string `json:"name" protobuf:"bytes,2,opt,name=name"`
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
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
	Type              MetricSourceType               `json:"type" protobuf:"bytes,1,name=type"`
	Object            *ObjectMetricSource            `json:"object,omitempty" protobuf:"bytes,2,opt,name=object"`
	Pods              *PodsMetricSource              `json:"pods,omitempty" protobuf:"bytes,3,opt,name=pods"`
	Resource          *ResourceMetricSource          `json:"resource,omitempty" protobuf:"bytes,4,opt,name=resource"`
	ContainerResource *ContainerResourceMetricSource `json:"containerResource,omitempty" protobuf:"bytes,7,opt,name=containerResource"`
	External          *ExternalMetricSource          `json:"external,omitempty" protobuf:"bytes,5,opt,name=external"`
}

// ObjectMetricSource is a metric describing one object, e.g. an Ingress's request rate.
type ObjectMetricSource struct {
	DescribedObject CrossVersionObjectReference `json:"describedObject" protobuf:"bytes,1,name=describedObject"`
	Target          MetricTarget                `json:"target" protobuf:"bytes,2,name=target"`
	Metric          MetricIdentifier            `json:"metric" protobuf:"bytes,3,name=metric"`
}

// PodsMetricSource is a custom metric averaged over the target's pods.
type PodsMetricSource struct {
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`
	Target MetricTarget     `json:"target" protobuf:"bytes,2,name=target"`
}

// ResourceMetricSource is a resource (cpu, memory) averaged over the target's pods.
type ResourceMetricSource struct {
	Name   ResourceName `json:"name" protobuf:"bytes,1,name=name"`
	Target MetricTarget `json:"target" protobuf:"bytes,2,name=target"`
}

// ContainerResourceMetricSource is a resource of one container averaged over the pods.
type ContainerResourceMetricSource struct {
	Name      ResourceName `json:"name" protobuf:"bytes,1,name=name"`
	Target    MetricTarget `json:"target" protobuf:"bytes,2,name=target"`
	Container string       `json:"container" protobuf:"bytes,3,opt,name=container"`
}

// ExternalMetricSource is a metric from outside the cluster.
type ExternalMetricSource struct {
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`
	Target MetricTarget     `json:"target" protobuf:"bytes,2,name=target"`
}

// MetricIdentifier names a metric and optionally narrows it by labels.
type MetricIdentifier struct {
	Name     string         `json:"name" protobuf:"bytes,1,name=name"`
	Selector *LabelSelector `json:"selector,omitempty" protobuf:"bytes,2,name=selector"`
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
	Type               MetricTargetType `json:"type" protobuf:"bytes,1,name=type"`
	Value              *Quantity        `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	AverageValue       *Quantity        `json:"averageValue,omitempty" protobuf:"bytes,3,opt,name=averageValue"`
	AverageUtilization *int32           `json:"averageUtilization,omitempty" protobuf:"varint,4,opt,name=averageUtilization"`
}

// HorizontalPodAutoscalerBehavior tunes how fast an HPA scales up and down.
type HorizontalPodAutoscalerBehavior struct {
	ScaleUp   *HPAScalingRules `json:"scaleUp,omitempty" protobuf:"bytes,1,opt,name=scaleUp"`
	ScaleDown *HPAScalingRules `json:"scaleDown,omitempty" protobuf:"bytes,2,opt,name=scaleDown"`
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
	StabilizationWindowSeconds *int32               `json:"stabilizationWindowSeconds,omitempty" protobuf:"varint,3,opt,name=stabilizationWindowSeconds"`
	SelectPolicy               *ScalingPolicySelect `json:"selectPolicy,omitempty" protobuf:"bytes,1,opt,name=selectPolicy"`
	Policies                   []HPAScalingPolicy   `json:"policies,omitempty" protobuf:"bytes,2,rep,name=policies"`
	Tolerance                  *Quantity            `json:"tolerance,omitempty" protobuf:"bytes,4,opt,name=tolerance"`
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
	Type          HPAScalingPolicyType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=HPAScalingPolicyType"`
	Value         int32                `json:"value" protobuf:"varint,2,opt,name=value"`
	PeriodSeconds int32                `json:"periodSeconds" protobuf:"varint,3,opt,name=periodSeconds"`
}

// HorizontalPodAutoscalerStatus is the observed state of an HPA.
type HorizontalPodAutoscalerStatus struct {
	ObservedGeneration *int64                             `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	LastScaleTime      *Time                              `json:"lastScaleTime,omitempty" protobuf:"bytes,2,opt,name=lastScaleTime"`
	CurrentReplicas    int32                              `json:"currentReplicas,omitempty" protobuf:"varint,3,opt,name=currentReplicas"`
	DesiredReplicas    int32                              `json:"desiredReplicas" protobuf:"varint,4,opt,name=desiredReplicas"`
	CurrentMetrics     []MetricStatus                     `json:"currentMetrics" protobuf:"bytes,5,rep,name=currentMetrics"`
	Conditions         []HorizontalPodAutoscalerCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
}

// MetricStatus is the last observed value of one metric.
type MetricStatus struct {
	Type              MetricSourceType               `json:"type" protobuf:"bytes,1,name=type"`
	Object            *ObjectMetricStatus            `json:"object,omitempty" protobuf:"bytes,2,opt,name=object"`
	Pods              *PodsMetricStatus              `json:"pods,omitempty" protobuf:"bytes,3,opt,name=pods"`
	Resource          *ResourceMetricStatus          `json:"resource,omitempty" protobuf:"bytes,4,opt,name=resource"`
	ContainerResource *ContainerResourceMetricStatus `json:"containerResource,omitempty" protobuf:"bytes,7,opt,name=containerResource"`
	External          *ExternalMetricStatus          `json:"external,omitempty" protobuf:"bytes,5,opt,name=external"`
}

// ObjectMetricStatus is the current value of an object metric.
type ObjectMetricStatus struct {
	Metric          MetricIdentifier            `json:"metric" protobuf:"bytes,1,name=metric"`
	Current         MetricValueStatus           `json:"current" protobuf:"bytes,2,name=current"`
	DescribedObject CrossVersionObjectReference `json:"describedObject" protobuf:"bytes,3,name=describedObject"`
}

// PodsMetricStatus is the current value of a pods metric.
type PodsMetricStatus struct {
	Metric  MetricIdentifier  `json:"metric" protobuf:"bytes,1,name=metric"`
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
}

// ResourceMetricStatus is the current value of a resource metric.
type ResourceMetricStatus struct {
	Name    ResourceName      `json:"name" protobuf:"bytes,1,name=name"`
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
}

// ContainerResourceMetricStatus is the current value of a container resource metric.
type ContainerResourceMetricStatus struct {
	Name      ResourceName      `json:"name" protobuf:"bytes,1,name=name"`
	Current   MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
	Container string            `json:"container" protobuf:"bytes,3,opt,name=container"`
}

// ExternalMetricStatus is the current value of an external metric.
type ExternalMetricStatus struct {
	Metric  MetricIdentifier  `json:"metric" protobuf:"bytes,1,name=metric"`
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
}

// MetricValueStatus is a metric's current value in the form its target uses.
type MetricValueStatus struct {
	Value              *Quantity `json:"value,omitempty" protobuf:"bytes,1,opt,name=value"`
	AverageValue       *Quantity `json:"averageValue,omitempty" protobuf:"bytes,2,opt,name=averageValue"`
	AverageUtilization *int32    `json:"averageUtilization,omitempty" protobuf:"varint,3,opt,name=averageUtilization"`
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
	Type               HorizontalPodAutoscalerConditionType `json:"type" protobuf:"bytes,1,name=type"`
	Status             ConditionStatus                      `json:"status" protobuf:"bytes,2,name=status"`
	LastTransitionTime Time                                 `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                               `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                               `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// Scale is the autoscaling/v1 body of a workload's scale subresource: the
// desired replicas, and the observed replicas and pod selector.
type Scale struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       ScaleSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     ScaleStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ScaleSpec is the desired replica count.
type ScaleSpec struct {
	Replicas int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
}

// ScaleStatus is the observed replica count and the workload's selector in
// label-query form (e.g. "app=web").
type ScaleStatus struct {
	Replicas int32  `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	Selector string `json:"selector,omitempty" protobuf:"bytes,2,opt,name=selector"`
}
