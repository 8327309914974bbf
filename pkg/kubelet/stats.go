package kubelet

// This file builds the node's Summary (package stats), which the kubelet's
// server answers GET /stats/summary and GET /metrics/resource with.
// Upstream's summary provider (pkg/kubelet/server/stats/summary.go) asks
// cAdvisor and the CRI for every container's cgroup figures; kplane asks
// each running container's runtime.Container for a sample, adds the samples
// up per pod, and for the node adds the pods up plus a base for the system
// (simload.NodeUsage), so a node's figures are its pods' and a lesson can
// predict them.

import (
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/runtime"
	"kplane/pkg/kubelet/simload"
	"kplane/pkg/kubelet/stats"
)

// nodeCPU keeps a node's cumulative CPU counter. The node's counter cannot
// be the sum of its containers' counters — a container that exits would
// take its CPU time with it and the counter would go back — so it is
// advanced at every summary by what each container used since the previous
// one, plus the base's use over the interval.
//
// Invariant: containers + base's counter never decreases; last holds, for
// every container of the previous summary, its counter then.
type nodeCPU struct {
	mu         sync.Mutex
	containers uint64              // core-nanoseconds the containers used since the kubelet started
	base       *simload.CPUCounter // the node's own use (system daemons), from the kubelet's start
	last       map[runtime.Container]uint64
}

// advance adds the containers' use since the previous summary (a new
// container's: all of it), brings the base's counter (started at start the
// first time) up to now, and returns the total.
func (n *nodeCPU) advance(start, now time.Time, samples map[runtime.Container]runtime.Usage) uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	for c, u := range samples {
		if u.UsageCoreNanoSeconds >= n.last[c] {
			n.containers += u.UsageCoreNanoSeconds - n.last[c]
		}
	}
	if n.base == nil {
		n.base = simload.NewCPUCounter(start, simload.NodeBaseMilliCPU*1e6)
	}
	n.last = make(map[runtime.Container]uint64, len(samples))
	for c, u := range samples {
		n.last[c] = u.UsageCoreNanoSeconds
	}
	return n.containers + n.base.Advance(now)
}

// runningContainer is a container run to sample, with what the summary
// reports about it.
type runningContainer struct {
	name      string
	startedAt time.Time
	container runtime.Container
}

// runningContainers lists the pod's running containers (those the runtime
// gave a handle for; a run known only from a previous kubelet's status has
// nothing to sample), sorted by name.
func (w *podWorker) runningContainers() []runningContainer {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []runningContainer
	for name, st := range w.containers {
		if run := st.current; run.isRunning() && run.container != nil {
			out = append(out, runningContainer{name: name, startedAt: run.startedAt, container: run.container})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// Summary samples every running container of the node and returns the
// node's Summary: its pods sorted by namespace and name, and the node's
// figures as simload.NodeUsage adds them up.
func (k *Kubelet) Summary() *stats.Summary {
	k.mu.Lock()
	workers := make([]*podWorker, 0, len(k.workers))
	for _, w := range k.workers {
		workers = append(workers, w)
	}
	k.mu.Unlock()

	// One instant for the whole node, on a whole millisecond: Prometheus
	// timestamps are milliseconds, and a counter sampled between two of
	// them would make the rate metrics-server computes a hair too high,
	// which `kubectl top` rounds up (701m for 700m).
	now := k.clock.Now().Truncate(time.Millisecond)
	samples := map[runtime.Container]runtime.Usage{}
	var podsNanoCores, podsWorkingSet uint64
	var pods []stats.PodStats
	for _, w := range workers {
		running := w.runningContainers()
		if len(running) == 0 {
			continue
		}
		pod := w.currentPod()
		ps := stats.PodStats{PodRef: stats.PodReference{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID}}
		if pod.Status.StartTime != nil {
			ps.StartTime = *pod.Status.StartTime
		}
		var podCPU, podCPUTotal, podMemory uint64
		for _, rc := range running {
			var u runtime.Usage
			if sampler, ok := rc.container.(runtime.UsageSampler); ok {
				u = sampler.UsageAt(now)
			} else {
				u = rc.container.Usage()
			}
			if u.Time.IsZero() {
				continue // exited since it was listed
			}
			samples[rc.container] = u
			ps.Containers = append(ps.Containers, stats.ContainerStats{Name: rc.name, StartTime: api.NewTime(rc.startedAt),
				CPU: cpuStats(u.Time, u.UsageNanoCores, u.UsageCoreNanoSeconds), Memory: memoryStats(u.Time, u.WorkingSetBytes, nil)})
			podCPU += u.UsageNanoCores
			podCPUTotal += u.UsageCoreNanoSeconds
			podMemory += u.WorkingSetBytes
		}
		if len(ps.Containers) == 0 {
			continue
		}
		ps.CPU, ps.Memory = cpuStats(now, podCPU, podCPUTotal), memoryStats(now, podMemory, nil)
		podsNanoCores += podCPU
		podsWorkingSet += podMemory
		pods = append(pods, ps)
	}
	sort.Slice(pods, func(i, j int) bool {
		a, b := pods[i].PodRef, pods[j].PodRef
		return a.Namespace < b.Namespace || a.Namespace == b.Namespace && a.Name < b.Name
	})

	nodeNanoCores, nodeWorkingSet := simload.NodeUsage(podsNanoCores, podsWorkingSet)
	var available *uint64
	if capacity := k.memoryCapacity; capacity > 0 {
		a := capacity - min(capacity, nodeWorkingSet)
		available = &a
	}
	return &stats.Summary{
		Node: stats.NodeStats{NodeName: k.nodeName, StartTime: api.NewTime(k.startedAt),
			CPU:    cpuStats(now, nodeNanoCores, k.nodeCPU.advance(k.startedAt, now, samples)),
			Memory: memoryStats(now, nodeWorkingSet, available)},
		Pods: pods,
	}
}

func cpuStats(at time.Time, nanoCores, coreNanoSeconds uint64) *stats.CPUStats {
	return &stats.CPUStats{Time: api.NewTime(at), UsageNanoCores: &nanoCores, UsageCoreNanoSeconds: &coreNanoSeconds}
}

// memoryStats reports workingSet as both the working set and the usage:
// kplane's containers have no page cache that could be reclaimed.
func memoryStats(at time.Time, workingSet uint64, available *uint64) *stats.MemoryStats {
	return &stats.MemoryStats{Time: api.NewTime(at), WorkingSetBytes: &workingSet, UsageBytes: &workingSet, AvailableBytes: available}
}

// Summary returns the Summary of the process's node named nodeName. A
// process with one node answers for it whatever the name (a caller that
// dialed the node's address need not know it); one with hollow nodes,
// which share one server, needs the name (the server passes the request's
// host).
func (s *nodeSet) Summary(nodeName string) (*stats.Summary, error) {
	if len(s.ordered) == 1 {
		return s.ordered[0].Summary(), nil
	}
	if k := s.byName[nodeName]; k != nil {
		return k.Summary(), nil
	}
	return nil, &ContainerLookupError{http.StatusNotFound, fmt.Sprintf(
		"node %q is not one of this kubelet's %d nodes; name the node in the request's Host header", nodeName, len(s.ordered))}
}
