// Package cloudprovider is the contract between the cloud-controller-manager's
// controllers and a cloud: the questions a controller asks ("does the machine
// behind node2 still exist?", "give Service web a load balancer") and nothing
// about how a particular cloud answers them. It mirrors upstream's
// k8s.io/cloud-provider (staging/src/k8s.io/cloud-provider/cloud.go),
// trimmed to the four parts kplane's controllers use: LoadBalancer (the
// service-lb controller), InstancesV2 (the cloud-node and
// cloud-node-lifecycle controllers), Routes (the node-route controller) and
// Zones.
//
// A provider answers ok=false from an accessor when it has no such feature,
// and the controller that needs it does not start, as upstream. kplane has
// one provider, the simulated cloud "kplane" in package simulated; see
// docs/cloud-controller-manager.md.
package cloudprovider

import (
	"context"
	"errors"
	"strings"

	"kplane/pkg/api"
)

// DefaultClusterName is the clusterName the controllers pass to the cloud
// when none is configured: upstream's --cluster-name default.
const DefaultClusterName = "kubernetes"

// Interface is a cloud provider: its name and the parts it implements.
type Interface interface {
	// ProviderName is the name --cloud-provider selects it by, and the
	// scheme of the providerIDs it gives nodes ("kplane://node1").
	ProviderName() string
	// LoadBalancer returns the load balancer part, ok false when the cloud
	// has none.
	LoadBalancer() (LoadBalancer, bool)
	// InstancesV2 returns the machine inventory, ok false when the cloud
	// has none.
	InstancesV2() (InstancesV2, bool)
	// Routes returns the route table of the cluster's network, ok false
	// when pod traffic needs no routes in this cloud.
	Routes() (Routes, bool)
	// Zones returns where machines are, ok false when the cloud has no
	// zones. (Upstream deprecates it in favour of InstancesV2's metadata,
	// which carries the same zone and region.)
	Zones() (Zones, bool)
}

// LoadBalancer manages the cloud's load balancers, one per Service of type
// LoadBalancer. Every method is idempotent: the service-lb controller calls
// them again on each retry and resync.
type LoadBalancer interface {
	// GetLoadBalancer returns the status of service's load balancer and
	// whether it exists.
	GetLoadBalancer(ctx context.Context, clusterName string, service *api.Service) (status *api.LoadBalancerStatus, exists bool, err error)
	// GetLoadBalancerName is the cloud's name for service's load balancer.
	GetLoadBalancerName(ctx context.Context, clusterName string, service *api.Service) string
	// EnsureLoadBalancer creates service's load balancer, or brings an
	// existing one in line with the Service's ports and nodes, and returns
	// its status (the addresses to publish in status.loadBalancer).
	EnsureLoadBalancer(ctx context.Context, clusterName string, service *api.Service, nodes []*api.Node) (*api.LoadBalancerStatus, error)
	// UpdateLoadBalancer points service's existing load balancer at nodes.
	UpdateLoadBalancer(ctx context.Context, clusterName string, service *api.Service, nodes []*api.Node) error
	// EnsureLoadBalancerDeleted deletes service's load balancer, if any,
	// and releases its address. Deleting one that is gone is no error.
	EnsureLoadBalancerDeleted(ctx context.Context, clusterName string, service *api.Service) error
}

// InstancesV2 is the cloud's inventory of machines, asked about by node.
type InstancesV2 interface {
	// InstanceExists reports whether node's machine exists. A machine that
	// is shut down still exists.
	InstanceExists(ctx context.Context, node *api.Node) (bool, error)
	// InstanceShutdown reports whether node's machine is shut down.
	InstanceShutdown(ctx context.Context, node *api.Node) (bool, error)
	// InstanceMetadata describes node's machine; it fails with
	// ErrInstanceNotFound when there is none.
	InstanceMetadata(ctx context.Context, node *api.Node) (*InstanceMetadata, error)
}

// InstanceMetadata is what the cloud knows of a machine: what the cloud
// node controller writes onto its Node.
type InstanceMetadata struct {
	// ProviderID is the machine's id in the cloud, "<provider>://<id>".
	ProviderID string
	// InstanceType is the machine's size ("kplane.small"), the
	// node.kubernetes.io/instance-type label.
	InstanceType string
	// NodeAddresses are the machine's addresses, status.addresses.
	NodeAddresses []api.NodeAddress
	// Zone and Region are the topology.kubernetes.io/zone and region
	// labels.
	Zone   string
	Region string
}

// Routes is the route table of the cloud network that carries pod traffic
// between nodes: each node's pod range is routed to that node.
type Routes interface {
	// ListRoutes returns every route of the cluster.
	ListRoutes(ctx context.Context, clusterName string) ([]*Route, error)
	// CreateRoute adds route; nameHint (the node's UID, as upstream) may
	// become its name.
	CreateRoute(ctx context.Context, clusterName string, nameHint string, route *Route) error
	// DeleteRoute removes route.
	DeleteRoute(ctx context.Context, clusterName string, route *Route) error
}

// Route sends the packets for DestinationCIDR to the machine of TargetNode.
type Route struct {
	// Name is the cloud's name of the route.
	Name string
	// TargetNode is the node the route leads to.
	TargetNode string
	// DestinationCIDR is the node's pod range.
	DestinationCIDR string
	// Blackhole marks a route whose target machine is gone, so the cloud
	// drops its packets; the route controller deletes such routes.
	Blackhole bool
}

// Zones answers where a machine is.
type Zones interface {
	// GetZoneByNodeName returns the zone and region of node's machine.
	GetZoneByNodeName(ctx context.Context, nodeName string) (Zone, error)
}

// Zone is a failure domain and the region it belongs to.
type Zone struct {
	FailureDomain string
	Region        string
}

// ErrInstanceNotFound is what InstanceMetadata answers for a node whose
// machine does not exist (upstream's cloudprovider.InstanceNotFound).
var ErrInstanceNotFound = errors.New("instance not found")

// DefaultLoadBalancerName is upstream's name for a Service's load balancer:
// "a" followed by the Service's UID without dashes, at most 32 characters:
// unique per Service and stable for its whole life.
func DefaultLoadBalancerName(service *api.Service) string {
	name := "a" + strings.ReplaceAll(service.UID, "-", "")
	if len(name) > 32 {
		name = name[:32]
	}
	return name
}
