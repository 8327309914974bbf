package framework

import (
	"strings"

	"kplane/pkg/api"
)

// Requests a container is assumed to make when it names no CPU or memory
// request, for scoring only (upstream's DefaultMilliCPURequest and
// DefaultMemoryRequest). Without them every pod without requests would
// look free, and LeastAllocated would pile them all onto one node; with
// them, thirty bare pods spread ten to a node on three equal nodes.
const (
	DefaultMilliCPURequest int64 = 100               // 0.1 core
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024 // 200 MiB
)

// PodInfo is a pod plus the facts about it that plugins would otherwise
// recompute for every node: its total resource requests and the host ports
// it wants. Upstream computes these in PreFilter/PreScore and keeps them in
// the cycle's state; kplane computes them once when the pod is taken off
// the queue (and once when an assigned pod enters the node cache).
// A PodInfo is read-only once built, except for CycleState, which the
// PreFilter plugins fill in before any Filter runs.
type PodInfo struct {
	// Pod is the pod itself, shared with the informer's cache: read only.
	Pod *api.Pod
	// Key is "namespace/name", how logs and the queue name the pod.
	Key string
	// UID is metadata.uid (Key when the pod has none, as in unit tests).
	// The cache and NodeInfo file pods under it: a StatefulSet's new web-0
	// may be placed while the old web-0 is still terminating, and both
	// must be counted.
	UID string
	// Requests is what NodeResourcesFit checks against a node's free
	// allocatable: the most the pod needs at any moment (see
	// computeRequests). BalancedAllocation scores with it too.
	Requests Resource
	// NonZeroRequests is Requests with DefaultMilliCPURequest and
	// DefaultMemoryRequest standing in for each container's missing CPU
	// and memory requests; LeastAllocated scores with it.
	NonZeroRequests Resource
	// HostPorts are the container ports with a hostPort set.
	HostPorts []HostPort
	// CycleState is what the PreFilter plugins of the pod's current
	// scheduling cycle left for their Filters. It stays empty for the pods
	// in the node cache, which are never filtered.
	CycleState CycleState
}

// NewPodInfo computes a pod's PodInfo.
func NewPodInfo(pod *api.Pod) *PodInfo {
	return &PodInfo{
		Pod:             pod,
		Key:             PodKey(pod),
		UID:             PodUID(pod),
		Requests:        computeRequests(pod, false),
		NonZeroRequests: computeRequests(pod, true),
		HostPorts:       hostPorts(pod),
	}
}

// PodKey returns "namespace/name", the key the scheduler files a pod under
// in its queue and cache.
func PodKey(pod *api.Pod) string { return pod.Namespace + "/" + pod.Name }

// PodUID returns the pod's UID, or its key if it has none.
func PodUID(pod *api.Pod) string {
	if pod.UID != "" {
		return pod.UID
	}
	return PodKey(pod)
}

// computeRequests returns the resources a pod needs, as upstream's
// resource helper PodRequests computes them:
//
//   - app containers run together, so their requests add up;
//   - init containers run one at a time before them, so only the largest
//     counts — but restartable init containers (sidecars) keep running
//     beside everything started after them, so they add to both;
//   - the pod needs the larger of the two phases, plus spec.overhead.
//
// With nonZero, a container that names no cpu or memory request is
// counted as asking for DefaultMilliCPURequest / DefaultMemoryRequest.
func computeRequests(pod *api.Pod, nonZero bool) Resource {
	var total Resource
	for i := range pod.Spec.Containers {
		total.Add(containerRequests(&pod.Spec.Containers[i], nonZero))
	}
	var sidecars, initPhase Resource
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		req := containerRequests(c, nonZero)
		if c.RestartPolicy != nil && *c.RestartPolicy == api.ContainerRestartPolicyAlways {
			total.Add(req)
			sidecars.Add(req)
			initPhase.SetMax(sidecars)
			continue
		}
		step := sidecars.Clone()
		step.Add(req)
		initPhase.SetMax(step)
	}
	total.SetMax(initPhase)
	total.Add(resourceFromList(pod.Spec.Overhead))
	return total
}

// containerRequests reads one container's requests.
func containerRequests(c *api.Container, nonZero bool) Resource {
	r := resourceFromList(c.Resources.Requests)
	if nonZero {
		if _, ok := c.Resources.Requests[api.ResourceCPU]; !ok {
			r.MilliCPU = DefaultMilliCPURequest
		}
		if _, ok := c.Resources.Requests[api.ResourceMemory]; !ok {
			r.Memory = DefaultMemoryRequest
		}
	}
	return r
}

// hostPorts lists the ports a pod's app containers bind on the node, as
// upstream's NodePorts plugin reads them (init containers are not counted).
func hostPorts(pod *api.Pod) []HostPort {
	var ports []HostPort
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.HostPort <= 0 {
				continue
			}
			ports = append(ports, NewHostPort(p.HostIP, string(p.Protocol), p.HostPort))
		}
	}
	return ports
}

// IsScalarResourceName reports whether a resource name is one
// NodeResourcesFit counts beyond cpu, memory, ephemeral-storage and pods:
// extended resources ("example.com/gpu"), huge pages and attachable
// volumes, as upstream's IsScalarResourceName decides.
func IsScalarResourceName(name string) bool {
	switch {
	case strings.HasPrefix(name, "hugepages-"), strings.HasPrefix(name, "attachable-volumes-"):
		return true
	case strings.HasPrefix(name, "requests."):
		return false // quota names, never a node's resource
	case strings.Contains(name, "/"):
		// Extended resources live outside the kubernetes.io domain.
		domain := name[:strings.Index(name, "/")]
		return domain != "kubernetes.io" && !strings.HasSuffix(domain, ".kubernetes.io")
	}
	return false
}
