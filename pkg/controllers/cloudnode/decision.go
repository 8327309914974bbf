package cloudnode

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/cloudprovider"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose syncNode this mirrors.
const decisionSource = "staging/src/k8s.io/cloud-provider/controllers/node/node_controller.go"

// recordInitialize records "node1 has the uninitialized taint → the cloud
// says providerID kplane://node1, type kplane.small, zone kplane-local-b,
// region kplane-local: label the node and remove the taint".
func (c *Controller) recordInitialize(node *api.Node, meta *cloudprovider.InstanceMetadata) {
	if !c.decisions.Enabled() {
		return
	}
	c.decisions.Record(&node.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("%s has the %s taint → the cloud says providerID %s, type %s, zone %s, region %s: label the node and remove the taint",
			node.Name, cloudprovider.TaintExternalCloudProvider, meta.ProviderID, meta.InstanceType, meta.Zone, meta.Region),
		Values: map[string]string{"providerID": meta.ProviderID, "instanceType": meta.InstanceType, "zone": meta.Zone, "region": meta.Region},
		Source: decisionSource,
	})
}
