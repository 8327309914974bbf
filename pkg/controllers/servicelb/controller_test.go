package servicelb

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/cloudprovider"
	"kplane/pkg/cloudprovider/simulated"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

// These tests follow sample-controller's fixture pattern: objects go into
// the fake apiserver and the informers' caches (fakeapi's Put), one sync
// runs against a simulated cloud, and the test lists the API writes and
// the Events the controller made, in order.

type fixture struct {
	server     *fakeapi.Server
	cloud      *simulated.Cloud
	recorder   *controllertest.Recorder
	controller *Controller
}

func newFixture(t *testing.T, poolCIDR string) *fixture {
	t.Helper()
	server, cloud, rec := controllertest.NewCloudFixture(t, poolCIDR)
	ctrl, err := New(server.Client(), server.Informers(), rec, cloud, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	t.Cleanup(ctrl.nodeQueue.ShutDown)
	return &fixture{server: server, cloud: cloud, recorder: rec, controller: ctrl}
}

func lbService(opts ...func(*api.Service)) *api.Service {
	svc := &api.Service{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "1111-2222", ResourceVersion: "5"},
		Spec: api.ServiceSpec{Type: api.ServiceTypeLoadBalancer, ClusterIP: "10.96.0.20",
			Ports: []api.ServicePort{{Port: 80, Protocol: api.ProtocolTCP, NodePort: 30080}}},
	}
	for _, o := range opts {
		o(svc)
	}
	return svc
}

func withFinalizer(s *api.Service) {
	s.Finalizers = []string{cloudprovider.LoadBalancerCleanupFinalizer}
}

func readyNode(name string, ready api.ConditionStatus, labels map[string]string) *api.Node {
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: labels},
		Status: api.NodeStatus{Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: ready}}}}
}

func (f *fixture) sync(t *testing.T) error {
	t.Helper()
	return f.controller.sync(context.Background(), "default/web")
}

func (f *fixture) loadBalancers() []simulated.LoadBalancerView { return f.cloud.LoadBalancerViews() }

const (
	patchService = "patch services web"
	patchStatus  = "patch services/status web"
	ensuring     = "Normal EnsuringLoadBalancer Ensuring load balancer"
	ensured      = "Normal EnsuredLoadBalancer Ensured load balancer"
	deleting     = "Normal DeletingLoadBalancer Deleting load balancer"
	deleted      = "Normal DeletedLoadBalancer Deleted load balancer"
)

func TestSyncGivesALoadBalancerServiceAnAddressAndTheFinalizer(t *testing.T) {
	f := newFixture(t, simulated.DefaultLoadBalancerIPRange)
	f.server.Put(t, lbService(),
		readyNode("node1", api.ConditionTrue, nil),
		readyNode("node2", api.ConditionUnknown, nil),
		readyNode("node3", api.ConditionTrue, map[string]string{cloudprovider.LabelExcludeFromLoadBalancers: ""}))
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, patchService, patchStatus)
	f.recorder.ExpectEvents(t, ensuring, ensured)

	stored := fakeapi.Result[*api.Service](t, f.server, patchStatus)
	if !slices.Contains(stored.Finalizers, cloudprovider.LoadBalancerCleanupFinalizer) {
		t.Errorf("finalizers = %v, want the load-balancer-cleanup finalizer", stored.Finalizers)
	}
	ingress := stored.Status.LoadBalancer.Ingress
	if len(ingress) != 1 || ingress[0].IP != "198.51.100.1" || ingress[0].IPMode == nil || *ingress[0].IPMode != "VIP" {
		t.Fatalf("status.loadBalancer.ingress = %+v, want [{198.51.100.1 VIP}]", ingress)
	}
	lbs := f.loadBalancers()
	if len(lbs) != 1 || lbs[0].Name != "a11112222" || strings.Join(lbs[0].Nodes, ",") != "node1" {
		t.Fatalf("cloud load balancers = %+v, want one over node1 only (node2 not Ready, node3 excluded)", lbs)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"Service default/web is type LoadBalancer without a loadBalancerClass → ensure its load balancer over nodes node1, ports 80/TCP, address from the pool",
		map[string]string{"action": "ensure", "nodes": "1"})
}

