package api

import (
	"encoding/json"
	"reflect"
	"testing"
)

func int32Ref(v int32) *int32 { return &v }

// fullHPA is an autoscaling/v2 HPA with something in every part v1 has no
// field for.
func fullHPA() *HorizontalPodAutoscaler {
	q := MustParseQuantity("200Mi")
	return &HorizontalPodAutoscaler{
		TypeMeta:   TypeMeta{Kind: "HorizontalPodAutoscaler", APIVersion: "autoscaling/v2"},
		ObjectMeta: ObjectMeta{Name: "web", Namespace: "default", Annotations: map[string]string{"team": "a"}},
		Spec: HorizontalPodAutoscalerSpec{
			ScaleTargetRef: CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    int32Ref(2), MaxReplicas: 10,
			Metrics: []MetricSpec{
				{Type: ResourceMetricSourceType, Resource: &ResourceMetricSource{Name: ResourceMemory,
					Target: MetricTarget{Type: AverageValueMetricType, AverageValue: &q}}},
				cpuUtilizationMetric(50),
			},
			Behavior: &HorizontalPodAutoscalerBehavior{ScaleDown: &HPAScalingRules{StabilizationWindowSeconds: int32Ref(60),
				Policies: []HPAScalingPolicy{{Type: PodsScalingPolicy, Value: 1, PeriodSeconds: 30}}}},
		},
		Status: HorizontalPodAutoscalerStatus{
			CurrentReplicas: 3, DesiredReplicas: 4,
			CurrentMetrics: []MetricStatus{{Type: ResourceMetricSourceType, Resource: &ResourceMetricStatus{Name: ResourceCPU,
				Current: MetricValueStatus{AverageUtilization: int32Ref(150), AverageValue: &q}}}},
			Conditions: []HorizontalPodAutoscalerCondition{{Type: AbleToScale, Status: ConditionTrue, Reason: "SucceededRescale"}},
		},
	}
}

// TestHPAV2ToV1ToV2IsLossless: v1 keeps the CPU target in its field and the
// rest in upstream's annotations; converting back gives the v2 object again
// (the CPU target last, where upstream's conversion puts it).
func TestHPAV2ToV1ToV2IsLossless(t *testing.T) {
	in := fullHPA()
	v1 := HorizontalPodAutoscalerV1FromV2(in)
	if v1.Spec.TargetCPUUtilizationPercentage == nil || *v1.Spec.TargetCPUUtilizationPercentage != 50 ||
		v1.Status.CurrentCPUUtilizationPercentage == nil || *v1.Status.CurrentCPUUtilizationPercentage != 150 {
		t.Errorf("v1 CPU fields = %+v / %+v", v1.Spec, v1.Status)
	}
	for _, name := range hpaRoundTripAnnotations {
		if v1.Annotations[name] == "" {
			t.Errorf("v1 lacks annotation %s: %v", name, v1.Annotations)
		}
	}
	var other []MetricSpec
	if err := json.Unmarshal([]byte(v1.Annotations[HPAMetricSpecsAnnotation]), &other); err != nil || len(other) != 1 || other[0].Resource.Name != ResourceMemory {
		t.Errorf("other metrics annotation = %s", v1.Annotations[HPAMetricSpecsAnnotation])
	}
	back := v1.ToV2()
	if !reflect.DeepEqual(back, in) {
		a, _ := json.Marshal(in)
		b, _ := json.Marshal(back)
		t.Errorf("v2 → v1 → v2 changed the object:\n in %s\nout %s", a, b)
	}
	if in.Annotations["team"] != "a" || len(in.Annotations) != 1 {
		t.Errorf("conversion changed its input's annotations: %v", in.Annotations)
	}
}

