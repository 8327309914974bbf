package noderoute

import (
	"context"
	"log/slog"
	"net/netip"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/cloudprovider"
	"kplane/pkg/cloudprovider/simulated"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

type fixture struct {
	server     *fakeapi.Server
	cloud      *simulated.Cloud
	recorder   *controllertest.Recorder
	controller *Controller
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	server, cloud, rec := controllertest.NewCloudFixture(t, simulated.DefaultLoadBalancerIPRange)
	ctrl, err := New(server.Client(), server.Informers(), rec, cloud, Options{Logger: slog.New(slog.DiscardHandler),
		ClusterCIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{server: server, cloud: cloud, recorder: rec, controller: ctrl}
}

func nodeWithCIDR(name, cidr string) *api.Node {
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: name, UID: "uid-" + name}}
	if cidr != "" {
		n.Spec.PodCIDR, n.Spec.PodCIDRs = cidr, []string{cidr}
	}
	return n
}

func (f *fixture) routes() []simulated.RouteView { return f.cloud.RouteViews() }

func TestSyncCreatesARoutePerNodeAndMarksTheNetworkAvailable(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, nodeWithCIDR("node1", "10.244.1.0/24"), nodeWithCIDR("node2", "10.244.2.0/24"), nodeWithCIDR("node3", ""))
	if err := f.controller.sync(context.Background(), routesKey); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, fakeapi.InAnyOrder("patch nodes/status node1", "patch nodes/status node2"))
	got := f.routes()
	if len(got) != 2 || got[0].DestinationCIDR != "10.244.1.0/24" || got[0].TargetNode != "node1" || got[0].Name != "kubernetes-uid-node1" ||
		got[1].TargetNode != "node2" {
		t.Fatalf("routes = %+v", got)
	}
	node := fakeapi.Result[*api.Node](t, f.server, "patch nodes/status node1")
	if len(node.Status.Conditions) != 1 {
		t.Fatalf("conditions = %+v", node.Status.Conditions)
	}
	if c := node.Status.Conditions[0]; c.Type != api.NodeNetworkUnavailable || c.Status != api.ConditionFalse || c.Reason != "RouteCreated" ||
		c.Message != "RouteController created a route" {
		t.Fatalf("condition = %+v, want NetworkUnavailable=False RouteCreated", c)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("node1"),
		"node1 has podCIDR 10.244.1.0/24 and no route → create route 10.244.1.0/24 → node1, then NetworkUnavailable=False (RouteCreated)", nil)

	// Again, with the conditions in place: nothing to do.
	f.server.Put(t, node, fakeapi.Result[*api.Node](t, f.server, "patch nodes/status node2"))
	if err := f.controller.sync(context.Background(), routesKey); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t)
	if len(f.routes()) != 2 {
		t.Fatalf("routes after a second sync = %+v", f.routes())
	}
}

func TestPlanRoutes(t *testing.T) {
	cluster := []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}
	routes := []*cloudprovider.Route{
		{Name: "keep", TargetNode: "node1", DestinationCIDR: "10.244.1.0/24"},
		{Name: "stale", TargetNode: "node9", DestinationCIDR: "10.244.9.0/24"},
		{Name: "moved", TargetNode: "node2", DestinationCIDR: "10.244.7.0/24"},
		{Name: "foreign", TargetNode: "vpn", DestinationCIDR: "192.168.0.0/24"},
		{Name: "blackhole", TargetNode: "node3", DestinationCIDR: "10.244.3.0/24", Blackhole: true},
	}
	nodes := []*api.Node{nodeWithCIDR("node1", "10.244.1.0/24"), nodeWithCIDR("node2", "10.244.2.0/24"), nodeWithCIDR("node3", "10.244.3.0/24")}
	create, remove := planRoutes(nodes, routes, cluster)
	var removed []string
	for _, r := range remove {
		removed = append(removed, r.Name)
	}
	if len(removed) != 3 || removed[0] != "stale" || removed[1] != "moved" || removed[2] != "blackhole" {
		t.Errorf("removed = %v, want stale, moved, blackhole (foreign is outside the cluster CIDR)", removed)
	}
	if len(create) != 2 || create[0].route.DestinationCIDR != "10.244.2.0/24" || create[1].route.TargetNode != "node3" {
		t.Errorf("create = %+v, want node2's and node3's", create)
	}
}

func TestSyncDeletesTheRouteOfADeletedNode(t *testing.T) {
	f := newFixture(t)
	_ = f.cloud.CreateRoute(context.Background(), "kubernetes", "uid-node2", &cloudprovider.Route{TargetNode: "node2", DestinationCIDR: "10.244.2.0/24"})
	if err := f.controller.sync(context.Background(), routesKey); err != nil {
		t.Fatal(err)
	}
	if got := f.routes(); len(got) != 0 {
		t.Fatalf("routes = %+v, want none", got)
	}
	f.server.ExpectActions(t)
}
