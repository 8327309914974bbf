package api

// This file converts HPAs between autoscaling/v1 and autoscaling/v2, as
// upstream's pkg/apis/autoscaling/v1/conversion.go does. v1 has room for one
// metric, the CPU utilisation target; everything else an HPA may carry
// (other metrics, their current values, the conditions, the scaling
// behavior) travels in four annotations of the v1 object, so that a v1
// client that reads an HPA and writes it back loses nothing. The v2 form
// never carries those annotations: converting to v2 takes them out.
//
// Two differences from upstream. When the CPU target is not the last
// metric, the metrics annotation holds the whole list, so that the order
// survives (upstream moves the CPU target last). And upstream writes the
// metrics annotations in the older autoscaling/v2beta1 metric shape
// (targetAverageUtilization…); kplane writes them in the autoscaling/v2
// shape its storage already uses.
// The annotation names are upstream's, and only kplane reads their content.

import "encoding/json"

// The annotations an autoscaling/v1 HPA keeps what v1 has no field for
// in, by upstream's names.
const (
	// HPAMetricSpecsAnnotation holds the metrics other than the CPU
	// utilisation target.
	HPAMetricSpecsAnnotation = "autoscaling.alpha.kubernetes.io/metrics"
	// HPAMetricStatusesAnnotation holds every current metric value (the
	// CPU one too, whose raw average value v1 has no field for).
	HPAMetricStatusesAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
	// HPAConditionsAnnotation holds the status conditions.
	HPAConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions"
	// HPABehaviorSpecsAnnotation holds the scaling behavior.
	HPABehaviorSpecsAnnotation = "autoscaling.alpha.kubernetes.io/behavior"
)

// hpaRoundTripAnnotations are the annotations above, which the v2 form
// never carries.
var hpaRoundTripAnnotations = []string{HPAMetricSpecsAnnotation, HPAMetricStatusesAnnotation, HPAConditionsAnnotation, HPABehaviorSpecsAnnotation}

// isCPUUtilization reports whether m is the metric v1 has a field for: a
// Resource cpu metric with a Utilization target.
func isCPUUtilization(m MetricSpec) bool {
	return m.Type == ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == ResourceCPU &&
		m.Resource.Target.AverageUtilization != nil
}

// HorizontalPodAutoscalerV1FromV2 returns the autoscaling/v1 form of an
// autoscaling/v2 HPA; the result shares no memory with h.
func HorizontalPodAutoscalerV1FromV2(h *HorizontalPodAutoscaler) *HorizontalPodAutoscalerV1 {
	h = DeepCopy(h)
	out := &HorizontalPodAutoscalerV1{
		TypeMeta:   TypeMeta{Kind: "HorizontalPodAutoscaler", APIVersion: "autoscaling/v1"},
		ObjectMeta: h.ObjectMeta,
		Spec: HorizontalPodAutoscalerV1Spec{
			ScaleTargetRef: h.Spec.ScaleTargetRef,
			MinReplicas:    h.Spec.MinReplicas,
			MaxReplicas:    h.Spec.MaxReplicas,
		},
		Status: HorizontalPodAutoscalerV1Status{
			ObservedGeneration: h.Status.ObservedGeneration,
			LastScaleTime:      h.Status.LastScaleTime,
			CurrentReplicas:    h.Status.CurrentReplicas,
			DesiredReplicas:    h.Status.DesiredReplicas,
		},
	}
	// Only what this conversion writes may be in the round-trip
	// annotations: a stale one from a v1 client must not come back.
	for _, name := range hpaRoundTripAnnotations {
		delete(out.Annotations, name)
	}
	var other []MetricSpec
	cpuAt := -1
	for i, m := range h.Spec.Metrics {
		if isCPUUtilization(m) && cpuAt < 0 {
			out.Spec.TargetCPUUtilizationPercentage = m.Resource.Target.AverageUtilization
			cpuAt = i
			continue
		}
		other = append(other, m)
	}
	if cpuAt >= 0 && cpuAt != len(h.Spec.Metrics)-1 {
		// The CPU target is not last, where converting back would put
		// it: the annotation keeps the whole list, in order.
		other = h.Spec.Metrics
	}
	for _, m := range h.Status.CurrentMetrics {
		if m.Type == ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == ResourceCPU {
			out.Status.CurrentCPUUtilizationPercentage = m.Resource.Current.AverageUtilization
			break
		}
	}
	setJSONAnnotation(&out.ObjectMeta, HPAMetricSpecsAnnotation, other, len(other) > 0)
	setJSONAnnotation(&out.ObjectMeta, HPAMetricStatusesAnnotation, h.Status.CurrentMetrics, len(h.Status.CurrentMetrics) > 0)
	setJSONAnnotation(&out.ObjectMeta, HPAConditionsAnnotation, h.Status.Conditions, len(h.Status.Conditions) > 0)
	setJSONAnnotation(&out.ObjectMeta, HPABehaviorSpecsAnnotation, h.Spec.Behavior, h.Spec.Behavior != nil)
	if len(out.Annotations) == 0 {
		out.Annotations = nil
	}
	return out
}

