package simulated

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"

	"kplane/pkg/api"
	"kplane/pkg/cloudprovider"
)

// ipModeVIP is status.loadBalancer.ingress[].ipMode "VIP": packets reach
// the nodes with the load balancer's address as their destination, as a
// cloud's virtual IP delivers them (the alternative, "Proxy", rewrites it).
const ipModeVIP = "VIP"

// loadBalancer is one simulated load balancer.
type loadBalancer struct {
	name string
	// service is the Service's "namespace/name".
	service string
	address netip.Addr
	// ports are the Service's ports as "80/TCP"; nodes the names of the
	// nodes it forwards to.
	ports []string
	nodes []string
}

// GetLoadBalancer returns the status of service's load balancer, if it has
// one.
func (c *Cloud) GetLoadBalancer(_ context.Context, _ string, service *api.Service) (*api.LoadBalancerStatus, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	lb, ok := c.loadBalancers[cloudprovider.DefaultLoadBalancerName(service)]
	if !ok {
		return nil, false, nil
	}
	return lb.status(), true, nil
}

// GetLoadBalancerName is upstream's default name for service's load
// balancer.
func (c *Cloud) GetLoadBalancerName(_ context.Context, _ string, service *api.Service) string {
	return cloudprovider.DefaultLoadBalancerName(service)
}

// EnsureLoadBalancer gives service a load balancer over nodes: a new one
// with the address spec.loadBalancerIP asks for, or the lowest free address
// of the pool; an existing one keeps its address unless spec.loadBalancerIP
// now asks for another.
func (c *Cloud) EnsureLoadBalancer(_ context.Context, _ string, service *api.Service, nodes []*api.Node) (*api.LoadBalancerStatus, error) {
	requested, err := requestedAddress(service)
	if err != nil {
		return nil, err
	}
	name := cloudprovider.DefaultLoadBalancerName(service)
	c.mu.Lock()
	defer c.mu.Unlock()
	lb, exists := c.loadBalancers[name]
	if !exists || (requested.IsValid() && requested != lb.address) {
		address, err := c.pool.take(name, requested)
		if err != nil {
			return nil, fmt.Errorf("load balancer %s for service %s/%s: %w", name, service.Namespace, service.Name, err)
		}
		if exists {
			c.pool.release(name, lb.address)
		} else {
			lb = &loadBalancer{name: name, service: service.Namespace + "/" + service.Name}
			c.loadBalancers[name] = lb
		}
		lb.address = address
	}
	lb.ports = portsOf(service)
	lb.nodes = nodeNames(nodes)
	return lb.status(), nil
}

// UpdateLoadBalancer points service's load balancer at nodes.
func (c *Cloud) UpdateLoadBalancer(_ context.Context, _ string, service *api.Service, nodes []*api.Node) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	lb, ok := c.loadBalancers[cloudprovider.DefaultLoadBalancerName(service)]
	if !ok {
		return fmt.Errorf("service %s/%s has no load balancer to update", service.Namespace, service.Name)
	}
	lb.nodes = nodeNames(nodes)
	return nil
}

// EnsureLoadBalancerDeleted deletes service's load balancer and gives its
// address back to the pool.
func (c *Cloud) EnsureLoadBalancerDeleted(_ context.Context, _ string, service *api.Service) error {
	name := cloudprovider.DefaultLoadBalancerName(service)
	c.mu.Lock()
	defer c.mu.Unlock()
	if lb, ok := c.loadBalancers[name]; ok {
		c.pool.release(name, lb.address)
		delete(c.loadBalancers, name)
	}
	return nil
}

// RestoreLoadBalancers rebuilds the load balancers of a cloud that just
// started from services, the cluster's Services: each that holds the
// cleanup finalizer and an ingress address of the pool gets its load
// balancer back with that address, so a restart moves no Service to a new
// address. The node sets follow at the service controller's first sync.
// It returns what could not be restored (an address outside the pool, or
// held twice), which the caller logs; those Services get a new address.
func (c *Cloud) RestoreLoadBalancers(services []*api.Service) []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var problems []error
	for _, svc := range services {
		if !slices.Contains(svc.Finalizers, cloudprovider.LoadBalancerCleanupFinalizer) {
			continue
		}
		for _, ingress := range svc.Status.LoadBalancer.Ingress {
			addr, err := netip.ParseAddr(ingress.IP)
			if err != nil {
				continue // a hostname, or nothing: not one of ours
			}
			name := cloudprovider.DefaultLoadBalancerName(svc)
			if _, err := c.pool.take(name, addr); err != nil {
				problems = append(problems, fmt.Errorf("service %s/%s: %w", svc.Namespace, svc.Name, err))
				continue
			}
			c.loadBalancers[name] = &loadBalancer{name: name, service: svc.Namespace + "/" + svc.Name, address: addr, ports: portsOf(svc)}
			break
		}
	}
	return problems
}

// requestedAddress is spec.loadBalancerIP, parsed; the zero Addr when the
// Service asks for none.
func requestedAddress(service *api.Service) (netip.Addr, error) {
	if service.Spec.LoadBalancerIP == "" {
		return netip.Addr{}, nil
	}
	addr, err := netip.ParseAddr(service.Spec.LoadBalancerIP)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("spec.loadBalancerIP %q is not an IP address", service.Spec.LoadBalancerIP)
	}
	return addr, nil
}

// status is what the service controller publishes: the address, as a VIP.
func (lb *loadBalancer) status() *api.LoadBalancerStatus {
	mode := ipModeVIP
	return &api.LoadBalancerStatus{Ingress: []api.LoadBalancerIngress{{IP: lb.address.String(), IPMode: &mode}}}
}

// portsOf lists service's ports as "80/TCP".
func portsOf(service *api.Service) []string {
	var ports []string
	for _, p := range service.Spec.Ports {
		protocol := p.Protocol
		if protocol == "" {
			protocol = api.ProtocolTCP
		}
		ports = append(ports, strconv.Itoa(int(p.Port))+"/"+string(protocol))
	}
	return ports
}

// nodeNames are the names of nodes, sorted.
func nodeNames(nodes []*api.Node) []string {
	names := make([]string, 0, len(nodes))
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	return names
}
