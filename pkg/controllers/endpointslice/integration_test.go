package endpointslice_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/endpointslice"
	"kplane/pkg/controllers/garbagecollector"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 15 * time.Second

// startControllers runs the endpointslice controller (at most maxPerSlice
// endpoints per slice) and the garbage collector in-process against a.
func startControllers(t *testing.T, c *client.Client, maxPerSlice int) {
	t.Helper()
	h := controllertest.NewControllers(t, c)
	slicer, err := endpointslice.New(c, h.Factory, h.Recorder(""), endpointslice.Options{Logger: h.Logger, MaxEndpointsPerSlice: maxPerSlice})
	if err != nil {
		t.Fatal(err)
	}
	collector, err := garbagecollector.New(c, h.Factory, h.Recorder(""), garbagecollector.Options{Logger: h.Logger})
	if err != nil {
		t.Fatal(err)
	}
	h.Run(2, slicer, collector)
}

// createNode creates the Node pods run on, in zone-a.
func createNode(t *testing.T, c *client.Client, name string) {
	t.Helper()
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"topology.kubernetes.io/zone": "zone-a"}}}
	if _, err := c.Nodes().Create(context.Background(), node, client.CreateOptions{}); err != nil {
		t.Fatalf("create node: %v", err)
	}
}

// createPod creates a pod labelled app=web on node-1 whose container
// names port "http" as httpPort.
func createPod(t *testing.T, c *client.Client, name string, httpPort int32) {
	t.Helper()
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "web", Image: "nginx",
			Ports: []api.ContainerPort{{Name: "http", ContainerPort: httpPort}}}}},
	}
	if _, err := c.Pods("default").Create(context.Background(), pod, client.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s: %v", name, err)
	}
}

// listSlices lists the slices of Service "web".
func listSlices(t *testing.T, c *client.Client) ([]*api.EndpointSlice, error) {
	t.Helper()
	list, err := c.EndpointSlices("default").List(context.Background(), client.ListOptions{LabelSelector: api.LabelServiceName + "=web"})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// summary prints a Service's slices, sorted, as "ip:port(pod)" for ready
// endpoints and "!ip:port(pod)" for the others, one slice per "|"-separated
// group; a slice without endpoints prints as "-".
func summary(list []*api.EndpointSlice) string {
	var groups []string
	for _, s := range list {
		var eps []string
		for _, e := range s.Endpoints {
			for _, p := range s.Ports {
				mark := ""
				if !*e.Conditions.Ready {
					mark = "!"
				}
				eps = append(eps, fmt.Sprintf("%s%s:%d(%s)", mark, e.Addresses[0], *p.Port, e.TargetRef.Name))
			}
		}
		slices.Sort(eps)
		if len(eps) == 0 {
			eps = []string{"-"}
		}
		groups = append(groups, strings.Join(eps, " "))
	}
	slices.Sort(groups)
	return strings.Join(groups, " | ")
}

// waitSlices waits until the slices of "web" read as want and returns them.
func waitSlices(t *testing.T, c *client.Client, want string) []*api.EndpointSlice {
	t.Helper()
	var last []*api.EndpointSlice
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		list, err := listSlices(t, c)
		if err != nil {
			return false, fmt.Sprintf("list endpointslices: %v", err)
		}
		last = list
		got := summary(list)
		return got == want, got
	})
	return last
}

