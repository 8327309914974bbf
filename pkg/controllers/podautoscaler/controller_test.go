package podautoscaler

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/test/framework/controllertest"
)

const updateStatus = "update horizontalpodautoscalers/status web"

// The example: 2 pods requesting 100m each use 150m; against a 50%
// target that is a ratio of 3, so ceil(2 × 3) = 6 replicas, set in one step
// by the default behavior (4 pods or 100% per 15 s, whichever is more).
func TestScalesUpByUpstreamsFormula(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, append(webPods(2), webHPA(defaultBehavior()))...)
	f.metrics.set(map[string]int64{"web-0": 150, "web-1": 150})

	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.scales.updates, []string{"deployments/web 6"}) {
		t.Errorf("scale writes = %q, want deployments/web 6", f.scales.updates)
	}
	if f.metrics.selector != "app=web" {
		t.Errorf("metrics asked with selector %q, want the scale's app=web", f.metrics.selector)
	}
	f.server.ExpectActions(t, updateStatus)
	hpa := f.hpa(t)
	if hpa.Status.CurrentReplicas != 2 || hpa.Status.DesiredReplicas != 6 || hpa.Status.LastScaleTime == nil ||
		hpa.Status.ObservedGeneration == nil || *hpa.Status.ObservedGeneration != 1 {
		t.Errorf("status = %+v", hpa.Status)
	}
	if m := hpa.Status.CurrentMetrics; len(m) != 1 || m[0].Resource == nil || *m[0].Resource.Current.AverageUtilization != 150 ||
		m[0].Resource.Current.AverageValue.String() != "150m" {
		t.Errorf("currentMetrics = %+v", m)
	}
	expectCondition(t, hpa, api.AbleToScale, api.ConditionTrue, "SucceededRescale")
	expectCondition(t, hpa, api.ScalingActive, api.ConditionTrue, "ValidMetricFound")
	expectCondition(t, hpa, api.ScalingLimited, api.ConditionFalse, "DesiredWithinRange")
	if got := f.events(); !slices.Equal(got, []string{"Normal SuccessfulRescale New size: 6; reason: cpu resource utilization (percentage of request) above target"}) {
		t.Errorf("events = %q", got)
	}
	d := controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"hpa web: metrics propose 6, stabilized 6, final 6 → scale 2 → 6",
		map[string]string{"currentReplicas": "2", "desiredReplicas": "6", "proposal": "6"})
	joined := strings.Join(d.Lines, "\n")
	for _, want := range []string{"pod web-0: cpu 150m of 100m requested (150%)", "utilization 150% vs target 50% → ratio 3.00 over 2 ready pods → 6 replicas"} {
		if !strings.Contains(joined, want) {
			t.Errorf("decision lines lack %q:\n%s", want, joined)
		}
	}

	// A second sync with the same figures and the target caught up
	// changes nothing but the counts.
	f.scales.setReplicas("deployments/web", 6)
	f.server.Put(t, webPods(6)...)
	f.metrics.set(map[string]int64{"web-0": 50, "web-1": 50, "web-2": 50, "web-3": 50, "web-4": 50, "web-5": 50})
	f.clock.Step(15 * time.Second)
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	if len(f.scales.updates) != 1 {
		t.Errorf("scale writes = %q, want none more", f.scales.updates)
	}
	f.server.ExpectActions(t, updateStatus)
	if hpa := f.hpa(t); hpa.Status.CurrentReplicas != 6 || hpa.Status.DesiredReplicas != 6 {
		t.Errorf("status after settling = %+v", hpa.Status)
	}
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t) // nothing new to write
}

