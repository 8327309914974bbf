package simulated

import (
	"context"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/cloudprovider"
)

func service(name, uid, loadBalancerIP string) *api.Service {
	return &api.Service{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: uid},
		Spec: api.ServiceSpec{Type: api.ServiceTypeLoadBalancer, LoadBalancerIP: loadBalancerIP,
			Ports: []api.ServicePort{{Port: 80, Protocol: api.ProtocolTCP}}},
	}
}

func node(name string) *api.Node {
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: name},
		Status: api.NodeStatus{Addresses: []api.NodeAddress{{Type: api.NodeInternalIP, Address: "127.0.0.1"}}}}
}

func newCloud(t *testing.T, cidr string) *Cloud {
	t.Helper()
	c, err := New(cidr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ensure(t *testing.T, c *Cloud, svc *api.Service) string {
	t.Helper()
	status, err := c.EnsureLoadBalancer(context.Background(), "kubernetes", svc, []*api.Node{node("node2"), node("node1")})
	if err != nil {
		t.Fatalf("EnsureLoadBalancer(%s): %v", svc.Name, err)
	}
	if len(status.Ingress) != 1 || status.Ingress[0].IPMode == nil || *status.Ingress[0].IPMode != "VIP" {
		t.Fatalf("status = %+v, want one ingress with ipMode VIP", status)
	}
	return status.Ingress[0].IP
}

func TestLoadBalancersTakeTheLowestFreeAddressAndGiveItBack(t *testing.T) {
	c := newCloud(t, "198.51.100.0/24")
	web, api2 := service("web", "uid-web", ""), service("api", "uid-api", "")
	if got := ensure(t, c, web); got != "198.51.100.1" {
		t.Fatalf("first address = %s, want 198.51.100.1 (the network address is skipped)", got)
	}
	if got := ensure(t, c, api2); got != "198.51.100.2" {
		t.Fatalf("second address = %s, want 198.51.100.2", got)
	}
	if got := ensure(t, c, web); got != "198.51.100.1" {
		t.Fatalf("ensuring again moved web to %s", got)
	}
	views := c.LoadBalancerViews()
	if len(views) != 2 || views[1].Service != "default/web" || strings.Join(views[1].Nodes, ",") != "node1,node2" || views[1].Ports[0] != "80/TCP" {
		t.Fatalf("views = %+v", views)
	}
	if err := c.EnsureLoadBalancerDeleted(context.Background(), "kubernetes", web); err != nil {
		t.Fatal(err)
	}
	if _, exists, _ := c.GetLoadBalancer(context.Background(), "kubernetes", web); exists {
		t.Fatal("web's load balancer still exists after delete")
	}
	if got := ensure(t, c, service("db", "uid-db", "")); got != "198.51.100.1" {
		t.Fatalf("after web's release the next address = %s, want 198.51.100.1 again", got)
	}
}

func TestLoadBalancerIPIsHonouredOrRefused(t *testing.T) {
	c := newCloud(t, "198.51.100.0/30") // .1 and .2 usable
	if got := ensure(t, c, service("web", "uid-web", "198.51.100.2")); got != "198.51.100.2" {
		t.Fatalf("requested .2, got %s", got)
	}
	for _, tt := range []struct{ ip, want string }{
		{"198.51.100.2", "already used by load balancer auidweb"},
		{"203.0.113.5", "not in the load balancer pool 198.51.100.0/30"},
		{"198.51.100.3", "not in the load balancer pool"}, // broadcast
		{"not-an-ip", "is not an IP address"},
	} {
		_, err := c.EnsureLoadBalancer(context.Background(), "kubernetes", service("other", "uid-other", tt.ip), nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("loadBalancerIP %s: err = %v, want it to say %q", tt.ip, err, tt.want)
		}
	}
	ensure(t, c, service("a", "uid-a", ""))
	if _, err := c.EnsureLoadBalancer(context.Background(), "kubernetes", service("b", "uid-b", ""), nil); err == nil || !strings.Contains(err.Error(), "no free address") {
		t.Fatalf("a full pool: err = %v", err)
	}
}

func TestRestoreLoadBalancersKeepsTheAddressesInTheServicesStatus(t *testing.T) {
	c := newCloud(t, "198.51.100.0/24")
	web := service("web", "uid-web", "")
	web.Finalizers = []string{cloudprovider.LoadBalancerCleanupFinalizer}
	web.Status.LoadBalancer.Ingress = []api.LoadBalancerIngress{{IP: "198.51.100.7"}}
	noFinalizer := service("old", "uid-old", "")
	noFinalizer.Status.LoadBalancer.Ingress = []api.LoadBalancerIngress{{IP: "198.51.100.1"}}
	if problems := c.RestoreLoadBalancers([]*api.Service{web, noFinalizer}); len(problems) != 0 {
		t.Fatal(problems)
	}
	if got := ensure(t, c, web); got != "198.51.100.7" {
		t.Fatalf("restored web got %s, want its old 198.51.100.7", got)
	}
	if got := ensure(t, c, service("new", "uid-new", "")); got != "198.51.100.1" {
		t.Fatalf("a new Service got %s, want 198.51.100.1", got)
	}
}

func TestInstances(t *testing.T) {
	c := newCloud(t, DefaultLoadBalancerIPRange)
	ctx := context.Background()
	meta, err := c.InstanceMetadata(ctx, node("node1"))
	if err != nil {
		t.Fatal(err)
	}
	if meta.ProviderID != "kplane://node1" || meta.InstanceType != "kplane.small" || meta.Zone != "kplane-local-b" || meta.Region != "kplane-local" ||
		len(meta.NodeAddresses) != 2 || meta.NodeAddresses[0].Address != "127.0.0.1" {
		t.Fatalf("metadata = %+v", meta)
	}
	if _, err := c.SetInstanceState("node1", InstanceShutdown); err != nil {
		t.Fatal(err)
	}
	if down, _ := c.InstanceShutdown(ctx, node("node1")); !down {
		t.Fatal("node1 not shut down")
	}
	if _, err := c.SetInstanceState("node1", InstanceDeleted); err != nil {
		t.Fatal(err)
	}
	if exists, _ := c.InstanceExists(ctx, node("node1")); exists {
		t.Fatal("deleted node1 still exists")
	}
	if _, err := c.SetInstanceState("node1", InstanceRunning); err == nil {
		t.Fatal("a deleted machine was started")
	}
}

func TestZoneFor(t *testing.T) {
	for node, want := range map[string]string{
		"control-plane": "kplane-local-a", "node1": "kplane-local-b", "node2": "kplane-local-c", "node3": "kplane-local-a",
		"worker14": "kplane-local-c", "node99999999999999999999999": "kplane-local-a",
	} {
		if got := zoneFor(node); got != want {
			t.Errorf("zoneFor(%s) = %s, want %s", node, got, want)
		}
	}
}

func TestRoutesToDeletedMachinesAreBlackholes(t *testing.T) {
	c := newCloud(t, DefaultLoadBalancerIPRange)
	ctx := context.Background()
	_ = c.CreateRoute(ctx, "kubernetes", "uid-2", &cloudprovider.Route{TargetNode: "node2", DestinationCIDR: "10.244.2.0/24"})
	_ = c.CreateRoute(ctx, "kubernetes", "uid-1", &cloudprovider.Route{TargetNode: "node1", DestinationCIDR: "10.244.1.0/24"})
	if _, err := c.SetInstanceState("node2", InstanceDeleted); err != nil {
		t.Fatal(err)
	}
	routes, _ := c.ListRoutes(ctx, "kubernetes")
	if len(routes) != 2 || routes[0].Name != "kubernetes-uid-1" || routes[0].Blackhole || !routes[1].Blackhole {
		t.Fatalf("routes = %+v %+v", routes[0], routes[1])
	}
	_ = c.DeleteRoute(ctx, "kubernetes", routes[1])
	if views := c.RouteViews(); len(views) != 1 || views[0].TargetNode != "node1" {
		t.Fatalf("after delete: %+v", views)
	}
}