// The slices of a Service follow its pods: a placeholder while no pod has
// an IP, which the first pod's endpoint then fills, one slice per port
// list, conditions updated in place, a slice deleted by hand written
// again — and all gone with the Service, by the garbage collector.
func TestSlicesFollowPods(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	createNode(t, c, "node-1")
	startControllers(t, c, 0)

	svc := &api.Service{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"team": "shop"}},
		Spec: api.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports:    []api.ServicePort{{Name: "http", Port: 80, TargetPort: api.FromString("http")}},
		},
	}
	created, err := c.Services("default").Create(ctx, svc, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create service: %v", err)
	}
	createPod(t, c, "web-a", 8080)
	createPod(t, c, "web-b", 9376)

	// No pod has an IP yet: one empty placeholder, labelled and owned.
	placeholder := waitSlices(t, c, "-")[0]
	wantLabels := map[string]string{"team": "shop", api.LabelServiceName: "web", api.LabelManagedBy: "endpointslice-controller.k8s.io"}
	if !strings.HasPrefix(placeholder.Name, "web-") || len(placeholder.Name) != len("web-")+5 ||
		fmt.Sprint(placeholder.Labels) != fmt.Sprint(wantLabels) || placeholder.AddressType != api.AddressTypeIPv4 || placeholder.Generation != 1 {
		t.Fatalf("placeholder %s labels %v addressType %s generation %d", placeholder.Name, placeholder.Labels, placeholder.AddressType, placeholder.Generation)
	}
	if refs := placeholder.OwnerReferences; len(refs) != 1 || refs[0].UID != created.UID || !*refs[0].Controller || !*refs[0].BlockOwnerDeletion {
		t.Fatalf("ownerReferences %+v, want the Service as controller", refs)
	}

	// The first endpoint goes into the placeholder: same slice, next generation.
	controllertest.ReportPodStatus(t, c, "default", "web-a", "10.244.1.2", true)
	first := waitSlices(t, c, "10.244.1.2:8080(web-a)")[0]
	if first.Name != placeholder.Name || first.Generation != 2 {
		t.Fatalf("slice %s generation %d, want the placeholder %s at generation 2", first.Name, first.Generation, placeholder.Name)
	}
	ep := first.Endpoints[0]
	podA, _ := c.Pods("default").Get(ctx, "web-a", client.GetOptions{})
	if ep.TargetRef == nil || ep.TargetRef.UID != podA.UID || *ep.NodeName != "node-1" || *ep.Zone != "zone-a" ||
		!*ep.Conditions.Serving || *ep.Conditions.Terminating {
		t.Fatalf("endpoint %+v", ep)
	}

	// web-b resolves "http" to another port: a slice of its own.
	controllertest.ReportPodStatus(t, c, "default", "web-b", "10.244.2.3", false)
	waitSlices(t, c, "!10.244.2.3:9376(web-b) | 10.244.1.2:8080(web-a)")
	controllertest.ReportPodStatus(t, c, "default", "web-b", "10.244.2.3", true)
	waitSlices(t, c, "10.244.1.2:8080(web-a) | 10.244.2.3:9376(web-b)")

	// A slice deleted by hand is written again.
	list, _ := listSlices(t, c)
	if err := c.EndpointSlices("default").Delete(ctx, list[0].Name, client.DeleteOptions{}); err != nil {
		t.Fatalf("delete slice: %v", err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		list, err := listSlices(t, c)
		if err != nil {
			return false, err.Error()
		}
		return len(list) == 2 && summary(list) == "10.244.1.2:8080(web-a) | 10.244.2.3:9376(web-b)", summary(list)
	})

	// A Service change that alters no slice (an annotation) writes none.
	before, _ := listSlices(t, c)
	cur, _ := c.Services("default").Get(ctx, "web", client.GetOptions{})
	cur.Annotations = map[string]string{"note": "resync me"}
	if _, err := c.Services("default").Update(ctx, cur, client.UpdateOptions{}); err != nil {
		t.Fatalf("annotate service: %v", err)
	}
	// Then one that does (a pod is deleted), so we know the first was
	// processed. The pod is terminating: not ready, still serving while
	// it drains; then it is gone.
	if err := c.Pods("default").Delete(ctx, "web-b", client.DeleteOptions{}); err != nil {
		t.Fatalf("delete pod: %v", err)
	}
	draining := waitSlices(t, c, "!10.244.2.3:9376(web-b) | 10.244.1.2:8080(web-a)")
	for _, s := range draining {
		if e := s.Endpoints[0]; e.TargetRef.Name == "web-b" && (!*e.Conditions.Serving || !*e.Conditions.Terminating) {
			t.Errorf("terminating pod's conditions %+v, want serving and terminating", e.Conditions)
		}
	}
	forceDelete(t, c, "web-b")
	after := waitSlices(t, c, "10.244.1.2:8080(web-a)")
	for _, b := range before {
		for _, a := range after {
			if a.Name == b.Name && a.ResourceVersion != b.ResourceVersion {
				t.Errorf("slice %s rewritten (resourceVersion %s → %s) though its endpoints did not change", a.Name, b.ResourceVersion, a.ResourceVersion)
			}
		}
	}

	// The Service goes, and the garbage collector takes its slices.
	if err := c.Services("default").Delete(ctx, "web", client.DeleteOptions{}); err != nil {
		t.Fatalf("delete service: %v", err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		list, err := listSlices(t, c)
		if err != nil {
			return false, err.Error()
		}
		return len(list) == 0, fmt.Sprintf("%d slices left: %s", len(list), summary(list))
	})
}

// No slice holds more than MaxEndpointsPerSlice endpoints; scaling down
// shrinks or deletes slices rather than creating new ones.
func TestSlicesAreCapped(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	createNode(t, c, "node-1")
	startControllers(t, c, 2)

	svc := &api.Service{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []api.ServicePort{{Port: 80, TargetPort: api.FromInt(8080)}}},
	}
	if _, err := c.Services("default").Create(ctx, svc, client.CreateOptions{}); err != nil {
		t.Fatalf("create service: %v", err)
	}
	for i := 1; i <= 5; i++ {
		name := fmt.Sprintf("web-%d", i)
		createPod(t, c, name, 8080)
		controllertest.ReportPodStatus(t, c, "default", name, fmt.Sprintf("10.244.1.%d", i), true)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		list, err := listSlices(t, c)
		if err != nil {
			return false, err.Error()
		}
		total, sizes := 0, []int{}
		for _, s := range list {
			total += len(s.Endpoints)
			sizes = append(sizes, len(s.Endpoints))
		}
		slices.Sort(sizes)
		return total == 5 && slices.Equal(sizes, []int{1, 2, 2}), fmt.Sprintf("slice sizes %v", sizes)
	})

	for i := 1; i <= 4; i++ {
		forceDelete(t, c, fmt.Sprintf("web-%d", i))
	}
	waitSlices(t, c, "10.244.1.5:8080(web-5)")
}

// forceDelete deletes a pod at once, as its kubelet would once the
// containers stopped; a plain delete of a pod on a node only marks it
// terminating, and no kubelet runs here.
func forceDelete(t *testing.T, c *client.Client, name string) {
	t.Helper()
	zero := int64(0)
	if err := c.Pods("default").Delete(context.Background(), name, client.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatalf("delete pod %s: %v", name, err)
	}
}