// When the load drops, the scale-down stabilization window (300 s) holds
// the count; once the window has passed the HPA scales down.
func TestScaleDownWaitsForTheStabilizationWindow(t *testing.T) {
	f := newFixture(t)
	f.scales.setReplicas("deployments/web", 6)
	f.server.Put(t, append(webPods(6), webHPA(nil))...)
	f.metrics.set(map[string]int64{"web-0": 100, "web-1": 100, "web-2": 100, "web-3": 100, "web-4": 100, "web-5": 100})
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	if len(f.scales.updates) != 1 || f.scales.updates[0] != "deployments/web 10" {
		t.Fatalf("scale writes = %q, want 10 (ratio 2, capped by max)", f.scales.updates)
	}
	expectCondition(t, f.hpa(t), api.ScalingLimited, api.ConditionTrue, "TooManyReplicas")
	f.events()

	f.scales.setReplicas("deployments/web", 10)
	f.server.Put(t, webPods(10)...)
	low := map[string]int64{}
	for _, p := range webPods(10) {
		low[p.GetObjectMeta().Name] = 10
	}
	f.metrics.set(low)
	f.clock.Step(time.Minute)
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	if len(f.scales.updates) != 1 {
		t.Errorf("scaled down within the window: %q", f.scales.updates)
	}
	hpa := f.hpa(t)
	expectCondition(t, hpa, api.AbleToScale, api.ConditionTrue, "ScaleDownStabilized")
	if hpa.Status.DesiredReplicas != 10 {
		t.Errorf("desiredReplicas within the window = %d, want 10", hpa.Status.DesiredReplicas)
	}

	f.clock.Step(5 * time.Minute)
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	if len(f.scales.updates) != 2 || f.scales.updates[1] != "deployments/web 2" {
		t.Errorf("scale writes = %q, want 2 after the window (10%% of 50%% over 10 pods)", f.scales.updates)
	}
	if got := f.events(); !slices.Equal(got, []string{"Normal SuccessfulRescale New size: 2; reason: All metrics below target"}) {
		t.Errorf("events = %q", got)
	}
}

// Without metrics the HPA does not scale and says why.
func TestNoMetricsSetsScalingActiveFalse(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, append(webPods(2), webHPA(nil))...)
	err := f.sync(t)
	if err == nil || !strings.Contains(err.Error(), "failed to compute desired number of replicas") {
		t.Errorf("sync error = %v", err)
	}
	if len(f.scales.updates) != 0 {
		t.Errorf("scaled without metrics: %q", f.scales.updates)
	}
	hpa := f.hpa(t)
	expectCondition(t, hpa, api.ScalingActive, api.ConditionFalse, "FailedGetResourceMetric")
	want := "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API"
	if c := conditionOf(hpa, api.ScalingActive); c.Message != want {
		t.Errorf("ScalingActive message = %q, want %q", c.Message, want)
	}
	if hpa.Status.CurrentReplicas != 2 || len(hpa.Status.CurrentMetrics) != 1 || hpa.Status.CurrentMetrics[0].Resource != nil {
		t.Errorf("status = %+v; want current 2 and an empty metric status (TARGETS <unknown>)", hpa.Status)
	}
	d := controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"hpa web: the metrics cannot decide (FailedGetResourceMetric) → keep 2 replicas", map[string]string{"reason": "FailedGetResourceMetric"})
	if len(d.Lines) != 1 || !strings.HasPrefix(d.Lines[0], "cpu resource utilization (percentage of request): failed to get cpu utilization") {
		t.Errorf("decision lines = %q", d.Lines)
	}
	got := f.events()
	if len(got) != 2 || !strings.HasPrefix(got[0], "Warning FailedGetResourceMetric failed to get cpu utilization") ||
		!strings.HasPrefix(got[1], "Warning FailedComputeMetricsReplicas failed to get cpu utilization") {
		t.Errorf("events = %q", got)
	}
}

// A Pods metric needs a custom metrics API, which kplane does not serve:
// ScalingActive False with upstream's reason and an honest message.
func TestPodsMetricIsUnsupported(t *testing.T) {
	f := newFixture(t)
	hpa := webHPA(nil)
	hpa.Spec.Metrics = []api.MetricSpec{{Type: api.PodsMetricSourceType, Pods: &api.PodsMetricSource{
		Metric: api.MetricIdentifier{Name: "http_requests"}, Target: api.MetricTarget{Type: api.AverageValueMetricType}}}}
	f.server.Put(t, append(webPods(2), hpa)...)
	if err := f.sync(t); err == nil {
		t.Error("sync succeeded with an unsupported metric")
	}
	c := conditionOf(f.hpa(t), api.ScalingActive)
	if c.Status != api.ConditionFalse || c.Reason != "FailedGetPodsMetric" || !strings.Contains(c.Message, "kplane serves no custom or external metrics API") {
		t.Errorf("ScalingActive = %+v", c)
	}
}