// TestHPAV1ToV2ToV1IsLossless: a v1 object, annotations included, survives
// the trip through the v2 storage form.
func TestHPAV1ToV2ToV1IsLossless(t *testing.T) {
	v1 := HorizontalPodAutoscalerV1FromV2(fullHPA())
	if again := HorizontalPodAutoscalerV1FromV2(v1.ToV2()); !reflect.DeepEqual(again, v1) {
		t.Errorf("v1 → v2 → v1 changed the object:\n in %+v\nout %+v", v1, again)
	}
	plain := &HorizontalPodAutoscalerV1{ObjectMeta: ObjectMeta{Name: "web"}, Spec: HorizontalPodAutoscalerV1Spec{
		MaxReplicas: 10, TargetCPUUtilizationPercentage: int32Ref(50)},
		Status: HorizontalPodAutoscalerV1Status{CurrentCPUUtilizationPercentage: int32Ref(20)}}
	v2 := plain.ToV2()
	if len(v2.Spec.Metrics) != 1 || !isCPUUtilization(v2.Spec.Metrics[0]) || len(v2.Status.CurrentMetrics) != 1 || v2.Annotations != nil {
		t.Errorf("plain v1 as v2 = %+v", v2)
	}
	again := HorizontalPodAutoscalerV1FromV2(v2)
	again.TypeMeta = plain.TypeMeta
	// The current CPU metric comes back as an annotation as well (upstream
	// keeps it so, for its raw value); the fields are unchanged.
	delete(again.Annotations, HPAMetricStatusesAnnotation)
	if len(again.Annotations) == 0 {
		again.Annotations = nil
	}
	if !reflect.DeepEqual(again, plain) {
		t.Errorf("plain v1 → v2 → v1 = %+v, want %+v", again, plain)
	}
}

// TestHPAV2MetricOrderSurvivesV1: a CPU target that is not the last metric
// keeps its place through v1, and a v1 client's change of
// targetCPUUtilizationPercentage lands on it.
func TestHPAV2MetricOrderSurvivesV1(t *testing.T) {
	in := fullHPA()
	in.Spec.Metrics[0], in.Spec.Metrics[1] = in.Spec.Metrics[1], in.Spec.Metrics[0]
	v1 := HorizontalPodAutoscalerV1FromV2(in)
	if back := v1.ToV2(); !reflect.DeepEqual(back.Spec.Metrics, in.Spec.Metrics) {
		t.Errorf("metrics through v1 = %+v, want %+v", back.Spec.Metrics, in.Spec.Metrics)
	}
	v1.Spec.TargetCPUUtilizationPercentage = int32Ref(70)
	if m := v1.ToV2().Spec.Metrics; len(m) != 2 || !isCPUUtilization(m[0]) || *m[0].Resource.Target.AverageUtilization != 70 {
		t.Errorf("after a v1 change of the CPU target: %+v", m)
	}
	v1.Spec.TargetCPUUtilizationPercentage = nil
	if m := v1.ToV2().Spec.Metrics; len(m) != 1 || m[0].Resource.Name != ResourceMemory {
		t.Errorf("after a v1 client dropped the CPU target: %+v", m)
	}
}

// TestHPAV1WithoutTargetGetsTheDefaultCPUMetric: v1's implicit 80% target
// becomes an explicit metric in v2, as upstream's conversion makes it.
func TestHPAV1WithoutTargetGetsTheDefaultCPUMetric(t *testing.T) {
	v2 := (&HorizontalPodAutoscalerV1{Spec: HorizontalPodAutoscalerV1Spec{MaxReplicas: 3}}).ToV2()
	if len(v2.Spec.Metrics) != 1 || *v2.Spec.Metrics[0].Resource.Target.AverageUtilization != DefaultCPUUtilization {
		t.Errorf("metrics = %+v, want the 80%% CPU default", v2.Spec.Metrics)
	}
}

// TestHPAV1StaleAnnotationsAreDropped: what a v1 client sends back in the
// annotations is replaced by what the v2 object says.
func TestHPAV1StaleAnnotationsAreDropped(t *testing.T) {
	in := fullHPA()
	in.Spec.Behavior = nil
	in.Annotations[HPABehaviorSpecsAnnotation] = `{"scaleUp":{}}`
	if v1 := HorizontalPodAutoscalerV1FromV2(in); v1.Annotations[HPABehaviorSpecsAnnotation] != "" {
		t.Errorf("a stale behavior annotation survived: %v", v1.Annotations)
	}
	bad := &HorizontalPodAutoscalerV1{ObjectMeta: ObjectMeta{Annotations: map[string]string{HPAConditionsAnnotation: "{"}}}
	if _, errs := bad.ToV2Checked(); errs[HPAConditionsAnnotation] == nil {
		t.Errorf("a malformed conditions annotation is not reported: %v", errs)
	}
}
