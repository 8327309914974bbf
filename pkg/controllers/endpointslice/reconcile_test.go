package endpointslice

import (
	"fmt"
	"maps"
	"testing"

	"kplane/pkg/api"
	"kplane/test/framework/controllertest"
)

// groupsFor computes the desired IPv4 groups of svc over pods, every node
// known.
func groupsFor(t *testing.T, svc *api.Service, pods ...*api.Pod) map[api.AddressType]map[string]*endpointGroup {
	t.Helper()
	groups, err := desiredGroups(svc, pods, api.AddressTypeIPv4, func(name string) (*api.Node, error) { return testNode(name), nil })
	if err != nil {
		t.Fatal(err)
	}
	return map[api.AddressType]map[string]*endpointGroup{api.AddressTypeIPv4: groups}
}

// manyPods returns n ready pods p000…, IPs 10.244.x.y.
func manyPods(n int) []*api.Pod {
	pods := make([]*api.Pod, n)
	for i := range pods {
		pods[i] = controllertest.WebPod(fmt.Sprintf("p%03d", i), fmt.Sprintf("10.244.%d.%d", i/200, i%200+1))
	}
	return pods
}

func endpointsOf(pods []*api.Pod) []api.Endpoint {
	out := make([]api.Endpoint, len(pods))
	for i, p := range pods {
		out[i] = endpointOf(p.Name, p.Status.PodIP)
	}
	return out
}

func expectPlan(t *testing.T, p plan, create, update, remove string) {
	t.Helper()
	if got := summary(p.create); got != create {
		t.Errorf("create:\n%s\nwant:\n%s", got, create)
	}
	if got := summary(p.update); got != update {
		t.Errorf("update:\n%s\nwant:\n%s", got, update)
	}
	if got := summary(p.delete); got != remove {
		t.Errorf("delete:\n%s\nwant:\n%s", got, remove)
	}
}

// A new Service gets one slice holding its pods in name order, labelled
// and owned as upstream's.
func TestPlanNewService(t *testing.T) {
	svc := controllertest.WebService()
	p := planService(svc, groupsFor(t, svc,
		controllertest.WebPod("b", "10.244.1.3", controllertest.NotReady),
		controllertest.WebPod("a", "10.244.1.2"),
	), nil, 100)
	expectPlan(t, p, "web-*: 10.244.1.2(a) !10.244.1.3(b) | http/8080", "", "")
	s := p.create[0]
	wantLabels := map[string]string{"team": "shop", api.LabelServiceName: "web", api.LabelManagedBy: ManagedByValue}
	if !maps.Equal(s.Labels, wantLabels) || s.AddressType != api.AddressTypeIPv4 || s.Namespace != "default" {
		t.Errorf("slice labels %v addressType %s namespace %q", s.Labels, s.AddressType, s.Namespace)
	}
	ref := s.OwnerReferences
	if len(ref) != 1 || ref[0].Kind != "Service" || ref[0].APIVersion != "v1" || ref[0].UID != "uid-svc" ||
		ref[0].Controller == nil || !*ref[0].Controller || ref[0].BlockOwnerDeletion == nil || !*ref[0].BlockOwnerDeletion {
		t.Errorf("ownerReferences %s", asJSON(ref))
	}
}

// A Service with no endpoints gets an empty placeholder slice, once; the
// placeholder becomes the first real slice when pods come.
func TestPlanPlaceholder(t *testing.T) {
	svc := controllertest.WebService()
	p := planService(svc, groupsFor(t, svc), nil, 100)
	expectPlan(t, p, "web-*:  | ", "", "")

	placeholder := newSlice(svc, api.AddressTypeIPv4, nil)
	placeholder.Name, placeholder.GenerateName, placeholder.UID, placeholder.ResourceVersion = "web-ph", "", "uid-ph", "3"
	noIP := controllertest.WebPod("a", "10.244.1.2", controllertest.NoIP)
	if p := planService(svc, groupsFor(t, svc, noIP), []*api.EndpointSlice{placeholder}, 100); !p.empty() {
		t.Errorf("the placeholder alone is rewritten: %+v", p)
	}
	p = planService(svc, groupsFor(t, svc, controllertest.WebPod("a", "10.244.1.2")), []*api.EndpointSlice{placeholder}, 100)
	expectPlan(t, p, "", "web-ph: 10.244.1.2(a) | http/8080", "")
	if p.update[0].ResourceVersion != "3" || p.update[0].UID != "uid-ph" {
		t.Errorf("reused placeholder lost its identity: rv %q uid %q", p.update[0].ResourceVersion, p.update[0].UID)
	}

	// And back: the last pod going turns the slice into the placeholder.
	p = planService(svc, groupsFor(t, svc), []*api.EndpointSlice{storedSlice("web-a", endpointOf("a", "10.244.1.2"))}, 100)
	expectPlan(t, p, "", "web-a:  | ", "")
}

