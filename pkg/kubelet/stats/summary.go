// Package stats is the kubelet's resource usage API: the types of the
// Summary API (`GET /stats/summary`, upstream's
// k8s.io/kubelet/pkg/apis/stats/v1alpha1) and the Prometheus collector of
// `GET /metrics/resource` (upstream's
// pkg/kubelet/metrics/collectors/resource_metrics.go), which renders the
// same figures in the form metrics-server scrapes.
//
// Upstream, cAdvisor and the CRI measure each container's cgroup and the
// kubelet's summary provider adds them up per pod and for the node. In
// kplane the container runtime reports each container's sample
// (runtime.Usage: from the load model of package simload in the simulated
// runtime, from /proc in the process runtime) and the kubelet's stats.go
// builds the Summary. Only the CPU and memory parts are filled: kplane has
// no network, filesystem or swap to measure, and leaves those fields out
// rather than invent them.
package stats

import "kplane/pkg/api"

// Summary is a node's and its pods' resource usage, the body of
// GET /stats/summary.
type Summary struct {
	// Node is the node's usage.
	Node NodeStats `json:"node"`
	// Pods are the node's pods with at least one running container.
	Pods []PodStats `json:"pods"`
}

// NodeStats is the usage of the whole node.
type NodeStats struct {
	// NodeName is the node's name.
	NodeName string `json:"nodeName"`
	// StartTime is when the node's stats began to be collected (the
	// kubelet's start).
	StartTime api.Time `json:"startTime"`
	// CPU and Memory are the node's: its pods' plus the system's base.
	CPU    *CPUStats    `json:"cpu,omitempty"`
	Memory *MemoryStats `json:"memory,omitempty"`
}

// PodStats is the usage of one pod: its containers and their sum.
type PodStats struct {
	// PodRef names the pod.
	PodRef PodReference `json:"podRef"`
	// StartTime is when the kubelet started the pod (status.startTime).
	StartTime api.Time `json:"startTime"`
	// Containers are the pod's running containers.
	Containers []ContainerStats `json:"containers"`
	// CPU and Memory are the sums over Containers.
	CPU    *CPUStats    `json:"cpu,omitempty"`
	Memory *MemoryStats `json:"memory,omitempty"`
}

// PodReference names a pod.
type PodReference struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	UID       string `json:"uid"`
}

// ContainerStats is the usage of one running container.
type ContainerStats struct {
	// Name is the container's name in the pod spec.
	Name string `json:"name"`
	// StartTime is when the current run of the container started.
	StartTime api.Time     `json:"startTime"`
	CPU       *CPUStats    `json:"cpu,omitempty"`
	Memory    *MemoryStats `json:"memory,omitempty"`
}

// CPUStats is CPU use at Time.
type CPUStats struct {
	// Time is when the sample was taken.
	Time api.Time `json:"time"`
	// UsageNanoCores is the rate of CPU use, in billionths of a core.
	UsageNanoCores *uint64 `json:"usageNanoCores,omitempty"`
	// UsageCoreNanoSeconds is the cumulative CPU time, in core-nanoseconds.
	UsageCoreNanoSeconds *uint64 `json:"usageCoreNanoSeconds,omitempty"`
}

// MemoryStats is memory use at Time.
type MemoryStats struct {
	// Time is when the sample was taken.
	Time api.Time `json:"time"`
	// AvailableBytes is the memory left before the node's allocatable
	// memory is used up (node only).
	AvailableBytes *uint64 `json:"availableBytes,omitempty"`
	// UsageBytes is all memory in use; kplane has no page cache to add,
	// so it equals WorkingSetBytes.
	UsageBytes *uint64 `json:"usageBytes,omitempty"`
	// WorkingSetBytes is the memory in use that cannot be reclaimed, the
	// figure `kubectl top` shows and evictions act on.
	WorkingSetBytes *uint64 `json:"workingSetBytes,omitempty"`
}
