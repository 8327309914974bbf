package quota

import (
	"fmt"
	"slices"
	"time"

	"kplane/pkg/api"
)

// serviceResources are the quota names a Service charges.
var serviceResources = []api.ResourceName{
	"count/services", api.ResourceServices, api.ResourceServicesNodePorts, api.ResourceServicesLoadBalancers,
}

// serviceEvaluator is the Evaluator of Services (upstream's core/services.go).
type serviceEvaluator struct{}

// NewServiceEvaluator returns the evaluator of Services.
func NewServiceEvaluator() Evaluator { return serviceEvaluator{} }

// GroupResource is services.
func (serviceEvaluator) GroupResource() GroupResource { return GroupResource{Resource: "services"} }

// Handles creates and updates: changing a Service's type to NodePort or
// LoadBalancer charges node ports and a load balancer.
func (serviceEvaluator) Handles(op Operation) bool { return op == Create || op == Update }

// MatchingResources returns the service resources among input.
func (serviceEvaluator) MatchingResources(input []api.ResourceName) []api.ResourceName {
	return Intersection(input, serviceResources)
}

// MatchesScope is false: Services have no quota scopes.
func (serviceEvaluator) MatchesScope(s api.ScopedResourceSelectorRequirement, obj api.Object) (bool, error) {
	return noScopes(s, obj)
}

// Constraints has nothing to refuse: every Service can be counted.
func (serviceEvaluator) Constraints([]api.ResourceName, api.Object) error { return nil }

// Usage is one service; a NodePort Service charges one node port per
// port, a LoadBalancer one load balancer and its node ports (only those it
// has when allocateLoadBalancerNodePorts is false).
func (serviceEvaluator) Usage(obj api.Object, _ time.Time) (api.ResourceList, error) {
	svc, ok := obj.(*api.Service)
	if !ok {
		return nil, fmt.Errorf("quota: expected a Service, got %T", obj)
	}
	one := api.NewQuantity(1, api.DecimalSI)
	usage := api.ResourceList{"count/services": one, api.ResourceServices: one}
	nodePorts := len(svc.Spec.Ports)
	switch svc.Spec.Type {
	case api.ServiceTypeNodePort:
		usage[api.ResourceServicesNodePorts] = api.NewQuantity(int64(nodePorts), api.DecimalSI)
	case api.ServiceTypeLoadBalancer:
		if svc.Spec.AllocateLoadBalancerNodePorts != nil && !*svc.Spec.AllocateLoadBalancerNodePorts {
			nodePorts = len(slices.DeleteFunc(slices.Clone(svc.Spec.Ports), func(p api.ServicePort) bool { return p.NodePort == 0 }))
		}
		usage[api.ResourceServicesNodePorts] = api.NewQuantity(int64(nodePorts), api.DecimalSI)
		usage[api.ResourceServicesLoadBalancers] = one
	}
	return usage, nil
}
