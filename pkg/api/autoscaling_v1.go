package api

// This file holds the autoscaling/v1 HorizontalPodAutoscaler: the first
// shape of the HPA, which knows one metric only, the pods' average CPU
// utilisation. kubectl up to 1.32 creates this version (`kubectl
// autoscale`). kplane stores every HPA in its autoscaling/v2 shape
// (autoscaling.go) and serves v1 from that storage by conversion, as
// upstream does; the conversion is in autoscaling_v1_conversion.go.

// HorizontalPodAutoscalerV1 is the autoscaling/v1 HorizontalPodAutoscaler:
// an HPA that scales on the average CPU utilisation of the target's pods.
// Upstream calls the type HorizontalPodAutoscaler; every kplane type
// shares one Go package, where autoscaling/v2 already has that name.
type HorizontalPodAutoscalerV1 struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       HorizontalPodAutoscalerV1Spec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     HorizontalPodAutoscalerV1Status `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// HorizontalPodAutoscalerV1Spec is the target, bounds and CPU target of an
// autoscaling/v1 HPA.
type HorizontalPodAutoscalerV1Spec struct {
	// ScaleTargetRef names the workload scaled, through its scale subresource.
	ScaleTargetRef CrossVersionObjectReference `json:"scaleTargetRef" protobuf:"bytes,1,opt,name=scaleTargetRef"`
	// MinReplicas is the fewest replicas (default 1).
	MinReplicas *int32 `json:"minReplicas,omitempty" protobuf:"varint,2,opt,name=minReplicas"`
	// MaxReplicas is the most replicas.
	MaxReplicas int32 `json:"maxReplicas" protobuf:"varint,3,opt,name=maxReplicas"`
	// TargetCPUUtilizationPercentage is the wanted average CPU use of the
	// pods, in percent of their requests; unset, the autoscaler aims at 80%.
	TargetCPUUtilizationPercentage *int32 `json:"targetCPUUtilizationPercentage,omitempty" protobuf:"varint,4,opt,name=targetCPUUtilizationPercentage"`
}

// HorizontalPodAutoscalerV1Status is the observed state of an autoscaling/v1 HPA.
type HorizontalPodAutoscalerV1Status struct {
	// ObservedGeneration is the generation the autoscaler last acted on.
	ObservedGeneration *int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// LastScaleTime is when the autoscaler last changed the replica count.
	LastScaleTime *Time `json:"lastScaleTime,omitempty" protobuf:"bytes,2,opt,name=lastScaleTime"`
	// CurrentReplicas is how many replicas the target has now.
	CurrentReplicas int32 `json:"currentReplicas" protobuf:"varint,3,opt,name=currentReplicas"`
	// DesiredReplicas is how many the autoscaler last asked for.
	DesiredReplicas int32 `json:"desiredReplicas" protobuf:"varint,4,opt,name=desiredReplicas"`
	// CurrentCPUUtilizationPercentage is the pods' average CPU use now, in
	// percent of their requests.
	CurrentCPUUtilizationPercentage *int32 `json:"currentCPUUtilizationPercentage,omitempty" protobuf:"varint,5,opt,name=currentCPUUtilizationPercentage"`
}
