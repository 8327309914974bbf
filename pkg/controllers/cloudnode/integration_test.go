package cloudnode_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/cloudprovider"
	"kplane/pkg/cloudprovider/simulated"
	"kplane/pkg/controllers/cloudnode"
	"kplane/pkg/controllers/noderoute"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

// Against a real apiserver, with the route controller beside it: a node
// registered with the uninitialized taint gets the cloud's facts and loses
// the taint, and its pod range gets a route and NetworkUnavailable=False.
func TestNodeIsInitializedAndRoutedAgainstAnAPIServer(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "cloudnode-test" })
	cloud, err := simulated.New(simulated.DefaultLoadBalancerIPRange)
	if err != nil {
		t.Fatal(err)
	}
	controllers := controllertest.NewControllers(t, c)
	f, logger := controllers.Factory, controllers.Logger
	initializer, err := cloudnode.New(c, f, controllers.Recorder(cloudnode.EventSource), cloud, cloudnode.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	router, err := noderoute.New(c, f, controllers.Recorder(noderoute.EventSource), cloud, noderoute.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	controllers.Run(1, initializer, router)

	ctx := context.Background()
	if _, err := c.Nodes().Create(ctx, &api.Node{
		ObjectMeta: api.ObjectMeta{Name: "node3"},
		Spec: api.NodeSpec{PodCIDR: "10.244.3.0/24", PodCIDRs: []string{"10.244.3.0/24"},
			Taints: []api.Taint{{Key: cloudprovider.TaintExternalCloudProvider, Value: "true", Effect: api.TaintEffectNoSchedule}}},
	}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		n, err := c.Nodes().Get(ctx, "node3", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		network := ""
		for _, cond := range n.Status.Conditions {
			if cond.Type == api.NodeNetworkUnavailable {
				network = string(cond.Status) + "/" + cond.Reason
			}
		}
		return n.Spec.ProviderID == "kplane://node3" && len(n.Spec.Taints) == 0 && n.Labels[api.LabelTopologyZone] == "kplane-local-a" &&
				network == "False/RouteCreated",
			fmt.Sprintf("providerID %q, taints %v, labels %v, NetworkUnavailable %q", n.Spec.ProviderID, n.Spec.Taints, n.Labels, network)
	})
	if routes := cloud.RouteViews(); len(routes) != 1 || routes[0].DestinationCIDR != "10.244.3.0/24" || routes[0].TargetNode != "node3" {
		t.Fatalf("routes = %+v", routes)
	}
}
