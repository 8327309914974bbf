package api

// This file holds ResourceList, the map of resource amounts used by pod
// requests and limits, node capacity, quotas and volume sizes.

import "strings"

// ResourceName names a resource such as "cpu" or "memory". It is an alias of
// string so that ResourceList is a plain map[string]Quantity.
type ResourceName = string

// ResourceList maps resource names to amounts, e.g. {cpu: 500m, memory: 1Gi}.
type ResourceList map[ResourceName]Quantity

// The standard resource names.
const (
	// ResourceCPU is CPU in cores; "500m" is half a core.
	ResourceCPU ResourceName = "cpu"
	// ResourceMemory is memory in bytes.
	ResourceMemory ResourceName = "memory"
	// ResourceStorage is volume size in bytes.
	ResourceStorage ResourceName = "storage"
	// ResourceEphemeralStorage is node-local scratch space in bytes.
	ResourceEphemeralStorage ResourceName = "ephemeral-storage"
	// ResourcePods is the number of pods a node can run.
	ResourcePods ResourceName = "pods"
)

// Resource names a ResourceQuota can limit besides the standard ones.
const (
	ResourceServices               ResourceName = "services"
	ResourceServicesNodePorts      ResourceName = "services.nodeports"
	ResourceServicesLoadBalancers  ResourceName = "services.loadbalancers"
	ResourceReplicationControllers ResourceName = "replicationcontrollers"
	ResourceQuotas                 ResourceName = "resourcequotas"
	ResourceSecrets                ResourceName = "secrets"
	ResourceConfigMaps             ResourceName = "configmaps"
	ResourcePersistentVolumeClaims ResourceName = "persistentvolumeclaims"
	ResourceRequestsCPU            ResourceName = "requests.cpu"
	ResourceRequestsMemory         ResourceName = "requests.memory"
	ResourceRequestsStorage        ResourceName = "requests.storage"
	ResourceRequestsEphemeral      ResourceName = "requests.ephemeral-storage"
	ResourceLimitsCPU              ResourceName = "limits.cpu"
	ResourceLimitsMemory           ResourceName = "limits.memory"
	ResourceLimitsEphemeral        ResourceName = "limits.ephemeral-storage"
)

// Cpu returns the "cpu" amount, or zero when absent.
func (l ResourceList) Cpu() Quantity { return l[ResourceCPU] }

// Memory returns the "memory" amount, or zero when absent.
func (l ResourceList) Memory() Quantity { return l[ResourceMemory] }

// Storage returns the "storage" amount, or zero when absent.
func (l ResourceList) Storage() Quantity { return l[ResourceStorage] }

// Pods returns the "pods" amount, or zero when absent.
func (l ResourceList) Pods() Quantity { return l[ResourcePods] }

// IsExtendedResourceName reports whether name is an extended resource: one
// in a domain other than kubernetes.io ("example.com/gpu"), advertised by a
// device plugin or an operator rather than by the kubelet itself. A
// ResourceQuota charges it as requests.<name>; a LimitRange may not let it
// be overcommitted. (The scheduler's IsScalarResourceName asks a wider
// question with its own rules.)
func IsExtendedResourceName(name ResourceName) bool {
	return strings.Contains(name, "/") && !strings.Contains(name, "kubernetes.io/")
}
