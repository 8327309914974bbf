package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/test/framework"
)

// TestKubectlAutoscaleBothVersions: `kubectl autoscale` of kubectl 1.32
// posts an autoscaling/v1 HPA and that of 1.33 an autoscaling/v2 one; each
// is one object, readable through both versions; `kubectl get hpa` and
// `kubectl describe hpa` of both show its target and, once the status has
// a measurement, TARGETS as upstream's server prints it ("cpu: 150%/50%").
// The controller is not needed for this: the status is written as the
// controller would write it.
func TestKubectlAutoscaleBothVersions(t *testing.T) {
	minors := map[int]string{}
	for _, k := range framework.InstalledKubectlMinors(t) {
		minors[k.Minor] = k.Path
	}
	if minors[32] == "" || minors[33] == "" {
		t.Fatalf("this test needs kubectl.1.32 and kubectl.1.33 beside kubectl; found %v", minors)
	}
	a := framework.StartAPIServer(t)
	run := func(minor int, args ...string) string {
		t.Helper()
		r := framework.RunKubectl(t, minors[minor], a.KubeconfigPath(), a.Home, "", args...)
		if r.Err != nil {
			t.Fatalf("kubectl 1.%d %s: %v\n%s%s", minor, strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
		}
		return r.Stdout
	}
	run(33, "create", "deployment", "web", "--image=nginx")
	run(33, "create", "deployment", "api", "--image=nginx")

	for _, c := range []struct {
		minor       int
		name        string
		postVersion string
	}{{32, "web", "autoscaling/v1"}, {33, "api", "autoscaling/v2"}} {
		out := run(c.minor, "autoscale", "deployment", c.name, "--cpu-percent=50", "--min=1", "--max=10", "-o", "json")
		var posted struct{ APIVersion string }
		if err := json.Unmarshal([]byte(out), &posted); err != nil || posted.APIVersion != c.postVersion {
			t.Errorf("kubectl 1.%d autoscale answered %q (%v), want an %s object", c.minor, posted.APIVersion, err, c.postVersion)
		}

		var v2 api.HorizontalPodAutoscaler
		readJSON(t, a, "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/"+c.name, &v2)
		if len(v2.Spec.Metrics) != 1 || v2.Spec.Metrics[0].Resource == nil || v2.Spec.Metrics[0].Resource.Name != "cpu" ||
			*v2.Spec.Metrics[0].Resource.Target.AverageUtilization != 50 || *v2.Spec.MinReplicas != 1 || v2.Spec.MaxReplicas != 10 {
			t.Errorf("%s read through v2: %+v", c.name, v2.Spec)
		}
		var v1 api.HorizontalPodAutoscalerV1
		readJSON(t, a, "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/"+c.name, &v1)
		if v1.Spec.TargetCPUUtilizationPercentage == nil || *v1.Spec.TargetCPUUtilizationPercentage != 50 {
			t.Errorf("%s read through v1: %+v", c.name, v1.Spec)
		}

		got := run(c.minor, "get", "hpa", c.name)
		if !strings.Contains(got, "cpu: <unknown>/50%") || !strings.Contains(got, "Deployment/"+c.name) {
			t.Errorf("kubectl 1.%d get hpa before any measurement:\n%s", c.minor, got)
		}

		// The status the controller writes after measuring 150%.
		v2.Status = api.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 6, CurrentMetrics: []api.MetricStatus{{
			Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricStatus{Name: "cpu",
				Current: api.MetricValueStatus{AverageUtilization: ptrTo[int32](150), AverageValue: ptrTo(api.MustParseQuantity("150m"))}}}}}
		body, _ := json.Marshal(&v2)
		if r := a.Do(t, "PUT", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/"+c.name+"/status", body); r.Code != 200 {
			t.Fatalf("write status: %d %s", r.Code, r.Body)
		}
		for _, minor := range []int{32, 33} {
			got := run(minor, "get", "hpa", c.name)
			if !strings.Contains(got, "cpu: 150%/50%") {
				t.Errorf("kubectl 1.%d get hpa %s with a measurement:\n%s", minor, c.name, got)
			}
			described := run(minor, "describe", "hpa", c.name)
			if !strings.Contains(described, "150% (150m) / 50%") || !strings.Contains(described, "Deployment/"+c.name) {
				t.Errorf("kubectl 1.%d describe hpa %s:\n%s", minor, c.name, described)
			}
		}
		var v1Status api.HorizontalPodAutoscalerV1
		readJSON(t, a, "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/"+c.name, &v1Status)
		if v1Status.Status.CurrentCPUUtilizationPercentage == nil || *v1Status.Status.CurrentCPUUtilizationPercentage != 150 {
			t.Errorf("v1 status of %s: %+v", c.name, v1Status.Status)
		}
	}
}

// readJSON GETs path from a and decodes the answer into out.
func readJSON(t *testing.T, a *framework.APIServer, path string, out any) {
	t.Helper()
	r := a.Do(t, "GET", path, nil)
	if r.Code != 200 {
		t.Fatalf("GET %s: %d %s", path, r.Code, r.Body)
	}
	if err := json.Unmarshal(r.Body, out); err != nil {
		t.Fatalf("GET %s: %v", path, fmt.Errorf("decode: %w", err))
	}
}

func ptrTo[T any](v T) *T { return &v }