// Slices that already say the right thing are not written: a sync is
// idempotent.
func TestPlanUnchanged(t *testing.T) {
	svc := controllertest.WebService()
	pods := []*api.Pod{controllertest.WebPod("a", "10.244.1.2"), controllertest.WebPod("b", "10.244.1.3")}
	current := []*api.EndpointSlice{storedSlice("web-a", endpointsOf(pods)...)}
	if p := planService(svc, groupsFor(t, svc, pods...), current, 100); !p.empty() {
		t.Errorf("plan for up-to-date slices: create %s update %s delete %s", summary(p.create), summary(p.update), summary(p.delete))
	}
}

// A pod changing readiness, a pod leaving and a pod arriving are one
// update of the slice, in place.
func TestPlanUpdatesInPlace(t *testing.T) {
	svc := controllertest.WebService()
	current := []*api.EndpointSlice{storedSlice("web-a", endpointOf("a", "10.244.1.2"), endpointOf("b", "10.244.1.3"), endpointOf("gone", "10.244.1.9"))}
	p := planService(svc, groupsFor(t, svc,
		controllertest.WebPod("a", "10.244.1.2"),
		controllertest.WebPod("b", "10.244.1.3", controllertest.NotReady),
		controllertest.WebPod("c", "10.244.1.4"),
	), current, 100)
	expectPlan(t, p, "", "web-a: 10.244.1.2(a) !10.244.1.3(b) 10.244.1.4(c) | http/8080", "")
	if p.update[0].ResourceVersion != "5" {
		t.Errorf("update without the cached resourceVersion: %q", p.update[0].ResourceVersion)
	}
}

// Changed Service labels are copied onto its slices; the reserved labels
// stay the controller's.
func TestPlanCopiesServiceLabels(t *testing.T) {
	svc := controllertest.WebService(func(s *api.Service) {
		s.Labels = map[string]string{"team": "cart", api.LabelServiceName: "impostor"}
	})
	pods := []*api.Pod{controllertest.WebPod("a", "10.244.1.2")}
	p := planService(svc, groupsFor(t, svc, pods...), []*api.EndpointSlice{storedSlice("web-a", endpointsOf(pods)...)}, 100)
	expectPlan(t, p, "", "web-a: 10.244.1.2(a) | http/8080", "")
	want := map[string]string{"team": "cart", api.LabelServiceName: "web", api.LabelManagedBy: ManagedByValue}
	if !maps.Equal(p.update[0].Labels, want) {
		t.Errorf("labels %v, want %v", p.update[0].Labels, want)
	}
	h := controllertest.WebService(controllertest.Headless)
	p = planService(h, groupsFor(t, h, pods...), nil, 100)
	if _, ok := p.create[0].Labels[headlessLabel]; !ok {
		t.Errorf("headless service's slice labels %v", p.create[0].Labels)
	}
}

// 250 endpoints fill slices of at most 100; scaling down empties and
// deletes a slice and shrinks another, leaving the third alone.
func TestPlanMaxEndpointsPerSlice(t *testing.T) {
	svc := controllertest.WebService()
	pods := manyPods(250)
	p := planService(svc, groupsFor(t, svc, pods...), nil, 100)
	if len(p.create) != 3 || len(p.create[0].Endpoints) != 100 || len(p.create[1].Endpoints) != 100 || len(p.create[2].Endpoints) != 50 {
		t.Fatalf("created %d slices: %s", len(p.create), summary(p.create))
	}

	current := []*api.EndpointSlice{
		storedSlice("web-a", endpointsOf(pods[:100])...),
		storedSlice("web-b", endpointsOf(pods[100:200])...),
		storedSlice("web-c", endpointsOf(pods[200:])...),
	}
	// Pods 190–249 go: web-c empties, web-b keeps 90, web-a is untouched.
	p = planService(svc, groupsFor(t, svc, pods[:190]...), current, 100)
	if len(p.create) != 0 || len(p.update) != 1 || p.update[0].Name != "web-b" || len(p.update[0].Endpoints) != 90 ||
		len(p.delete) != 1 || p.delete[0].Name != "web-c" {
		t.Fatalf("scale down: create %d, update %s, delete %s", len(p.create), summary(p.update), summary(p.delete))
	}
}

