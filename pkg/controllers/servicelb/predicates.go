package servicelb

// The pure decisions of the service controller, each named after its
// upstream counterpart in k8s.io/cloud-provider controllers/service/controller.go.

import (
	"reflect"
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/cloudprovider"
	"kplane/pkg/controllers/controllerutil"
)

// toBeDeletedTaint is the cluster autoscaler's taint on a node it is about
// to remove: such a node leaves the load balancers first.
const toBeDeletedTaint = "ToBeDeletedByClusterAutoscaler"

// wantsLoadBalancer: type LoadBalancer and no loadBalancerClass. A class
// names another implementation (MetalLB, a Gateway controller…), and the
// cloud's own load balancers serve only Services without one.
func wantsLoadBalancer(svc *api.Service) bool {
	return svc.Spec.Type == api.ServiceTypeLoadBalancer && svc.Spec.LoadBalancerClass == nil
}

// hasCleanupFinalizer reports whether svc holds the load-balancer-cleanup
// finalizer.
func hasCleanupFinalizer(svc *api.Service) bool {
	return slices.Contains(svc.Finalizers, cloudprovider.LoadBalancerCleanupFinalizer)
}

// needsCleanup: svc holds the finalizer but is being deleted or no longer
// of type LoadBalancer, so its load balancer must go.
func needsCleanup(svc *api.Service) bool {
	if !hasCleanupFinalizer(svc) {
		return false
	}
	return svc.DeletionTimestamp != nil || svc.Spec.Type != api.ServiceTypeLoadBalancer
}

// needsUpdate reports whether a change from old to svc concerns the load
// balancer: wanting one or not, its ports, session affinity, requested
// address, source ranges, external IPs, traffic policy, health check port,
// annotations (providers read their settings there) or a new UID (deleted
// and created again). Status and finalizer changes — the controller's own
// writes — do not.
func needsUpdate(old, svc *api.Service) bool {
	if !wantsLoadBalancer(old) && !wantsLoadBalancer(svc) {
		return false
	}
	if wantsLoadBalancer(old) != wantsLoadBalancer(svc) {
		return true
	}
	o, n := old.Spec, svc.Spec
	return !portsEqualForLB(o.Ports, n.Ports) ||
		o.SessionAffinity != n.SessionAffinity ||
		!reflect.DeepEqual(o.SessionAffinityConfig, n.SessionAffinityConfig) ||
		o.LoadBalancerIP != n.LoadBalancerIP ||
		!slices.Equal(o.LoadBalancerSourceRanges, n.LoadBalancerSourceRanges) ||
		!slices.Equal(o.ExternalIPs, n.ExternalIPs) ||
		o.ExternalTrafficPolicy != n.ExternalTrafficPolicy ||
		o.HealthCheckNodePort != n.HealthCheckNodePort ||
		!reflect.DeepEqual(old.Annotations, svc.Annotations) ||
		old.UID != svc.UID
}

// portsEqualForLB compares the ports as a load balancer sees them: name,
// protocol, port, nodePort and targetPort, in order.
func portsEqualForLB(a, b []api.ServicePort) bool {
	return slices.EqualFunc(a, b, func(x, y api.ServicePort) bool {
		return x.Name == y.Name && x.Protocol == y.Protocol && x.Port == y.Port && x.NodePort == y.NodePort && x.TargetPort == y.TargetPort
	})
}

// includeNode is upstream's node predicate for load balancers: a node the
// exclude label does not keep out, the autoscaler is not removing, and
// whose Ready condition is True.
func includeNode(node *api.Node) bool {
	if _, excluded := node.Labels[cloudprovider.LabelExcludeFromLoadBalancers]; excluded {
		return false
	}
	for _, t := range node.Spec.Taints {
		if t.Key == toBeDeletedTaint {
			return false
		}
	}
	return controllerutil.NodeReadyStatus(node) == api.ConditionTrue
}

// shouldSyncNode reports whether a node change may change the node set:
// schedulability, labels or the Ready condition.
func shouldSyncNode(old, node *api.Node) bool {
	return old.Spec.Unschedulable != node.Spec.Unschedulable ||
		!reflect.DeepEqual(old.Labels, node.Labels) ||
		controllerutil.NodeReadyStatus(old) != controllerutil.NodeReadyStatus(node) ||
		slices.ContainsFunc(old.Spec.Taints, isToBeDeleted) != slices.ContainsFunc(node.Spec.Taints, isToBeDeleted)
}

func isToBeDeleted(t api.Taint) bool { return t.Key == toBeDeletedTaint }

// loadBalancerHosts are the nodes of nodes a load balancer forwards to,
// sorted by name.
func loadBalancerHosts(nodes []*api.Node) []*api.Node {
	var hosts []*api.Node
	for _, n := range nodes {
		if includeNode(n) {
			hosts = append(hosts, n)
		}
	}
	slices.SortFunc(hosts, func(a, b *api.Node) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return hosts
}

// hostNames are the names of hosts, in their order.
func hostNames(hosts []*api.Node) []string {
	names := make([]string, 0, len(hosts))
	for _, h := range hosts {
		names = append(names, h.Name)
	}
	return names
}
