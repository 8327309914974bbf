package noderoute

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/cloudprovider"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose reconcile this mirrors.
const decisionSource = "staging/src/k8s.io/cloud-provider/controllers/route/route_controller.go"

// recordCreate records "node1 has podCIDR 10.244.1.0/24 and no route → create
// route 10.244.1.0/24 → node1".
func (c *Controller) recordCreate(rc routeToCreate) {
	if !c.decisions.Enabled() {
		return
	}
	c.decisions.Record(&rc.node.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("%s has podCIDR %s and no route → create route %s → %s, then NetworkUnavailable=False (%s)",
			rc.node.Name, rc.route.DestinationCIDR, rc.route.DestinationCIDR, rc.node.Name, reasonRouteCreated),
		Values: map[string]string{"action": "create", "destinationCIDR": rc.route.DestinationCIDR},
		Source: decisionSource,
	})
}

// recordDelete records a route that goes, on its target node's record.
func (c *Controller) recordDelete(r *cloudprovider.Route) {
	if !c.decisions.Enabled() {
		return
	}
	why := "no node has that podCIDR any more"
	if r.Blackhole {
		why = "its machine is gone (blackhole)"
	}
	c.decisions.Record(&api.ObjectMeta{Name: r.TargetNode}, debug.Decision{
		Message: fmt.Sprintf("route %s %s → %s: %s → delete it", r.Name, r.DestinationCIDR, r.TargetNode, why),
		Values:  map[string]string{"action": "delete", "destinationCIDR": r.DestinationCIDR},
		Source:  decisionSource,
	})
}
