package podautoscaler

import (
	"fmt"
	"testing"
	"time"

	"kplane/pkg/api"
)

var t0 = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

var defaultCalc = calculatorOptions{scaleUpTolerance: DefaultTolerance, scaleDownTolerance: DefaultTolerance, cpuInitializationPeriod: DefaultCPUInitializationPeriod,
	initialReadinessDelay: DefaultInitialReadinessDelay}

// testPod is a running, Ready pod of one container requesting cpu
// millicores, started long ago.
func testPod(name string, cpuRequest int64) *api.Pod {
	start := api.NewTime(t0.Add(-time.Hour))
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Resources: api.ResourceRequirements{
			Requests: api.ResourceList{api.ResourceCPU: api.NewMilliQuantity(cpuRequest, api.DecimalSI)}}}}},
		Status: api.PodStatus{Phase: api.PodRunning, StartTime: &start, Conditions: []api.PodCondition{
			{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0.Add(-time.Hour + 10*time.Second))}}},
	}
}

func pending(p *api.Pod) *api.Pod { p.Status.Phase = api.PodPending; return p }

func deleting(p *api.Pod) *api.Pod { now := api.NewTime(t0); p.DeletionTimestamp = &now; return p }

// justStarted is a pod that started a minute ago and flipped Ready 10 s
// ago: within the CPU initialization period, and after its latest sample
// window began.
func justStarted(p *api.Pod, ready api.ConditionStatus) *api.Pod {
	start := api.NewTime(t0.Add(-time.Minute))
	p.Status.StartTime = &start
	p.Status.Conditions[0].Status = ready
	p.Status.Conditions[0].LastTransitionTime = api.NewTime(t0.Add(-10 * time.Second))
	return p
}

// usage is a metrics map: pod name → millicores, sampled at t0 over 15 s.
func usage(figures map[string]int64) PodMetricsInfo {
	m := PodMetricsInfo{}
	for name, v := range figures {
		m[name] = PodMetric{Value: v, Timestamp: t0, Window: 15 * time.Second}
	}
	return m
}

// TestResourceUtilizationReplicas covers upstream's replica_calculator
// cases for a CPU Utilization target.
func TestResourceUtilizationReplicas(t *testing.T) {
	tests := []struct {
		name            string
		currentReplicas int32
		target          int32
		pods            []*api.Pod
		usage           map[string]int64
		wantReplicas    int32
		wantUtilization int32
		wantErr         string
	}{
		{"the issue's example: 2 pods at 150% of 100m, target 50% → ceil(2 × 3) = 6", 2, 50,
			[]*api.Pod{testPod("a", 100), testPod("b", 100)}, map[string]int64{"a": 150, "b": 150}, 6, 150, ""},
		{"scale down: 3 pods at 20%, target 50% → ceil(3 × 0.4) = 2", 3, 50,
			[]*api.Pod{testPod("a", 100), testPod("b", 100), testPod("c", 100)}, map[string]int64{"a": 20, "b": 20, "c": 20}, 2, 20, ""},
		{"within tolerance: 54% against 50% is a ratio of 1.08 → no change", 3, 50,
			[]*api.Pod{testPod("a", 100), testPod("b", 100), testPod("c", 100)}, map[string]int64{"a": 54, "b": 54, "c": 54}, 3, 54, ""},
		{"just outside tolerance: 56% → ratio 1.12 → ceil(3 × 1.12) = 4", 3, 50,
			[]*api.Pod{testPod("a", 100), testPod("b", 100), testPod("c", 100)}, map[string]int64{"a": 56, "b": 56, "c": 56}, 4, 56, ""},
		{"missing metric on scale up: the pod counts as idle", 3, 50,
			[]*api.Pod{testPod("a", 100), testPod("b", 100), testPod("c", 100)}, map[string]int64{"a": 100, "b": 100}, 4, 100, ""},
		{"missing metric on scale down: the pod counts at 100% and blocks it", 3, 50,
			[]*api.Pod{testPod("a", 100), testPod("b", 100), testPod("c", 100)}, map[string]int64{"a": 10, "b": 10}, 3, 10, ""},
		{"missing metric on scale down, far below: 4 pods at 10%, one missing (100%) → ceil(4 × 0.65) = 3", 4, 50,
			[]*api.Pod{testPod("a", 100), testPod("b", 100), testPod("c", 100), testPod("d", 100)}, map[string]int64{"a": 10, "b": 10, "c": 10}, 3, 10, ""},
		{"a pending pod counted idle turns a small scale up into none: 120m of 300m is 40%", 2, 50,
			[]*api.Pod{testPod("a", 100), testPod("b", 100), pending(testPod("c", 100))}, map[string]int64{"a": 60, "b": 60}, 2, 60, ""},
		{"a pending pod counted idle damps a scale up: 300m of 300m → ratio 2 over 3 pods", 2, 50,
			[]*api.Pod{testPod("a", 100), testPod("b", 100), pending(testPod("c", 100))}, map[string]int64{"a": 150, "b": 150}, 6, 150, ""},
		{"pending pods are left out on scale down", 3, 50,
			[]*api.Pod{testPod("a", 100), testPod("b", 100), pending(testPod("c", 100))}, map[string]int64{"a": 10, "b": 10}, 1, 10, ""},
		{"deleted pods count for nothing", 2, 50,
			[]*api.Pod{testPod("a", 100), testPod("b", 100), deleting(testPod("c", 100))}, map[string]int64{"a": 150, "b": 150, "c": 900}, 6, 150, ""},
		{"CPU of a pod that just became Ready, sampled before it was: set aside, idle on scale up", 2, 50,
			[]*api.Pod{testPod("a", 100), justStarted(testPod("b", 100), api.ConditionTrue)}, map[string]int64{"a": 150, "b": 900}, 3, 150, ""},
		{"CPU of an unready pod in its initialization period: set aside", 2, 50,
			[]*api.Pod{testPod("a", 100), justStarted(testPod("b", 100), api.ConditionFalse)}, map[string]int64{"a": 40, "b": 900}, 1, 40, ""},
		{"no pods", 2, 50, nil, map[string]int64{}, 0, 0, "no pods returned by selector while calculating replica count"},
		{"only unready pods", 2, 50, []*api.Pod{pending(testPod("a", 100))}, map[string]int64{"a": 10}, 0, 0,
			"did not receive metrics for targeted pods (pods might be unready)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := resourceUtilizationReplicas(tt.currentReplicas, tt.target, api.ResourceCPU, "", tt.pods, usage(tt.usage), defaultCalc, t0)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.replicas != tt.wantReplicas || p.utilization != tt.wantUtilization {
				t.Errorf("replicas, utilization = %d, %d%%; want %d, %d%% (%+v)", p.replicas, p.utilization, tt.wantReplicas, tt.wantUtilization, p)
			}
		})
	}
}

