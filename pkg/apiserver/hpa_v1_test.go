package apiserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/test/framework"
)

// These tests cover autoscaling/v1 HorizontalPodAutoscalers: the
// autoscaling/v2 HPAs served from the same storage in their older shape,
// as upstream serves them.

const (
	hpaV1Path = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
	hpaV2Path = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
)

// TestHPAV1CreateReadsBackAsV2: what `kubectl autoscale` of kubectl 1.32
// posts (autoscaling/v1, a CPU target) is one object, read back through v2
// as a Resource cpu Utilization metric, minReplicas defaulted to 1.
func TestHPAV1CreateReadsBackAsV2(t *testing.T) {
	a := framework.StartAPIServer(t)
	v1 := `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},
		"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":10,"targetCPUUtilizationPercentage":50}}`
	r := a.Do(t, "POST", hpaV1Path, []byte(v1))
	var created api.HorizontalPodAutoscalerV1
	if r.Code != 201 || json.Unmarshal(r.Body, &created) != nil {
		t.Fatalf("create v1 HPA: %d %s", r.Code, r.Body)
	}
	if created.APIVersion != "autoscaling/v1" || created.Spec.MinReplicas == nil || *created.Spec.MinReplicas != 1 {
		t.Errorf("created v1 HPA = %s", r.Body)
	}

	r = a.Do(t, "GET", hpaV2Path+"/web", nil)
	var v2 api.HorizontalPodAutoscaler
	if r.Code != 200 || json.Unmarshal(r.Body, &v2) != nil {
		t.Fatalf("get through v2: %d %s", r.Code, r.Body)
	}
	if v2.APIVersion != "autoscaling/v2" || v2.UID != created.UID || len(v2.Spec.Metrics) != 1 ||
		v2.Spec.Metrics[0].Resource == nil || v2.Spec.Metrics[0].Resource.Name != api.ResourceCPU ||
		*v2.Spec.Metrics[0].Resource.Target.AverageUtilization != 50 || v2.Annotations != nil {
		t.Errorf("v2 form of the v1 HPA:\n%s", r.Body)
	}
	if strings.Contains(string(r.Body), "targetCPUUtilizationPercentage") {
		t.Errorf("the v2 form carries a v1 field:\n%s", r.Body)
	}
}

// TestHPAV2CreateReadsBackAsV1: a v2 HPA with a memory metric besides CPU
// and a behavior reads through v1 with the CPU target in its field and the
// rest in upstream's annotations; a v1 client writing it back (a PUT of
// what it read) changes nothing in the v2 object.
func TestHPAV2CreateReadsBackAsV1(t *testing.T) {
	a := framework.StartAPIServer(t)
	v2 := `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},
		"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"minReplicas":2,"maxReplicas":10,
		"metrics":[{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"200Mi"}}},
		           {"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}}],
		"behavior":{"scaleDown":{"stabilizationWindowSeconds":60}}}}`
	r := a.Do(t, "POST", hpaV2Path, []byte(v2))
	if r.Code != 201 {
		t.Fatalf("create v2 HPA: %d %s", r.Code, r.Body)
	}
	before := a.Do(t, "GET", hpaV2Path+"/web", nil).Body

	r = a.Do(t, "GET", hpaV1Path+"/web", nil)
	var v1 api.HorizontalPodAutoscalerV1
	if r.Code != 200 || json.Unmarshal(r.Body, &v1) != nil {
		t.Fatalf("get through v1: %d %s", r.Code, r.Body)
	}
	if v1.Spec.TargetCPUUtilizationPercentage == nil || *v1.Spec.TargetCPUUtilizationPercentage != 60 ||
		!strings.Contains(v1.Annotations[api.HPAMetricSpecsAnnotation], `"memory"`) ||
		!strings.Contains(v1.Annotations[api.HPABehaviorSpecsAnnotation], `"stabilizationWindowSeconds":60`) {
		t.Errorf("v1 form of the v2 HPA:\n%s", r.Body)
	}

	r = a.Do(t, "PUT", hpaV1Path+"/web", r.Body)
	if r.Code != 200 {
		t.Fatalf("v1 client writes back what it read: %d %s", r.Code, r.Body)
	}
	var after, was api.HorizontalPodAutoscaler
	if err := json.Unmarshal(a.Do(t, "GET", hpaV2Path+"/web", nil).Body, &after); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(before, &was); err != nil {
		t.Fatal(err)
	}
	if len(after.Spec.Metrics) != 2 || after.Spec.Behavior == nil || *after.Spec.Behavior.ScaleDown.StabilizationWindowSeconds != 60 ||
		after.Annotations != nil || after.Generation != was.Generation {
		t.Errorf("the v2 object after a v1 round trip:\n%s", a.Do(t, "GET", hpaV2Path+"/web", nil).Body)
	}

	if err := json.Unmarshal(r.Body, &v1); err != nil {
		t.Fatal(err)
	}
	v1.Annotations[api.HPABehaviorSpecsAnnotation] = "{"
	bad, _ := json.Marshal(&v1)
	if r := a.Do(t, "PUT", hpaV1Path+"/web", bad); r.Code != 422 {
		t.Errorf("a v1 write with a malformed behavior annotation: %d %s, want 422", r.Code, r.Body)
	}
}

// TestHPADiscoveryPrefersV2: autoscaling lists both versions, v2 first.
func TestHPADiscoveryPrefersV2(t *testing.T) {
	a := framework.StartAPIServer(t)
	r := a.Do(t, "GET", "/apis/autoscaling", nil)
	var group struct {
		Versions         []struct{ Version string }
		PreferredVersion struct{ Version string }
	}
	if r.Code != 200 || json.Unmarshal(r.Body, &group) != nil {
		t.Fatalf("GET /apis/autoscaling: %d %s", r.Code, r.Body)
	}
	if group.PreferredVersion.Version != "v2" || len(group.Versions) != 2 || group.Versions[1].Version != "v1" {
		t.Errorf("autoscaling group = %s", r.Body)
	}
	r = a.Do(t, "GET", "/apis/autoscaling/v1", nil)
	if r.Code != 200 || !strings.Contains(string(r.Body), `"horizontalpodautoscalers"`) || !strings.Contains(string(r.Body), `"horizontalpodautoscalers/status"`) {
		t.Errorf("GET /apis/autoscaling/v1: %d %s", r.Code, r.Body)
	}
}
