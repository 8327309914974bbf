package namespace_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/namespace"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 20 * time.Second

// startController runs the namespace controller in-process against a, with
// no deletion grace period and a short recheck so the test runs in seconds.
func startController(t *testing.T, a *framework.APIServer) {
	t.Helper()
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "namespace-controller-test" })
	controllertest.RunController(t, c, "", 2, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*namespace.Controller, error) {
		return namespace.New(c, f, rec, namespace.Options{
			Logger:              logger,
			DeletionGracePeriod: -1,
			MaxRecheckDelay:     200 * time.Millisecond,
		})
	})
}

func labels() map[string]string { return map[string]string{"app": "web"} }

func podSpec() api.PodSpec {
	return api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}}
}

// populate creates a Deployment, a Service, a ConfigMap, a pod bound to a
// node (its deletion is graceful: a kubelet must confirm it) and a pod no
// scheduler placed (deleted at once) in ns.
func populate(t *testing.T, c *client.Client, ns string) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}}, client.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	replicas := int32(1)
	dep := &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: ns},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labels()},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: labels()}, Spec: podSpec()},
		},
	}
	if _, err := c.Deployments(ns).Create(ctx, dep, client.CreateOptions{}); err != nil {
		t.Fatalf("create deployment: %v", err)
	}
	svc := &api.Service{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: ns},
		Spec:       api.ServiceSpec{Selector: labels(), Ports: []api.ServicePort{{Port: 80}}},
	}
	if _, err := c.Services(ns).Create(ctx, svc, client.CreateOptions{}); err != nil {
		t.Fatalf("create service: %v", err)
	}
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: ns}, Data: map[string]string{"k": "v"}}
	if _, err := c.ConfigMaps(ns).Create(ctx, cm, client.CreateOptions{}); err != nil {
		t.Fatalf("create configmap: %v", err)
	}
	running := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "running", Namespace: ns, Labels: labels()}, Spec: podSpec()}
	running.Spec.NodeName = "node-1"
	pending := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "pending", Namespace: ns, Labels: labels()}, Spec: podSpec()}
	for _, p := range []*api.Pod{running, pending} {
		if _, err := c.Pods(ns).Create(ctx, p, client.CreateOptions{}); err != nil {
			t.Fatalf("create pod %s: %v", p.Name, err)
		}
	}
}

// contentCounts lists how many objects of each kind the test created are left.
func contentCounts(t *testing.T, c *client.Client, ns string) string {
	t.Helper()
	ctx := context.Background()
	var parts []string
	for _, res := range []client.Resource{client.DeploymentsResource, client.ServicesResource, client.ConfigMapsResource, client.PodsResource} {
		list, err := c.Dynamic(res).Namespace(ns).List(ctx, client.ListOptions{})
		if err != nil {
			t.Fatalf("list %s: %v", res, err)
		}
		parts = append(parts, fmt.Sprintf("%s=%d", res.Resource, len(list.Items)))
	}
	return strings.Join(parts, " ")
}

func condition(ns *api.Namespace, t api.NamespaceConditionType) *api.NamespaceCondition {
	for i := range ns.Status.Conditions {
		if ns.Status.Conditions[i].Type == t {
			return &ns.Status.Conditions[i]
		}
	}
	return nil
}

// Deleting a namespace turns it Terminating, refuses new content, deletes
// everything in it, waits for the pod a kubelet must stop (reporting it in
// the NamespaceContentRemaining condition), and then the namespace goes.
func TestNamespaceDeletionEmptiesAndRemovesIt(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	const ns = "shop"
	populate(t, c, ns)
	startController(t, a)

	if err := c.Namespaces().Delete(ctx, ns, client.DeleteOptions{}); err != nil {
		t.Fatalf("delete namespace: %v", err)
	}
	got, err := c.Namespaces().Get(ctx, ns, client.GetOptions{})
	if err != nil {
		t.Fatalf("get namespace right after delete: %v", err)
	}
	if got.Status.Phase != api.NamespaceTerminating || got.DeletionTimestamp == nil {
		t.Fatalf("namespace after delete: phase %q, deletionTimestamp %v; want Terminating and set", got.Status.Phase, got.DeletionTimestamp)
	}

	// Admission refuses new content with upstream's message.
	_, err = c.ConfigMaps(ns).Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "late", Namespace: ns}}, client.CreateOptions{})
	want := "unable to create new content in namespace shop because it is being terminated"
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("create in terminating namespace: err = %v, want Forbidden containing %q", err, want)
	}

	// Everything but the bound pod goes; the pod is marked, and reported.
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		cur, err := c.Namespaces().Get(ctx, ns, client.GetOptions{})
		if err != nil {
			return false, fmt.Sprintf("get namespace: %v", err)
		}
		cond := condition(cur, api.NamespaceContentRemaining)
		counts := contentCounts(t, c, ns)
		ok := cond != nil && cond.Status == api.ConditionTrue &&
			cond.Message == "Some resources are remaining: pods. has 1 resource instances" &&
			counts == "deployments=0 services=0 configmaps=0 pods=1"
		return ok, fmt.Sprintf("condition %+v, content %s", cond, counts)
	})
	pod, err := c.Pods(ns).Get(ctx, "running", client.GetOptions{})
	if err != nil {
		t.Fatalf("get bound pod: %v", err)
	}
	if pod.DeletionTimestamp == nil {
		t.Fatal("bound pod not marked for deletion")
	}
	if _, err := c.Namespaces().Get(ctx, ns, client.GetOptions{}); err != nil {
		t.Fatalf("namespace gone while a pod remains: %v", err)
	}

	// Act as the pod's kubelet: the containers stopped, confirm the deletion.
	zero := int64(0)
	if err := c.Pods(ns).Delete(ctx, "running", client.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatalf("kubelet's final pod delete: %v", err)
	}

	framework.Eventually(t, waitTimeout, func() (bool, string) {
		cur, err := c.Namespaces().Get(ctx, ns, client.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, ""
		}
		if err != nil {
			return false, fmt.Sprintf("get namespace: %v", err)
		}
		return false, fmt.Sprintf("namespace still there: phase %s, finalizers %v, conditions %+v", cur.Status.Phase, cur.Spec.Finalizers, cur.Status.Conditions)
	})
	if counts := contentCounts(t, c, ns); counts != "deployments=0 services=0 configmaps=0 pods=0" {
		t.Fatalf("content after the namespace went: %s", counts)
	}

	// The name is free again, and a new namespace of that name is Active.
	fresh, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}}, client.CreateOptions{})
	if err != nil {
		t.Fatalf("re-create namespace: %v", err)
	}
	if fresh.Status.Phase != api.NamespaceActive {
		t.Fatalf("re-created namespace phase %s, want Active", fresh.Status.Phase)
	}
}

// A namespace that is not being deleted is left alone.
func TestActiveNamespaceIsUntouched(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	populate(t, c, "keep")
	startController(t, a)

	// Give the controller time to (wrongly) act, then check nothing changed.
	time.Sleep(500 * time.Millisecond)
	if counts := contentCounts(t, c, "keep"); counts != "deployments=1 services=1 configmaps=1 pods=2" {
		t.Fatalf("content of an active namespace changed: %s", counts)
	}
	ns, err := c.Namespaces().Get(ctx, "keep", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ns.Status.Phase != api.NamespaceActive || len(ns.Status.Conditions) != 0 {
		t.Fatalf("active namespace status changed: %+v", ns.Status)
	}
}
