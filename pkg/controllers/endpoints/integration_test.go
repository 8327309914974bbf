package endpoints_test

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
	"kplane/pkg/controllers/endpoints"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 15 * time.Second

// startController runs the endpoints controller in-process against a.
func startController(t *testing.T, a *framework.APIServer) {
	t.Helper()
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "endpoints-controller-test" })
	controllertest.RunController(t, c, "", 2, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*endpoints.Controller, error) {
		return endpoints.New(c, f, rec, endpoints.Options{Logger: logger})
	})
}

// createPod creates a pod labelled app=web whose container names port
// "http" as httpPort.
func createPod(t *testing.T, c *client.Client, name string, httpPort int32) {
	t.Helper()
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx",
			Ports: []api.ContainerPort{{Name: "http", ContainerPort: httpPort}}}}},
	}
	if _, err := c.Pods("default").Create(context.Background(), pod, client.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s: %v", name, err)
	}
}

// summary prints Endpoints as "ready=[ip:port …] notReady=[…]", sorted the
// way the controller writes them, with the pod each address points to.
func summary(ep *api.Endpoints) string {
	var ready, notReady []string
	for _, s := range ep.Subsets {
		for _, p := range s.Ports {
			for _, a := range s.Addresses {
				ready = append(ready, fmt.Sprintf("%s:%d(%s)", a.IP, p.Port, a.TargetRef.Name))
			}
			for _, a := range s.NotReadyAddresses {
				notReady = append(notReady, fmt.Sprintf("%s:%d(%s)", a.IP, p.Port, a.TargetRef.Name))
			}
		}
	}
	return fmt.Sprintf("ready=[%s] notReady=[%s]", strings.Join(ready, " "), strings.Join(notReady, " "))
}

// waitEndpoints waits until the Endpoints "web" read as want.
func waitEndpoints(t *testing.T, c *client.Client, want string) *api.Endpoints {
	t.Helper()
	var last *api.Endpoints
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		ep, err := c.Endpoints("default").Get(context.Background(), "web", client.GetOptions{})
		if err != nil {
			return false, fmt.Sprintf("get endpoints: %v", err)
		}
		last = ep
		got := summary(ep)
		return got == want, got
	})
	return last
}

