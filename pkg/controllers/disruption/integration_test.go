package disruption_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/disruption"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 20 * time.Second

// The controller against a real apiserver, with the eviction subresource
// between them: a budget minAvailable 2 over 3 Ready pods gets
// disruptionsAllowed 1; one eviction takes it (the apiserver writes 0 and
// the pod into disruptedPods), the next is refused with 429; once the
// evicted pod is gone the controller drops the entry, and a replacement
// turning Ready gives the disruption back.
func TestBudgetAndEvictionTogether(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, func(cfg *client.Config) { cfg.MaxRetries = -1 })
	ctx := context.Background()
	controllertest.RunController(t, c, disruption.EventSource, 1,
		func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*disruption.Controller, error) {
			return disruption.New(c, f, rec, disruption.Options{Logger: logger})
		})

	newPod := func(name string) {
		t.Helper()
		zero := int64(0)
		pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{NodeName: "node1", TerminationGracePeriodSeconds: &zero, Containers: []api.Container{{Name: "app", Image: "nginx"}}}}
		if _, err := c.Pods("default").Create(ctx, pod, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		controllertest.ReportPodStatus(t, c, "default", name, "10.0.0.1", true)
	}
	for _, name := range []string{"web-1", "web-2", "web-3"} {
		newPod(name)
	}
	two := api.FromInt(2)
	if _, err := c.PodDisruptionBudgets("default").Create(ctx, &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Name: "web"},
		Spec: api.PodDisruptionBudgetSpec{MinAvailable: &two, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
		client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForStatus := func(want string) {
		t.Helper()
		framework.Eventually(t, waitTimeout, func() (bool, string) {
			pdb, err := c.PodDisruptionBudgets("default").Get(ctx, "web", client.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			s := pdb.Status
			got := fmt.Sprintf("healthy %d, desired %d, expected %d, allowed %d, disrupted %d",
				s.CurrentHealthy, s.DesiredHealthy, s.ExpectedPods, s.DisruptionsAllowed, len(s.DisruptedPods))
			return got == want, "status: " + got
		})
	}
	waitForStatus("healthy 3, desired 2, expected 3, allowed 1, disrupted 0")

	evict := func(name string) error {
		return c.Evict(ctx, &api.Eviction{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}})
	}
	if err := evict("web-1"); err != nil {
		t.Fatalf("first eviction: %v", err)
	}
	err := evict("web-2")
	if !apierrors.IsTooManyRequests(err) {
		t.Fatalf("second eviction: %v, want 429", err)
	}
	// Grace 0 and no finalizers: web-1 is gone at once; the controller
	// drops its entry and counts 2 healthy.
	waitForStatus("healthy 2, desired 2, expected 2, allowed 0, disrupted 0")

	newPod("web-4")
	waitForStatus("healthy 3, desired 2, expected 3, allowed 1, disrupted 0")
	if err := evict("web-2"); err != nil {
		t.Fatalf("eviction after the replacement is Ready: %v", err)
	}
}
