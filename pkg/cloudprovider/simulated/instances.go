package simulated

import (
	"context"
	"fmt"
	"strconv"

	"kplane/pkg/api"
	"kplane/pkg/cloudprovider"
)

// The simulated machines' fixed facts.
const (
	// InstanceType is every machine's size.
	InstanceType = "kplane.small"
	// Region is the one region of the simulated cloud.
	Region = "kplane-local"
)

// zones are the region's zones, which machines are spread over (zoneFor).
var zones = []string{Region + "-a", Region + "-b", Region + "-c"}

// InstanceState is a machine's power state, which `ctl cloud instance`
// changes.
type InstanceState string

// The machine states.
const (
	// InstanceRunning is a machine that is on: the normal state.
	InstanceRunning InstanceState = "running"
	// InstanceShutdown is a machine that is off but still exists; `ctl
	// cloud instance start` turns it on again.
	InstanceShutdown InstanceState = "shutdown"
	// InstanceDeleted is a machine that no longer exists. It cannot be
	// started again, as a terminated cloud machine cannot.
	InstanceDeleted InstanceState = "deleted"
)

// instance is one simulated machine.
type instance struct {
	node  string
	zone  string
	state InstanceState
	// internalIP is the machine's address on the cloud network: the
	// InternalIP its kubelet reports (kplane's nodes all share the host's
	// loopback address), learnt when a controller first asks.
	internalIP string
}

// instanceFor returns node's machine, making it the first time: every node
// has a machine in the simulated cloud. Call it with c.mu held.
func (c *Cloud) instanceFor(node *api.Node) *instance {
	in, ok := c.instances[node.Name]
	if !ok {
		in = &instance{node: node.Name, zone: zoneFor(node.Name), state: InstanceRunning}
		c.instances[node.Name] = in
	}
	if ip := internalIPOf(node); ip != "" {
		in.internalIP = ip
	}
	return in
}

// InstanceExists reports whether node's machine exists: true unless it was
// deleted.
func (c *Cloud) InstanceExists(_ context.Context, node *api.Node) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.instanceFor(node).state != InstanceDeleted, nil
}

// InstanceShutdown reports whether node's machine is shut down.
func (c *Cloud) InstanceShutdown(_ context.Context, node *api.Node) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.instanceFor(node).state == InstanceShutdown, nil
}

// InstanceMetadata describes node's machine: providerID kplane://<node>,
// type kplane.small, its zone in region kplane-local, and its addresses
// (InternalIP and Hostname).
func (c *Cloud) InstanceMetadata(_ context.Context, node *api.Node) (*cloudprovider.InstanceMetadata, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	in := c.instanceFor(node)
	if in.state == InstanceDeleted {
		return nil, fmt.Errorf("node %s: %w", node.Name, cloudprovider.ErrInstanceNotFound)
	}
	return in.metadata(), nil
}

// GetZoneByNodeName returns the zone of nodeName's machine.
func (c *Cloud) GetZoneByNodeName(_ context.Context, nodeName string) (cloudprovider.Zone, error) {
	return cloudprovider.Zone{FailureDomain: zoneFor(nodeName), Region: Region}, nil
}

func (in *instance) metadata() *cloudprovider.InstanceMetadata {
	var addresses []api.NodeAddress
	if in.internalIP != "" {
		addresses = append(addresses, api.NodeAddress{Type: api.NodeInternalIP, Address: in.internalIP})
	}
	addresses = append(addresses, api.NodeAddress{Type: api.NodeHostName, Address: in.node})
	return &cloudprovider.InstanceMetadata{
		ProviderID:    ProviderIDFor(in.node),
		InstanceType:  InstanceType,
		NodeAddresses: addresses,
		Zone:          in.zone,
		Region:        Region,
	}
}

// ProviderIDFor is node's providerID in the simulated cloud.
func ProviderIDFor(node string) string { return ProviderName + "://" + node }

// zoneFor spreads machines over the three zones by the number a node's
// name ends with: zone N mod 3, so that consecutive nodes land in
// different zones (node1 → b, node2 → c, node3 → a); a name without a
// number (control-plane) counts as 0, zone a. It depends on the name only,
// so a restarted cloud puts every machine where it was.
func zoneFor(node string) string {
	i := len(node)
	for i > 0 && node[i-1] >= '0' && node[i-1] <= '9' {
		i--
	}
	n, err := strconv.Atoi(node[i:])
	if err != nil || n < 0 {
		n = 0 // no number, or one too long for an int
	}
	return zones[n%len(zones)]
}

// internalIPOf is the InternalIP node's kubelet reports, if any.
func internalIPOf(node *api.Node) string {
	for _, a := range node.Status.Addresses {
		if a.Type == api.NodeInternalIP {
			return a.Address
		}
	}
	return ""
}

// SetInstanceState moves node's machine to state, for the lessons: running
// ↔ shutdown, and anything → deleted. A deleted machine stays deleted. It
// returns the machine as it now is.
func (c *Cloud) SetInstanceState(node string, state InstanceState) (InstanceView, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	in := c.instanceFor(&api.Node{ObjectMeta: api.ObjectMeta{Name: node}})
	switch {
	case in.state == InstanceDeleted && state != InstanceDeleted:
		return InstanceView{}, fmt.Errorf("the machine of node %s was deleted and cannot be %s", node, verbFor(state))
	case state != InstanceRunning && state != InstanceShutdown && state != InstanceDeleted:
		return InstanceView{}, fmt.Errorf("unknown instance state %q", state)
	}
	in.state = state
	return in.view(), nil
}

// verbFor names the change to state, for errors.
func verbFor(state InstanceState) string {
	if state == InstanceRunning {
		return "started"
	}
	return string(state)
}