// A second sync of a Service whose load balancer is in place writes
// nothing (its Events say Ensuring/Ensured again, as upstream's do).
func TestSyncIsIdempotent(t *testing.T) {
	f := newFixture(t, simulated.DefaultLoadBalancerIPRange)
	f.server.Put(t, lbService(), readyNode("node1", api.ConditionTrue, nil))
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	f.server.Put(t, fakeapi.Result[*api.Service](t, f.server, patchStatus))
	f.server.ExpectActions(t, patchService, patchStatus)
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t)
	if lbs := f.loadBalancers(); len(lbs) != 1 || lbs[0].Address != "198.51.100.1" {
		t.Fatalf("load balancers = %+v", lbs)
	}
}

func TestSyncHonoursLoadBalancerIPAndReportsARefusal(t *testing.T) {
	f := newFixture(t, simulated.DefaultLoadBalancerIPRange)
	f.server.Put(t, lbService(func(s *api.Service) { s.Spec.LoadBalancerIP = "203.0.113.9" }), readyNode("node1", api.ConditionTrue, nil))
	if err := f.sync(t); err == nil {
		t.Fatal("sync accepted an address outside the pool")
	}
	f.server.ExpectActions(t, patchService) // the finalizer first, as upstream
	f.recorder.ExpectEvents(t, ensuring,
		"Warning SyncLoadBalancerFailed Error syncing load balancer: failed to ensure load balancer: load balancer a11112222 for service default/web: requested address 203.0.113.9 is not in the load balancer pool 198.51.100.0/24")

	f = newFixture(t, simulated.DefaultLoadBalancerIPRange)
	f.server.Put(t, lbService(withFinalizer, func(s *api.Service) { s.Spec.LoadBalancerIP = "198.51.100.77" }), readyNode("node1", api.ConditionTrue, nil))
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, patchStatus)
	if ip := fakeapi.Result[*api.Service](t, f.server, patchStatus).Status.LoadBalancer.Ingress[0].IP; ip != "198.51.100.77" {
		t.Fatalf("ingress IP = %s, want the requested 198.51.100.77", ip)
	}
}

func TestSyncDeletesTheLoadBalancerOfADeletedService(t *testing.T) {
	f := newFixture(t, simulated.DefaultLoadBalancerIPRange)
	svc := lbService(withFinalizer)
	f.server.Put(t, readyNode("node1", api.ConditionTrue, nil))
	if _, err := f.cloud.EnsureLoadBalancer(context.Background(), "kubernetes", svc, nil); err != nil {
		t.Fatal(err)
	}
	now := api.Now()
	svc.DeletionTimestamp = &now
	svc.Status.LoadBalancer.Ingress = []api.LoadBalancerIngress{{IP: "198.51.100.1"}}
	f.server.Put(t, svc)
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, patchService)
	f.recorder.ExpectEvents(t, deleting, deleted)
	if lbs := f.loadBalancers(); len(lbs) != 0 {
		t.Fatalf("load balancers after delete = %+v, want none", lbs)
	}
	if _, stillThere := fakeapi.Get[*api.Service](t, f.server, "default", "web"); stillThere {
		t.Fatal("the Service is still stored: the finalizer was not removed")
	}
	controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"Service default/web is being deleted and holds the load-balancer-cleanup finalizer → delete its load balancer, remove the finalizer",
		map[string]string{"action": "delete", "loadBalancerExists": "true"})
}

func TestSyncCleansUpWhenTheTypeChanges(t *testing.T) {
	f := newFixture(t, simulated.DefaultLoadBalancerIPRange)
	svc := lbService(withFinalizer)
	if _, err := f.cloud.EnsureLoadBalancer(context.Background(), "kubernetes", svc, nil); err != nil {
		t.Fatal(err)
	}
	svc.Spec.Type = api.ServiceTypeClusterIP
	svc.Status.LoadBalancer.Ingress = []api.LoadBalancerIngress{{IP: "198.51.100.1"}}
	f.server.Put(t, svc)
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, patchService, patchStatus)
	f.recorder.ExpectEvents(t, deleting, deleted)
	stored := fakeapi.Result[*api.Service](t, f.server, patchStatus)
	if len(stored.Finalizers) != 0 || len(stored.Status.LoadBalancer.Ingress) != 0 {
		t.Fatalf("after the cleanup: finalizers %v, ingress %+v; want neither", stored.Finalizers, stored.Status.LoadBalancer.Ingress)
	}
	if lbs := f.loadBalancers(); len(lbs) != 0 {
		t.Fatalf("load balancers = %+v, want none", lbs)
	}
}