// The Endpoints of a Service follow its pods: created empty, an address
// per pod that has an IP (ready ones in addresses, others in
// notReadyAddresses), the named targetPort resolved per pod, more pods
// more addresses, deleted pods removed — and gone with the Service.
func TestEndpointsFollowPods(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	startController(t, a)

	svc := &api.Service{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"team": "shop"}},
		Spec: api.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports:    []api.ServicePort{{Name: "http", Port: 80, TargetPort: api.FromString("http")}},
		},
	}
	if _, err := c.Services("default").Create(ctx, svc, client.CreateOptions{}); err != nil {
		t.Fatalf("create service: %v", err)
	}
	createPod(t, c, "web-a", 8080)
	createPod(t, c, "web-b", 9376)

	// No pod has an IP yet: the Endpoints exist, empty, with the labels.
	ep := waitEndpoints(t, c, "ready=[] notReady=[]")
	if ep.Labels["team"] != "shop" {
		t.Fatalf("endpoints labels %v, want the service's team=shop", ep.Labels)
	}

	controllertest.ReportPodStatus(t, c, "default", "web-a", "10.244.1.2", true)
	waitEndpoints(t, c, "ready=[10.244.1.2:8080(web-a)] notReady=[]")

	controllertest.ReportPodStatus(t, c, "default", "web-b", "10.244.2.3", false)
	ep = waitEndpoints(t, c, "ready=[10.244.1.2:8080(web-a)] notReady=[10.244.2.3:9376(web-b)]")
	if len(ep.Subsets) != 2 {
		t.Fatalf("got %d subsets, want 2 (the pods resolve http to different ports)", len(ep.Subsets))
	}
	ref := ep.Subsets[0].Addresses[0].TargetRef
	podA, _ := c.Pods("default").Get(ctx, "web-a", client.GetOptions{})
	if ref.Kind != "Pod" || ref.Namespace != "default" || ref.UID != podA.UID {
		t.Fatalf("targetRef %+v, want Pod default/web-a uid %s", ref, podA.UID)
	}

	controllertest.ReportPodStatus(t, c, "default", "web-b", "10.244.2.3", true)
	waitEndpoints(t, c, "ready=[10.244.1.2:8080(web-a) 10.244.2.3:9376(web-b)] notReady=[]")

	createPod(t, c, "web-c", 8080)
	controllertest.ReportPodStatus(t, c, "default", "web-c", "10.244.1.7", true)
	ep = waitEndpoints(t, c, "ready=[10.244.1.2:8080(web-a) 10.244.1.7:8080(web-c) 10.244.2.3:9376(web-b)] notReady=[]")
	if len(ep.Subsets) != 2 || len(ep.Subsets[0].Addresses) != 2 {
		t.Fatalf("subsets %+v, want web-a and web-c sharing the 8080 subset", ep.Subsets)
	}

	// A change that alters no Endpoints (a new label on the Service would;
	// an annotation does not) is synced without a write.
	rv := ep.ResourceVersion
	cur, err := c.Services("default").Get(ctx, "web", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Annotations = map[string]string{"note": "resync me"}
	if _, err := c.Services("default").Update(ctx, cur, client.UpdateOptions{}); err != nil {
		t.Fatalf("annotate service: %v", err)
	}
	// Then a change that does alter them, so we know the first was processed.
	cur, _ = c.Services("default").Get(ctx, "web", client.GetOptions{})
	cur.Labels["tier"] = "frontend"
	if _, err := c.Services("default").Update(ctx, cur, client.UpdateOptions{}); err != nil {
		t.Fatalf("label service: %v", err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		ep, err := c.Endpoints("default").Get(ctx, "web", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return ep.Labels["tier"] == "frontend", fmt.Sprintf("labels %v", ep.Labels)
	})
	after, _ := c.Endpoints("default").Get(ctx, "web", client.GetOptions{})
	if after.ResourceVersion == rv {
		t.Fatal("label change did not write the endpoints")
	}
	// Exactly one write since rv: the label change. List the history by
	// watching from rv: one MODIFIED event only.
	w, err := c.Endpoints("default").Watch(ctx, client.ListOptions{ResourceVersion: rv, FieldSelector: "metadata.name=web"})
	if err != nil {
		t.Fatalf("watch endpoints: %v", err)
	}
	var writes int
	timeout := time.After(500 * time.Millisecond)
collect:
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				break collect
			}
			if ev.Type == client.Modified {
				writes++
			}
		case <-timeout:
			break collect
		}
	}
	w.Stop()
	if writes != 1 {
		t.Fatalf("%d endpoints writes after resync and relabel, want 1 (the resync must not write)", writes)
	}

	// An unscheduled pod's deletion is immediate; its address goes.
	if err := c.Pods("default").Delete(ctx, "web-a", client.DeleteOptions{}); err != nil {
		t.Fatalf("delete pod: %v", err)
	}
	waitEndpoints(t, c, "ready=[10.244.1.7:8080(web-c) 10.244.2.3:9376(web-b)] notReady=[]")

	// Endpoints deleted by hand come back.
	if err := c.Endpoints("default").Delete(ctx, "web", client.DeleteOptions{}); err != nil {
		t.Fatalf("delete endpoints: %v", err)
	}
	waitEndpoints(t, c, "ready=[10.244.1.7:8080(web-c) 10.244.2.3:9376(web-b)] notReady=[]")

	// The Service goes, and its Endpoints with it.
	if err := c.Services("default").Delete(ctx, "web", client.DeleteOptions{}); err != nil {
		t.Fatalf("delete service: %v", err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		ep, err := c.Endpoints("default").Get(ctx, "web", client.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, ""
		}
		if err != nil {
			return false, err.Error()
		}
		return false, "still there: " + summary(ep)
	})
}

// Endpoints left behind by a Service deleted while no controller ran are
// cleaned up at start; those of a Service without a selector are kept.
func TestLeftoverEndpointsCleanedUpAtStart(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()

	manual := &api.Service{
		ObjectMeta: api.ObjectMeta{Name: "external-db", Namespace: "default"},
		Spec:       api.ServiceSpec{Ports: []api.ServicePort{{Port: 5432}}},
	}
	if _, err := c.Services("default").Create(ctx, manual, client.CreateOptions{}); err != nil {
		t.Fatalf("create selectorless service: %v", err)
	}
	for _, name := range []string{"ghost", "external-db"} {
		ep := &api.Endpoints{
			ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
			Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "192.0.2.10"}},
				Ports: []api.EndpointPort{{Port: 5432}}}},
		}
		if _, err := c.Endpoints("default").Create(ctx, ep, client.CreateOptions{}); err != nil {
			t.Fatalf("create endpoints %s: %v", name, err)
		}
	}
	startController(t, a)

	framework.Eventually(t, waitTimeout, func() (bool, string) {
		_, err := c.Endpoints("default").Get(ctx, "ghost", client.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprintf("get ghost: %v", err)
	})
	ep, err := c.Endpoints("default").Get(ctx, "external-db", client.GetOptions{})
	if err != nil {
		t.Fatalf("endpoints of the selectorless service: %v", err)
	}
	if len(ep.Subsets) != 1 || ep.Subsets[0].Addresses[0].IP != "192.0.2.10" {
		t.Fatalf("endpoints of the selectorless service changed: %+v", ep.Subsets)
	}
}
