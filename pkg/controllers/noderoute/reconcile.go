package noderoute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/cloudprovider"
)

// The NetworkUnavailable condition the controller sets, upstream's words.
const (
	reasonRouteCreated    = "RouteCreated"
	messageRouteCreated   = "RouteController created a route"
	reasonNoRouteCreated  = "NoRouteCreated"
	messageNoRouteCreated = "RouteController failed to create a route"
)

// routeToCreate is a route the plan asks for, with the node it leads to
// (whose UID is the route's name hint, as upstream).
type routeToCreate struct {
	node  *api.Node
	route cloudprovider.Route
}

// podCIDRsOf are node's pod ranges: spec.podCIDRs, or spec.podCIDR on a
// node that has only that.
func podCIDRsOf(node *api.Node) []string {
	if len(node.Spec.PodCIDRs) > 0 {
		return node.Spec.PodCIDRs
	}
	if node.Spec.PodCIDR != "" {
		return []string{node.Spec.PodCIDR}
	}
	return nil
}

// planRoutes compares the nodes' pod ranges with the cloud's routes
// (upstream's reconcile): a route for every (node, podCIDR) that has none;
// the deletion of every blackhole route and of every route inside the
// cluster CIDRs that no node's podCIDR explains. Routes outside the
// cluster CIDRs belong to someone else and stay.
func planRoutes(nodes []*api.Node, routes []*cloudprovider.Route, clusterCIDRs []netip.Prefix) (create []routeToCreate, remove []*cloudprovider.Route) {
	type target struct{ node, cidr string }
	wanted := map[target]bool{}
	for _, n := range nodes {
		for _, cidr := range podCIDRsOf(n) {
			wanted[target{n.Name, cidr}] = true
		}
	}
	existing := map[target]bool{}
	for _, r := range routes {
		t := target{r.TargetNode, r.DestinationCIDR}
		switch {
		case r.Blackhole:
			remove = append(remove, r)
		case !wanted[t] && inClusterCIDRs(r.DestinationCIDR, clusterCIDRs):
			remove = append(remove, r)
		default:
			existing[t] = true
		}
	}
	for _, n := range nodes {
		for _, cidr := range podCIDRsOf(n) {
			if !existing[target{n.Name, cidr}] {
				create = append(create, routeToCreate{node: n, route: cloudprovider.Route{TargetNode: n.Name, DestinationCIDR: cidr}})
			}
		}
	}
	return create, remove
}

// inClusterCIDRs reports whether cidr lies inside one of clusterCIDRs (every
// cidr does when there are none).
func inClusterCIDRs(cidr string, clusterCIDRs []netip.Prefix) bool {
	if len(clusterCIDRs) == 0 {
		return true
	}
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(clusterCIDRs, func(c netip.Prefix) bool { return c.Bits() <= p.Bits() && c.Contains(p.Addr()) })
}

// sync reconciles the routes with the nodes, then sets each node's
// NetworkUnavailable condition to what happened to its routes.
func (c *Controller) sync(ctx context.Context, _ string) error {
	nodes, err := c.nodes.List(nil)
	if err != nil {
		return fmt.Errorf("list nodes from cache: %w", err)
	}
	routes, err := c.routes.ListRoutes(ctx, c.clusterName)
	if err != nil {
		return fmt.Errorf("list routes: %w", err)
	}
	create, remove := planRoutes(nodes, routes, c.clusterCIDRs)
	var errs []error
	for _, r := range remove {
		c.recordDelete(r)
		if err := c.routes.DeleteRoute(ctx, c.clusterName, r); err != nil {
			errs = append(errs, fmt.Errorf("delete route %s %s: %w", r.Name, r.DestinationCIDR, err))
			continue
		}
		c.log.Info("deleted route", "route", r.Name, "destination", r.DestinationCIDR, "node", r.TargetNode)
	}
	failed := map[string]bool{}
	for _, rc := range create {
		c.recordCreate(rc)
		route := rc.route
		if err := c.routes.CreateRoute(ctx, c.clusterName, rc.node.UID, &route); err != nil {
			c.recorder.Eventf(rc.node, api.EventTypeWarning, "FailedToCreateRoute", "Could not create route %s %s for node %s: %v",
				rc.node.UID, route.DestinationCIDR, rc.node.Name, err)
			failed[rc.node.Name] = true
			errs = append(errs, fmt.Errorf("create route %s for node %s: %w", route.DestinationCIDR, rc.node.Name, err))
			continue
		}
		c.log.Info("created route", "destination", route.DestinationCIDR, "node", rc.node.Name)
	}
	for _, n := range nodes {
		if len(podCIDRsOf(n)) == 0 {
			continue // no pod range yet: nothing to route
		}
		if err := c.setNetworkCondition(ctx, n, !failed[n.Name]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// setNetworkCondition sets node's NetworkUnavailable condition: False,
// RouteCreated when its routes exist, True, NoRouteCreated when one failed.
// A node whose condition already says so is not written. The write is a
// strategic merge patch of the one condition (conditions merge by type), so
// it never conflicts with the kubelet's heartbeats.
func (c *Controller) setNetworkCondition(ctx context.Context, node *api.Node, routed bool) error {
	want := api.ConditionFalse
	reason, message := reasonRouteCreated, messageRouteCreated
	if !routed {
		want, reason, message = api.ConditionTrue, reasonNoRouteCreated, messageNoRouteCreated
	}
	for _, cond := range node.Status.Conditions {
		if cond.Type == api.NodeNetworkUnavailable && cond.Status == want {
			return nil
		}
	}
	now := api.NewTime(c.clock.Now().UTC())
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []api.NodeCondition{{
		Type: api.NodeNetworkUnavailable, Status: want, Reason: reason, Message: message,
		LastTransitionTime: now, LastHeartbeatTime: now,
	}}}})
	if err != nil {
		return fmt.Errorf("encode condition patch: %w", err)
	}
	if _, err := c.client.Nodes().Patch(ctx, node.Name, client.StrategicMergePatchType, patch, client.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("node %s: set NetworkUnavailable=%s: %w", node.Name, want, err)
	}
	return nil
}