// A valid metric decides when another fails, but only upward: a failing
// metric blocks a scale down.
func TestFailingMetricBlocksScaleDownOnly(t *testing.T) {
	f := newFixture(t)
	hpa := webHPA(nil)
	hpa.Spec.Metrics = append(hpa.Spec.Metrics, api.MetricSpec{Type: api.ObjectMetricSourceType, Object: &api.ObjectMetricSource{
		Metric: api.MetricIdentifier{Name: "requests"}}})
	f.server.Put(t, append(webPods(2), hpa)...)
	f.metrics.set(map[string]int64{"web-0": 10, "web-1": 10})
	f.sync(t)
	if len(f.scales.updates) != 0 {
		t.Errorf("scaled down with a failing metric: %q", f.scales.updates)
	}
	expectCondition(t, f.hpa(t), api.ScalingActive, api.ConditionFalse, "FailedGetObjectMetric")

	f.metrics.set(map[string]int64{"web-0": 150, "web-1": 150})
	f.clock.Step(15 * time.Second)
	f.sync(t)
	if !slices.Equal(f.scales.updates, []string{"deployments/web 4"}) {
		t.Errorf("scale writes = %q, want 4 (legacy limit max(2 × 2, 4))", f.scales.updates)
	}
	hpa = f.hpa(t)
	expectCondition(t, hpa, api.ScalingActive, api.ConditionTrue, "ValidMetricFound")
	expectCondition(t, hpa, api.ScalingLimited, api.ConditionTrue, "ScaleUpLimit")
}

// A target scaled to zero by hand turns autoscaling off.
func TestZeroReplicasDisablesScaling(t *testing.T) {
	f := newFixture(t)
	f.scales.setReplicas("deployments/web", 0)
	f.server.Put(t, webHPA(nil))
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	expectCondition(t, f.hpa(t), api.ScalingActive, api.ConditionFalse, "ScalingDisabled")
	if len(f.scales.updates) != 0 {
		t.Errorf("scale writes = %q", f.scales.updates)
	}
}

// Replicas outside min/max are brought back without asking the metrics.
func TestReplicasAboveMaxAreBroughtDown(t *testing.T) {
	f := newFixture(t)
	f.scales.setReplicas("deployments/web", 15)
	f.server.Put(t, webHPA(nil))
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.scales.updates, []string{"deployments/web 10"}) {
		t.Errorf("scale writes = %q", f.scales.updates)
	}
	if got := f.events(); !slices.Equal(got, []string{"Normal SuccessfulRescale New size: 10; reason: Current number of replicas above Spec.MaxReplicas"}) {
		t.Errorf("events = %q", got)
	}
}

// A scale that cannot be read or written: AbleToScale False.
func TestScaleFailures(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, append(webPods(2), webHPA(nil))...)
	f.scales.failGet = errors.New("deployments.apps \"web\" not found")
	if err := f.sync(t); err == nil {
		t.Error("sync succeeded without a scale")
	}
	expectCondition(t, f.hpa(t), api.AbleToScale, api.ConditionFalse, "FailedGetScale")
	if got := f.events(); len(got) != 1 || !strings.HasPrefix(got[0], "Warning FailedGetScale failed to query scale subresource for Deployment/default/web") {
		t.Errorf("events = %q", got)
	}

	f.scales.failGet, f.scales.failUpdate = nil, errors.New("conflict")
	f.metrics.set(map[string]int64{"web-0": 150, "web-1": 150})
	if err := f.sync(t); err == nil {
		t.Error("sync succeeded although the scale write failed")
	}
	expectCondition(t, f.hpa(t), api.AbleToScale, api.ConditionFalse, "FailedUpdateScale")
	if got := f.events(); len(got) != 1 || got[0] != "Warning FailedRescale New size: 4; reason: cpu resource utilization (percentage of request) above target; error: conflict" {
		t.Errorf("events = %q", got)
	}
}
