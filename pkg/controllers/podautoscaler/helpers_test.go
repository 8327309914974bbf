package podautoscaler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/events"
	"kplane/test/framework/fakeapi"
)

// These tests follow sample-controller's fixture pattern: the HPA and its
// pods go into the fake apiserver and the caches, the target's scale and
// the pods' metrics into two small fakes, one sync runs, and the test
// checks the API writes, the scale written, the Events and the decision.
// Time is a fake clock the test steps.

// fakeScales is a ScaleClient over one map of scales by "resource/name".
type fakeScales struct {
	mu                  sync.Mutex
	scales              map[string]*api.Scale
	updates             []string // "deployments/web 6", in order
	failGet, failUpdate error
}

func (f *fakeScales) GetScale(_ context.Context, res client.Resource, namespace, name string) (*api.Scale, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failGet != nil {
		return nil, f.failGet
	}
	s, ok := f.scales[res.Resource+"/"+name]
	if !ok {
		return nil, fmt.Errorf("%s %q not found", res.Resource, name)
	}
	return api.DeepCopy(s), nil
}

func (f *fakeScales) UpdateScale(_ context.Context, res client.Resource, namespace string, scale *api.Scale) (*api.Scale, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failUpdate != nil {
		return nil, f.failUpdate
	}
	f.updates = append(f.updates, fmt.Sprintf("%s/%s %d", res.Resource, scale.Name, scale.Spec.Replicas))
	f.scales[res.Resource+"/"+scale.Name] = api.DeepCopy(scale)
	return scale, nil
}

// setReplicas is the workload controller catching up: spec and status.
func (f *fakeScales) setReplicas(key string, n int32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scales[key].Spec.Replicas, f.scales[key].Status.Replicas = n, n
}

// fakeMetrics answers every ResourceMetric with figures (or err).
type fakeMetrics struct {
	mu       sync.Mutex
	figures  PodMetricsInfo
	err      error
	selector string
}

func (f *fakeMetrics) ResourceMetric(_ context.Context, _ api.ResourceName, _, selector, _ string) (PodMetricsInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.selector = selector
	if f.err != nil {
		return nil, f.err
	}
	return copyMetrics(f.figures), nil
}

func (f *fakeMetrics) set(figures map[string]int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.figures, f.err = usage(figures), nil
}

// fixture is a controller on a fakeapi server with fake scales, metrics
// and clock.
type fixture struct {
	server     *fakeapi.Server
	clock      *clock.Fake
	recorder   *events.FakeRecorder
	scales     *fakeScales
	metrics    *fakeMetrics
	controller *Controller
	eventsSeen int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	clk := clock.NewFake(t0)
	server := fakeapi.New(t, fakeapi.WithClock(clk))
	f := &fixture{server: server, clock: clk, recorder: &events.FakeRecorder{},
		scales:  &fakeScales{scales: map[string]*api.Scale{"deployments/web": webScale(2)}},
		metrics: &fakeMetrics{err: errors.New("no metrics returned from resource metrics API")}}
	ctrl, err := New(server.Client(), server.Informers(), f.recorder, Options{Logger: slog.New(slog.DiscardHandler), Clock: clk,
		Metrics: f.metrics, Scales: f.scales})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	f.controller = ctrl
	return f
}

// sync runs one sync of default/web at the clock's time; it returns the
// sync's error (a failed HPA is not an error of the test).
func (f *fixture) sync(t *testing.T) error {
	t.Helper()
	return f.controller.sync(context.Background(), "default/web")
}

// hpa reads the HPA as the apiserver now has it, and puts it back in the
// cache as the informer would.
func (f *fixture) hpa(t *testing.T) *api.HorizontalPodAutoscaler {
	t.Helper()
	h, ok := fakeapi.Get[*api.HorizontalPodAutoscaler](t, f.server, "default", "web")
	if !ok {
		t.Fatal("hpa default/web is gone")
	}
	f.server.Cache(t, h)
	return h
}

// events returns the events recorded since the last call.
func (f *fixture) events() []string {
	all := f.recorder.Events()
	fresh := all[f.eventsSeen:]
	f.eventsSeen = len(all)
	return fresh
}

// webScale is the scale of Deployment web at n replicas.
func webScale(n int32) *api.Scale {
	return &api.Scale{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ScaleSpec{Replicas: n}, Status: api.ScaleStatus{Replicas: n, Selector: "app=web"}}
}

// webHPA is `kubectl autoscale deploy web --cpu-percent=50 --min=1 --max=10`.
func webHPA(behavior *api.HorizontalPodAutoscalerBehavior) *api.HorizontalPodAutoscaler {
	return &api.HorizontalPodAutoscaler{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", Generation: 1, ResourceVersion: "1"},
		Spec: api.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: api.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    ptr[int32](1), MaxReplicas: 10,
			Metrics:  []api.MetricSpec{cpuTarget(50)},
			Behavior: behavior,
		},
	}
}

func cpuTarget(percent int32) api.MetricSpec {
	return api.MetricSpec{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{Name: api.ResourceCPU,
		Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: &percent}}}
}

// defaultBehavior is what the apiserver fills into a given behavior.
func defaultBehavior() *api.HorizontalPodAutoscalerBehavior {
	return &api.HorizontalPodAutoscalerBehavior{ScaleUp: api.DefaultHPAScaleUpRules(), ScaleDown: api.DefaultHPAScaleDownRules()}
}

// webPods are n Ready pods of web requesting 100m each: web-0, web-1, …
func webPods(n int) []api.Object {
	var out []api.Object
	for i := range n {
		out = append(out, testPod(fmt.Sprintf("web-%d", i), 100))
	}
	return out
}

// condition finds an HPA condition by type.
func conditionOf(hpa *api.HorizontalPodAutoscaler, t api.HorizontalPodAutoscalerConditionType) api.HorizontalPodAutoscalerCondition {
	for _, c := range hpa.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return api.HorizontalPodAutoscalerCondition{}
}

// expectCondition fails unless hpa's condition t has status and reason.
func expectCondition(t *testing.T, hpa *api.HorizontalPodAutoscaler, ct api.HorizontalPodAutoscalerConditionType, status api.ConditionStatus, reason string) {
	t.Helper()
	if c := conditionOf(hpa, ct); c.Status != status || c.Reason != reason {
		t.Errorf("condition %s = %s %s (%s), want %s %s", ct, c.Status, c.Reason, c.Message, status, reason)
	}
}
