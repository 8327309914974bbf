package simulated

import (
	"fmt"
	"net/netip"
	"sync"

	"kplane/pkg/cloudprovider"
)

// ProviderName is the simulated cloud's name: --cloud-provider kplane, and
// the scheme of its providerIDs (kplane://node1).
const ProviderName = "kplane"

// DefaultLoadBalancerIPRange is the pool load balancer addresses come from
// unless --load-balancer-ip-range says otherwise: 198.51.100.0/24
// (TEST-NET-2, RFC 5737), reserved for documentation, so an address in it
// can never be mistaken for a real machine's. The addresses are labels:
// nothing listens on them.
const DefaultLoadBalancerIPRange = "198.51.100.0/24"

// Cloud is the simulated cloud. It is safe for concurrent use: the
// controllers' workers and the debug API share one mutex.
type Cloud struct {
	mu sync.Mutex
	// pool holds the load balancer addresses; loadBalancers are the load
	// balancers by name. Every address a load balancer holds is taken in
	// pool under its name.
	pool          *addressPool
	loadBalancers map[string]*loadBalancer
	// instances are the machines by node name, created the first time a
	// controller asks about a node (every node has a machine).
	instances map[string]*instance
	// routes are the route table by route name.
	routes map[string]*cloudprovider.Route
}

// New returns an empty cloud whose load balancers take their addresses
// from loadBalancerIPRange (a CIDR such as "198.51.100.0/24").
func New(loadBalancerIPRange string) (*Cloud, error) {
	prefix, err := netip.ParsePrefix(loadBalancerIPRange)
	if err != nil {
		return nil, fmt.Errorf("load balancer IP range: %w", err)
	}
	return &Cloud{
		pool:          newAddressPool(prefix),
		loadBalancers: map[string]*loadBalancer{},
		instances:     map[string]*instance{},
		routes:        map[string]*cloudprovider.Route{},
	}, nil
}

// ProviderName returns "kplane".
func (c *Cloud) ProviderName() string { return ProviderName }

// LoadBalancer returns the cloud's load balancers.
func (c *Cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) { return c, true }

// InstancesV2 returns the cloud's machines.
func (c *Cloud) InstancesV2() (cloudprovider.InstancesV2, bool) { return c, true }

// Routes returns the cloud's route table.
func (c *Cloud) Routes() (cloudprovider.Routes, bool) { return c, true }

// Zones returns where the cloud's machines are.
func (c *Cloud) Zones() (cloudprovider.Zones, bool) { return c, true }

var _ cloudprovider.Interface = (*Cloud)(nil)