// New endpoints go into a slice being written anyway, else into the
// untouched slice they fill best, else into a new slice.
func TestPlanPlacesNewEndpoints(t *testing.T) {
	svc := controllertest.WebService()
	pods := manyPods(200)
	emptyish := storedSlice("web-a", endpointsOf(pods[:10])...)
	fullish := storedSlice("web-b", endpointsOf(pods[10:105])...)

	// Two new pods fit in web-b (95 → 97), the fullest that has room.
	p := planService(svc, groupsFor(t, svc, pods[:107]...), []*api.EndpointSlice{emptyish, fullish}, 100)
	if len(p.create) != 0 || len(p.update) != 1 || p.update[0].Name != "web-b" || len(p.update[0].Endpoints) != 97 {
		t.Fatalf("two new pods: create %d, update %s", len(p.create), summary(p.update))
	}

	// web-a is rewritten anyway (a pod left it), so it takes the new ones.
	p = planService(svc, groupsFor(t, svc, append(pods[1:105:105], pods[105:107]...)...), []*api.EndpointSlice{emptyish, fullish}, 100)
	if len(p.update) != 1 || p.update[0].Name != "web-a" || len(p.update[0].Endpoints) != 11 {
		t.Fatalf("new pods with a slice being rewritten: update %s", summary(p.update))
	}

	// Six new pods do not fit in web-b (95) but do in web-c (10).
	p = planService(svc, groupsFor(t, svc, pods[:111]...), []*api.EndpointSlice{storedSlice("web-b", endpointsOf(pods[:95])...),
		storedSlice("web-c", endpointsOf(pods[95:105])...)}, 100)
	if len(p.create) != 0 || len(p.update) != 1 || p.update[0].Name != "web-c" || len(p.update[0].Endpoints) != 16 {
		t.Fatalf("six new pods: create %s update %s", summary(p.create), summary(p.update))
	}

	// They fit in neither slice (95 and 98): a new slice.
	p = planService(svc, groupsFor(t, svc, pods[:199]...), []*api.EndpointSlice{storedSlice("web-b", endpointsOf(pods[:95])...),
		storedSlice("web-c", endpointsOf(pods[95:193])...)}, 100)
	if len(p.update) != 0 || len(p.create) != 1 || len(p.create[0].Endpoints) != 6 {
		t.Fatalf("six new pods, no room: create %s update %s", summary(p.create), summary(p.update))
	}
}

// Pods offering different ports land in different slices, one per port
// list.
func TestPlanGroupsByPorts(t *testing.T) {
	svc := controllertest.WebService(controllertest.ServicePorts(
		api.ServicePort{Name: "http", Port: 80, TargetPort: api.FromString("http"), Protocol: api.ProtocolTCP}))
	p := planService(svc, groupsFor(t, svc,
		controllertest.WebPod("a", "10.244.1.2"),
		controllertest.WebPod("b", "10.244.1.3", controllertest.WithPorts(api.ContainerPort{Name: "http", ContainerPort: 9090})),
		controllertest.WebPod("c", "10.244.1.4", controllertest.WithPorts()),
	), nil, 100)
	expectPlan(t, p, "web-*: 10.244.1.4(c) | \nweb-*: 10.244.1.2(a) | http/8080\nweb-*: 10.244.1.3(b) | http/9090", "", "")
}

// Slices of a deleted Service of the same name, and of an address type
// the Service dropped, are deleted. A create reuses a slice to be deleted
// only when this Service owns it and it has the same address type
// (addressType is immutable); here neither does.
func TestPlanDeletesForeignSlices(t *testing.T) {
	svc := controllertest.WebService()
	orphan := storedSlice("web-old", endpointOf("a", "10.244.1.2"))
	orphan.OwnerReferences[0].UID = "uid-old-svc"
	v6 := storedSlice("web-v6")
	v6.AddressType = api.AddressTypeIPv6
	p := planService(svc, groupsFor(t, svc, controllertest.WebPod("a", "10.244.1.2")), []*api.EndpointSlice{orphan, v6}, 100)
	expectPlan(t, p, "web-*: 10.244.1.2(a) | http/8080", "", "web-v6:  | http/8080\nweb-old: 10.244.1.2(a) | http/8080")

	// Its own slice with other ports is rewritten rather than replaced.
	own := storedSlice("web-a", endpointOf("a", "10.244.1.2"))
	own.Ports = []api.EndpointSlicePort{tcp("http", 9999)}
	p = planService(svc, groupsFor(t, svc, controllertest.WebPod("a", "10.244.1.2")), []*api.EndpointSlice{own}, 100)
	expectPlan(t, p, "", "web-a: 10.244.1.2(a) | http/8080", "")
}
