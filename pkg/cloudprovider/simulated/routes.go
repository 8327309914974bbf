package simulated

import (
	"context"
	"slices"
	"strings"

	"kplane/pkg/cloudprovider"
)

// ListRoutes returns the route table, sorted by destination. A route to a
// deleted machine is a blackhole, as a cloud reports it.
func (c *Cloud) ListRoutes(_ context.Context, _ string) ([]*cloudprovider.Route, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.routeListLocked(), nil
}

func (c *Cloud) routeListLocked() []*cloudprovider.Route {
	routes := make([]*cloudprovider.Route, 0, len(c.routes))
	for _, r := range c.routes {
		route := *r
		if in, ok := c.instances[route.TargetNode]; ok && in.state == InstanceDeleted {
			route.Blackhole = true
		}
		routes = append(routes, &route)
	}
	slices.SortFunc(routes, func(a, b *cloudprovider.Route) int { return strings.Compare(a.DestinationCIDR, b.DestinationCIDR) })
	return routes
}

// CreateRoute adds route under the name "<clusterName>-<nameHint>" (the
// node's UID), as the GCE provider names its routes.
func (c *Cloud) CreateRoute(_ context.Context, clusterName string, nameHint string, route *cloudprovider.Route) error {
	r := *route
	r.Name = clusterName + "-" + nameHint
	c.mu.Lock()
	defer c.mu.Unlock()
	c.routes[r.Name] = &r
	return nil
}

// DeleteRoute removes route. Deleting a route that is gone is no error.
func (c *Cloud) DeleteRoute(_ context.Context, _ string, route *cloudprovider.Route) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.routes, route.Name)
	return nil
}
