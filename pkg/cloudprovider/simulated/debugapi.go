package simulated

import (
	"net/http"
	"slices"
	"strings"

	"kplane/pkg/debug"
)

// The simulated cloud's debug API paths, served on the
// cloud-controller-manager's debug server (cluster administrators only),
// which `ctl cloud` reads and drives.
const (
	// PathLoadBalancers answers the load balancers ([]LoadBalancerView).
	PathLoadBalancers = "/debug/kplane/cloud/load-balancers"
	// PathInstances answers the machines ([]InstanceView).
	PathInstances = "/debug/kplane/cloud/instances"
	// PathRoutes answers the route table ([]RouteView).
	PathRoutes = "/debug/kplane/cloud/routes"
	// PathInstanceAction, with a node name and "shutdown", "start" or
	// "delete" after it (POST …/instances/node1/shutdown), changes a
	// machine's state and answers it (InstanceView).
	PathInstanceAction = PathInstances + "/"
)

// LoadBalancerView is one load balancer as the debug API shows it.
type LoadBalancerView struct {
	Name    string   `json:"name"`
	Service string   `json:"service"`
	Address string   `json:"address"`
	Ports   []string `json:"ports"`
	Nodes   []string `json:"nodes"`
}

// InstanceView is one machine as the debug API shows it.
type InstanceView struct {
	Node         string        `json:"node"`
	ProviderID   string        `json:"providerID"`
	InstanceType string        `json:"instanceType"`
	Zone         string        `json:"zone"`
	Region       string        `json:"region"`
	State        InstanceState `json:"state"`
}

// RouteView is one route as the debug API shows it.
type RouteView struct {
	Name            string `json:"name"`
	DestinationCIDR string `json:"destinationCIDR"`
	TargetNode      string `json:"targetNode"`
	Blackhole       bool   `json:"blackhole,omitempty"`
}

// Register adds the cloud's debug API to a component's journal, whose
// debug server serves it.
func (c *Cloud) Register(j *debug.Journal) {
	j.Handle("GET "+PathLoadBalancers, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { debug.WriteJSON(w, c.LoadBalancerViews()) }))
	j.Handle("GET "+PathInstances, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { debug.WriteJSON(w, c.InstanceViews()) }))
	j.Handle("GET "+PathRoutes, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { debug.WriteJSON(w, c.RouteViews()) }))
	j.Handle("POST "+PathInstanceAction+"{node}/{action}", http.HandlerFunc(c.serveInstanceAction))
}

// actionStates maps `ctl cloud instance <action>` to the state it sets.
var actionStates = map[string]InstanceState{"shutdown": InstanceShutdown, "start": InstanceRunning, "delete": InstanceDeleted}

func (c *Cloud) serveInstanceAction(w http.ResponseWriter, r *http.Request) {
	state, ok := actionStates[r.PathValue("action")]
	if !ok {
		debug.WriteStatus(w, http.StatusNotFound, "NotFound", "unknown instance action "+r.PathValue("action")+": want shutdown, start or delete")
		return
	}
	view, err := c.SetInstanceState(r.PathValue("node"), state)
	if err != nil {
		debug.WriteStatus(w, http.StatusConflict, "Conflict", err.Error())
		return
	}
	debug.WriteJSON(w, view)
}

// LoadBalancerViews lists the load balancers by Service.
func (c *Cloud) LoadBalancerViews() []LoadBalancerView {
	c.mu.Lock()
	defer c.mu.Unlock()
	views := []LoadBalancerView{}
	for _, lb := range c.loadBalancers {
		views = append(views, LoadBalancerView{Name: lb.name, Service: lb.service, Address: lb.address.String(),
			Ports: slices.Clone(lb.ports), Nodes: slices.Clone(lb.nodes)})
	}
	slices.SortFunc(views, func(a, b LoadBalancerView) int { return strings.Compare(a.Service, b.Service) })
	return views
}

// InstanceViews lists the machines by node name.
func (c *Cloud) InstanceViews() []InstanceView {
	c.mu.Lock()
	defer c.mu.Unlock()
	views := []InstanceView{}
	for _, in := range c.instances {
		views = append(views, in.view())
	}
	slices.SortFunc(views, func(a, b InstanceView) int { return strings.Compare(a.Node, b.Node) })
	return views
}

// RouteViews lists the route table by destination.
func (c *Cloud) RouteViews() []RouteView {
	c.mu.Lock()
	defer c.mu.Unlock()
	views := []RouteView{}
	for _, r := range c.routeListLocked() {
		views = append(views, RouteView{Name: r.Name, DestinationCIDR: r.DestinationCIDR, TargetNode: r.TargetNode, Blackhole: r.Blackhole})
	}
	return views
}

func (in *instance) view() InstanceView {
	return InstanceView{Node: in.node, ProviderID: ProviderIDFor(in.node), InstanceType: InstanceType, Zone: in.zone, Region: Region, State: in.state}
}
