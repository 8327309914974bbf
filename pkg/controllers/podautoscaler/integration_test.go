package podautoscaler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/podautoscaler"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

// fixedMetrics answers every pod with 150m of CPU: 150% of its 100m request.
type fixedMetrics struct{ mu sync.Mutex }

func (f *fixedMetrics) ResourceMetric(_ context.Context, _ api.ResourceName, namespace, selector, _ string) (podautoscaler.PodMetricsInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	info := podautoscaler.PodMetricsInfo{}
	// The selector is app=<kind>; each workload has pods <kind>-0 and -1.
	app := selector[len("app="):]
	for i := range 2 {
		info[fmt.Sprintf("%s-%d", app, i)] = podautoscaler.PodMetric{Value: 150, Timestamp: time.Now(), Window: 15 * time.Second}
	}
	return info, nil
}

// workloads are the four scalable kinds, each with 2 replicas of app=<kind>.
var workloads = []struct {
	resource client.Resource
	kind     string
	doc      string
}{
	{client.DeploymentsResource, "Deployment", `{"spec":{"replicas":2,"selector":{"matchLabels":{"app":"deployment"}},
		"template":{"metadata":{"labels":{"app":"deployment"}},"spec":{"containers":[{"name":"app","image":"nginx"}]}}}}`},
	{client.ReplicaSetsResource, "ReplicaSet", `{"spec":{"replicas":2,"selector":{"matchLabels":{"app":"replicaset"}},
		"template":{"metadata":{"labels":{"app":"replicaset"}},"spec":{"containers":[{"name":"app","image":"nginx"}]}}}}`},
	{client.StatefulSetsResource, "StatefulSet", `{"spec":{"replicas":2,"serviceName":"statefulset","selector":{"matchLabels":{"app":"statefulset"}},
		"template":{"metadata":{"labels":{"app":"statefulset"}},"spec":{"containers":[{"name":"app","image":"nginx"}]}}}}`},
	{client.ReplicationControllersResource, "ReplicationController", `{"spec":{"replicas":2,"selector":{"app":"replicationcontroller"},
		"template":{"metadata":{"labels":{"app":"replicationcontroller"}},"spec":{"containers":[{"name":"app","image":"nginx"}]}}}}`},
}

// Against a real apiserver, the HPA scales each of the four scalable kinds
// through its scale subresource: 2 pods at 150% of their request against a
// 50% target → 6 replicas, with the status and Event upstream writes.
func TestScalesEveryScalableKind(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "hpa-test" })
	ctx := context.Background()
	started := api.NewTime(time.Now().Add(-time.Hour))
	for _, w := range workloads {
		name := w.resource.Resource
		obj := map[string]any{}
		if err := json.Unmarshal([]byte(w.doc), &obj); err != nil {
			t.Fatal(err)
		}
		obj["apiVersion"], obj["kind"] = w.resource.GroupVersion(), w.kind
		obj["metadata"] = map[string]any{"name": name}
		body, _ := json.Marshal(obj)
		if r := a.Do(t, "POST", fmt.Sprintf("%s/namespaces/default/%s", apiPrefix(w.resource), w.resource.Resource), body); r.Code != 201 {
			t.Fatalf("create %s: %d %s", w.kind, r.Code, r.Body)
		}
		app := map[string]string{"deployments": "deployment", "replicasets": "replicaset", "statefulsets": "statefulset",
			"replicationcontrollers": "replicationcontroller"}[w.resource.Resource]
		for i := range 2 {
			pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("%s-%d", app, i), Namespace: "default", Labels: map[string]string{"app": app}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx", Resources: api.ResourceRequirements{
					Requests: api.ResourceList{api.ResourceCPU: api.MustParseQuantity("100m")}}}}}}
			created, err := c.Pods("default").Create(ctx, pod, client.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			created.Status = api.PodStatus{Phase: api.PodRunning, StartTime: &started, Conditions: []api.PodCondition{
				{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: started}}}
			if _, err := c.Pods("default").UpdateStatus(ctx, created, client.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		hpa := &api.HorizontalPodAutoscaler{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
			Spec: api.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: api.CrossVersionObjectReference{APIVersion: w.resource.GroupVersion(), Kind: w.kind, Name: name},
				MaxReplicas:    10,
				Metrics: []api.MetricSpec{{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{Name: api.ResourceCPU,
					Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: new(int32(50))}}}},
				Behavior: &api.HorizontalPodAutoscalerBehavior{},
			}}
		if _, err := c.HorizontalPodAutoscalers("default").Create(ctx, hpa, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	controllertest.RunController(t, c, podautoscaler.EventSource, 2, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*podautoscaler.Controller, error) {
		return podautoscaler.New(c, f, rec, podautoscaler.Options{Logger: logger, Metrics: &fixedMetrics{}})
	})

	for _, w := range workloads {
		name := w.resource.Resource
		framework.Eventually(t, 20*time.Second, func() (bool, string) {
			scale, err := c.GetScale(ctx, w.resource, "default", name)
			if err != nil {
				return false, err.Error()
			}
			hpa, err := c.HorizontalPodAutoscalers("default").Get(ctx, name, client.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			return scale.Spec.Replicas == 6 && hpa.Status.DesiredReplicas == 6,
				fmt.Sprintf("%s: scale %d, hpa status %+v", w.kind, scale.Spec.Replicas, hpa.Status)
		})
	}
	framework.Eventually(t, 20*time.Second, func() (bool, string) {
		list, err := c.Events("default").List(ctx, client.ListOptions{FieldSelector: "reason=SuccessfulRescale"})
		if err != nil {
			return false, err.Error()
		}
		for _, e := range list.Items {
			if e.Message == "New size: 6; reason: cpu resource utilization (percentage of request) above target" &&
				e.Source.Component == podautoscaler.EventSource && e.InvolvedObject.Kind == "HorizontalPodAutoscaler" {
				return len(list.Items) == len(workloads), fmt.Sprintf("%d SuccessfulRescale events", len(list.Items))
			}
		}
		return false, fmt.Sprintf("events: %+v", list.Items)
	})
}

// apiPrefix is /api/v1 or /apis/<group>/<version>.
func apiPrefix(r client.Resource) string {
	if r.Group == "" {
		return "/api/" + r.Version
	}
	return "/apis/" + r.Group + "/" + r.Version
}