// ToV2 returns the autoscaling/v2 form of an autoscaling/v1 HPA, taking
// what v1 has no field for from the round-trip annotations; the result
// shares no memory with h. An annotation that does not parse is left in
// place as an ordinary annotation (validation refuses it on a write).
func (h *HorizontalPodAutoscalerV1) ToV2() *HorizontalPodAutoscaler {
	out, _ := hpaV1ToV2(h)
	return out
}

// ToV2Checked is ToV2 that also returns, by annotation name, why each
// round-trip annotation that does not parse fails (empty when all do).
// Validation uses it to refuse a v1 write that would lose data, from the
// same conversion it then validates.
func (h *HorizontalPodAutoscalerV1) ToV2Checked() (*HorizontalPodAutoscaler, map[string]error) {
	return hpaV1ToV2(h)
}

// hpaV1ToV2 is the conversion behind ToV2 and ToV2Checked: each
// round-trip annotation is parsed once, into the v2 field it stands for,
// and the parse errors are collected by annotation name.
func hpaV1ToV2(h *HorizontalPodAutoscalerV1) (*HorizontalPodAutoscaler, map[string]error) {
	h = DeepCopy(h)
	errs := map[string]error{}
	out := &HorizontalPodAutoscaler{
		TypeMeta:   TypeMeta{Kind: "HorizontalPodAutoscaler", APIVersion: "autoscaling/v2"},
		ObjectMeta: h.ObjectMeta,
		Spec: HorizontalPodAutoscalerSpec{
			ScaleTargetRef: h.Spec.ScaleTargetRef,
			MinReplicas:    h.Spec.MinReplicas,
			MaxReplicas:    h.Spec.MaxReplicas,
		},
		Status: HorizontalPodAutoscalerStatus{
			ObservedGeneration: h.Status.ObservedGeneration,
			LastScaleTime:      h.Status.LastScaleTime,
			CurrentReplicas:    h.Status.CurrentReplicas,
			DesiredReplicas:    h.Status.DesiredReplicas,
		},
	}
	var other []MetricSpec
	takeJSONAnnotation(&out.ObjectMeta, HPAMetricSpecsAnnotation, &other, errs)
	out.Spec.Metrics = withCPUTarget(other, h.Spec.TargetCPUUtilizationPercentage)
	if len(out.Spec.Metrics) == 0 {
		// v1's implicit target, made explicit as upstream's conversion does.
		out.Spec.Metrics = []MetricSpec{cpuUtilizationMetric(DefaultCPUUtilization)}
	}
	if !takeJSONAnnotation(&out.ObjectMeta, HPAMetricStatusesAnnotation, &out.Status.CurrentMetrics, errs) &&
		h.Status.CurrentCPUUtilizationPercentage != nil {
		out.Status.CurrentMetrics = []MetricStatus{{
			Type: ResourceMetricSourceType,
			Resource: &ResourceMetricStatus{Name: ResourceCPU,
				Current: MetricValueStatus{AverageUtilization: h.Status.CurrentCPUUtilizationPercentage}},
		}}
	}
	takeJSONAnnotation(&out.ObjectMeta, HPAConditionsAnnotation, &out.Status.Conditions, errs)
	takeJSONAnnotation(&out.ObjectMeta, HPABehaviorSpecsAnnotation, &out.Spec.Behavior, errs)
	if len(out.Annotations) == 0 {
		out.Annotations = nil
	}
	return out, errs
}

// withCPUTarget places v1's CPU target among the other metrics: where the
// list already holds a CPU utilization metric (its place kept by
// HorizontalPodAutoscalerV1FromV2), the field's value replaces that
// metric's target, or removes it when the field is unset; otherwise it
// goes last, as upstream's conversion puts it.
func withCPUTarget(metrics []MetricSpec, target *int32) []MetricSpec {
	for i, m := range metrics {
		if !isCPUUtilization(m) {
			continue
		}
		if target == nil {
			return append(metrics[:i:i], metrics[i+1:]...)
		}
		metrics[i] = cpuUtilizationMetric(*target)
		return metrics
	}
	if target != nil {
		metrics = append(metrics, cpuUtilizationMetric(*target))
	}
	return metrics
}

// cpuUtilizationMetric is a Resource cpu metric aiming at percent utilisation.
func cpuUtilizationMetric(percent int32) MetricSpec {
	return MetricSpec{Type: ResourceMetricSourceType, Resource: &ResourceMetricSource{
		Name: ResourceCPU, Target: MetricTarget{Type: UtilizationMetricType, AverageUtilization: &percent}}}
}

// setJSONAnnotation sets annotation name to the JSON of v when present.
func setJSONAnnotation(meta *ObjectMeta, name string, v any, present bool) {
	if !present {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return // the API types always marshal
	}
	if meta.Annotations == nil {
		meta.Annotations = map[string]string{}
	}
	meta.Annotations[name] = string(b)
}

// takeJSONAnnotation decodes annotation name into into and removes it,
// reporting whether it did; an annotation that does not parse stays, and
// why goes into errs under its name.
func takeJSONAnnotation(meta *ObjectMeta, name string, into any, errs map[string]error) bool {
	raw, ok := meta.Annotations[name]
	if !ok {
		return false
	}
	if err := json.Unmarshal([]byte(raw), into); err != nil {
		errs[name] = err
		return false
	}
	delete(meta.Annotations, name)
	return true
}