// TestResourceUtilizationNeedsRequests: utilization is a share of the
// request, so a container without one is an error, upstream's words.
func TestResourceUtilizationNeedsRequests(t *testing.T) {
	pod := testPod("a", 100)
	pod.Spec.Containers[0].Resources.Requests = nil
	_, err := resourceUtilizationReplicas(1, 50, api.ResourceCPU, "", []*api.Pod{pod}, usage(map[string]int64{"a": 10}), defaultCalc, t0)
	if err == nil || err.Error() != "missing request for cpu in container app of Pod a" {
		t.Errorf("err = %v", err)
	}
}

// TestResourceAverageValueReplicas covers an AverageValue target.
func TestResourceAverageValueReplicas(t *testing.T) {
	pods := func(n int) []*api.Pod {
		var out []*api.Pod
		for i := range n {
			out = append(out, testPod(fmt.Sprintf("p%d", i), 100))
		}
		return out
	}
	tests := []struct {
		name         string
		current      int32
		pods         []*api.Pod
		usage        map[string]int64
		wantReplicas int32
		wantAverage  int64
	}{
		{"2 pods at 300m, target 200m → 3", 2, pods(2), map[string]int64{"p0": 300, "p1": 300}, 3, 300},
		{"within tolerance", 2, pods(2), map[string]int64{"p0": 210, "p1": 210}, 2, 210},
		{"scale down with a missing pod assumed at the target", 3, pods(3), map[string]int64{"p0": 50, "p1": 50}, 2, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := resourceAverageValueReplicas(tt.current, 200, api.ResourceMemory, tt.pods, usage(tt.usage), defaultCalc, t0)
			if err != nil {
				t.Fatal(err)
			}
			if p.replicas != tt.wantReplicas || p.average != tt.wantAverage {
				t.Errorf("replicas, average = %d, %d; want %d, %d", p.replicas, p.average, tt.wantReplicas, tt.wantAverage)
			}
		})
	}
}

// TestContainerResourceUtilization: only the named container's request counts.
func TestContainerResourceUtilization(t *testing.T) {
	pod := testPod("a", 100)
	pod.Spec.Containers = append(pod.Spec.Containers, api.Container{Name: "sidecar", Resources: api.ResourceRequirements{
		Requests: api.ResourceList{api.ResourceCPU: api.NewMilliQuantity(900, api.DecimalSI)}}})
	p, err := resourceUtilizationReplicas(1, 50, api.ResourceCPU, "app", []*api.Pod{pod}, usage(map[string]int64{"a": 100}), defaultCalc, t0)
	if err != nil || p.utilization != 100 || p.replicas != 2 {
		t.Errorf("container utilization = %+v, %v; want 100%% → 2 replicas", p, err)
	}
}

// TestPerDirectionTolerance: an HPA's behavior may set each direction's
// tolerance (upstream 1.33): 5% above target scales up with a 0.01
// scale-up tolerance; 5% below stays with the default scale-down one.
func TestPerDirectionTolerance(t *testing.T) {
	c := &Controller{calc: defaultCalc}
	up := api.MustParseQuantity("0.01")
	opts := c.calcFor(&api.HorizontalPodAutoscalerBehavior{ScaleUp: &api.HPAScalingRules{Tolerance: &up}})
	pods := []*api.Pod{testPod("a", 100), testPod("b", 100)}
	p, err := resourceUtilizationReplicas(10, 50, api.ResourceCPU, "", pods, usage(map[string]int64{"a": 53, "b": 53}), opts, t0)
	if err != nil || p.replicas != 3 {
		t.Errorf("106%% with a 1%% scale-up tolerance: %+v, %v; want ceil(1.06 × 2) = 3", p, err)
	}
	p, err = resourceUtilizationReplicas(2, 50, api.ResourceCPU, "", pods, usage(map[string]int64{"a": 47, "b": 47}), opts, t0)
	if err != nil || p.replicas != 2 {
		t.Errorf("94%% with the default scale-down tolerance: %+v, %v; want no change", p, err)
	}
}