func TestSyncLeavesOtherClassesAndOtherTypesAlone(t *testing.T) {
	class := "example.com/metallb"
	for name, svc := range map[string]*api.Service{
		"another loadBalancerClass": lbService(func(s *api.Service) { s.Spec.LoadBalancerClass = &class }),
		"a ClusterIP Service":       lbService(func(s *api.Service) { s.Spec.Type = api.ServiceTypeClusterIP }),
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, simulated.DefaultLoadBalancerIPRange)
			f.server.Put(t, svc, readyNode("node1", api.ConditionTrue, nil))
			if err := f.sync(t); err != nil {
				t.Fatal(err)
			}
			f.server.ExpectActions(t)
			f.recorder.ExpectEvents(t)
			if lbs := f.loadBalancers(); len(lbs) != 0 {
				t.Fatalf("load balancers = %+v, want none", lbs)
			}
		})
	}
}

func TestSyncOfAGoneServiceDoesNothing(t *testing.T) {
	f := newFixture(t, simulated.DefaultLoadBalancerIPRange)
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t)
	f.recorder.ExpectEvents(t)
}

func TestSyncNodesPointsLoadBalancersAtTheNewNodeSet(t *testing.T) {
	f := newFixture(t, simulated.DefaultLoadBalancerIPRange)
	svc := lbService(withFinalizer)
	other := lbService(withFinalizer, func(s *api.Service) { s.Name, s.UID = "not-made-yet", "3333" })
	f.server.Put(t, svc, other, readyNode("node1", api.ConditionTrue, nil))
	if _, err := f.cloud.EnsureLoadBalancer(context.Background(), "kubernetes", svc, nil); err != nil {
		t.Fatal(err)
	}
	sync := func() {
		t.Helper()
		if err := f.controller.syncNodes(context.Background(), nodesKey); err != nil {
			t.Fatal(err)
		}
	}
	sync()
	f.recorder.ExpectEvents(t, "Normal UpdatedLoadBalancer Updated load balancer with new hosts")
	if nodes := f.loadBalancers()[0].Nodes; strings.Join(nodes, ",") != "node1" {
		t.Fatalf("nodes = %v", nodes)
	}
	sync() // the same set: nothing to do
	f.recorder.ExpectEvents(t)

	f.server.Put(t, readyNode("node2", api.ConditionTrue, nil))
	sync()
	f.recorder.ExpectEvents(t, "Normal UpdatedLoadBalancer Updated load balancer with new hosts")
	if nodes := f.loadBalancers()[0].Nodes; strings.Join(nodes, ",") != "node1,node2" {
		t.Fatalf("nodes = %v, want node1,node2", nodes)
	}
	f.server.ExpectActions(t) // the node set lives in the cloud only
	controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"load balancer nodes node1 → node1, node2: point the load balancer of default/web at them", map[string]string{"nodes": "2"})
}

func TestNeedsUpdate(t *testing.T) {
	class := "other"
	tests := []struct {
		name   string
		change func(*api.Service)
		want   bool
	}{
		{"nothing", func(*api.Service) {}, false},
		{"status only (our own write)", func(s *api.Service) { s.Status.LoadBalancer.Ingress = []api.LoadBalancerIngress{{IP: "1.2.3.4"}} }, false},
		{"finalizer only (our own write)", withFinalizer, false},
		{"type away from LoadBalancer", func(s *api.Service) { s.Spec.Type = api.ServiceTypeClusterIP }, true},
		{"a class set", func(s *api.Service) { s.Spec.LoadBalancerClass = &class }, true},
		{"a port", func(s *api.Service) { s.Spec.Ports[0].Port = 8080 }, true},
		{"loadBalancerIP", func(s *api.Service) { s.Spec.LoadBalancerIP = "198.51.100.9" }, true},
		{"an annotation", func(s *api.Service) { s.Annotations = map[string]string{"a": "b"} }, true},
		{"externalTrafficPolicy", func(s *api.Service) { s.Spec.ExternalTrafficPolicy = api.ServiceExternalTrafficPolicyLocal }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := lbService()
			svc := lbService()
			tt.change(svc)
			if got := needsUpdate(old, svc); got != tt.want {
				t.Errorf("needsUpdate = %v, want %v", got, tt.want)
			}
		})
	}
	if needsUpdate(lbService(func(s *api.Service) { s.Spec.Type = api.ServiceTypeClusterIP }), lbService(func(s *api.Service) {
		s.Spec.Type = api.ServiceTypeNodePort
	})) {
		t.Error("needsUpdate between two Services that want no load balancer")
	}
}
