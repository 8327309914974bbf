package metricsserver

// This file is the metrics store, upstream's pkg/storage (node.go, pod.go,
// types.go). It keeps, for every node and every container, the last two
// points the scraper brought, and turns them into usage when asked:
//
//	cpu    = (last.cumulativeCPU − prev.cumulativeCPU) / (last.timestamp − prev.timestamp)
//	memory = last.workingSet
//	window = last.timestamp − prev.timestamp
//
// so a node or pod appears only once it has been scraped twice with time
// passing in between. Each Store replaces what the last one brought: a node
// that failed to answer, or a pod that is gone, has no metrics until it
// is scraped again.

import (
	"slices"
	"strings"
	"sync"
	"time"

	"kplane/pkg/api"
)

// freshContainerMinAge is how old a container must be before its start is
// trusted as a first point. Upstream's rule: a container that started less
// than one resolution before its first sample, but at least 10 s before
// it, gets a synthetic previous point (zero CPU at its start time), so that
// it has metrics after one scrape instead of two. Younger than 10 s, the
// rate over so short a window would be too noisy.
const freshContainerMinAge = 10 * time.Second

// pointPair is a node's or container's last point and, once it has one,
// the point before it.
type pointPair struct {
	last MetricsPoint
	// prev is the earlier point, nil until a second sample has arrived.
	// Invariant: prev.Timestamp is before last.Timestamp and
	// prev's counter is not above last's.
	prev *MetricsPoint
}

// Usage is a node's or container's usage over a window.
type Usage struct {
	// CPU is in cores, Memory in bytes (api.ResourceList keys cpu and
	// memory).
	Resources api.ResourceList
	// Timestamp is the later sample's time; Window the time since the
	// earlier one.
	Timestamp time.Time
	Window    time.Duration
}

// ContainerUsage is one container's usage.
type ContainerUsage struct {
	Name string
	Usage
}

// Store keeps the last two points of every node and container. It is safe
// for concurrent use: the scraper writes while the API reads.
type Store struct {
	// resolution is the scrape interval, for the fresh-container rule.
	resolution time.Duration

	mu    sync.RWMutex
	nodes map[string]pointPair
	pods  map[PodRef]map[string]pointPair
}

// NewStore returns an empty store for a scraper scraping every resolution.
func NewStore(resolution time.Duration) *Store {
	return &Store{resolution: resolution, nodes: map[string]pointPair{}, pods: map[PodRef]map[string]pointPair{}}
}

// Store replaces the store's contents with one scrape round: batches by
// node name. A node's or container's previous point is kept when the new
// point is later than it and its counter has not gone backwards.
func (s *Store) Store(batches map[string]*MetricsBatch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	nodes := map[string]pointPair{}
	pods := map[PodRef]map[string]pointPair{}
	for nodeName, batch := range batches {
		if batch == nil {
			continue
		}
		if batch.Node != nil {
			old, seen := s.nodes[nodeName]
			nodes[nodeName] = nextPair(old, seen, *batch.Node)
		}
		for ref, containers := range batch.Pods {
			if _, dup := pods[ref]; dup {
				continue // two kubelets reporting one pod: keep the first
			}
			pairs := map[string]pointPair{}
			for name, p := range containers {
				pairs[name] = s.nextContainerPair(ref, name, p)
			}
			pods[ref] = pairs
		}
	}
	s.nodes, s.pods = nodes, pods
}

// nextContainerPair is nextPair with upstream's two container rules: a
// container that restarted since the stored point starts over, and a
// fresh container gets a synthetic previous point at its start.
func (s *Store) nextContainerPair(ref PodRef, name string, p MetricsPoint) pointPair {
	age := p.Timestamp.Sub(p.StartTime)
	if !p.StartTime.IsZero() && age >= freshContainerMinAge && age < s.resolution {
		start := MetricsPoint{StartTime: p.StartTime, Timestamp: p.StartTime}
		return pointPair{last: p, prev: &start}
	}
	old, seen := s.pods[ref][name]
	if seen && !p.StartTime.IsZero() && !p.StartTime.Before(old.last.Timestamp) {
		seen = false // started again after the stored sample: a new run
	}
	return nextPair(old, seen, p)
}

// nextPair is the pair after point p arrives for something whose stored
// pair is old (when seen). The later of the stored points that precedes p
// becomes prev; a counter below the stored one means the node or
// container started over, and p is then its first point.
func nextPair(old pointPair, seen bool, p MetricsPoint) pointPair {
	if !seen {
		return pointPair{last: p}
	}
	switch {
	case p.CumulativeCPUNanoSeconds < old.last.CumulativeCPUNanoSeconds:
		return pointPair{last: p}
	case p.Timestamp.After(old.last.Timestamp):
		last := old.last
		return pointPair{last: p, prev: &last}
	case old.prev != nil && old.prev.Timestamp.Before(p.Timestamp):
		// The same sample again (the kubelet had not measured anew): keep
		// the older point so the rate still has a window.
		return pointPair{last: p, prev: old.prev}
	}
	return pointPair{last: p}
}

// usage is the pair's usage, false without two points.
func (pp pointPair) usage() (Usage, bool) {
	if pp.prev == nil {
		return Usage{}, false
	}
	window := pp.last.Timestamp.Sub(pp.prev.Timestamp)
	if window <= 0 || pp.last.CumulativeCPUNanoSeconds < pp.prev.CumulativeCPUNanoSeconds {
		return Usage{}, false
	}
	cpuNanoSeconds := float64(pp.last.CumulativeCPUNanoSeconds - pp.prev.CumulativeCPUNanoSeconds)
	nanoCores := int64(cpuNanoSeconds / window.Seconds())
	return Usage{
		Resources: api.ResourceList{
			api.ResourceCPU:    api.NewScaledQuantity(nanoCores, -9),
			api.ResourceMemory: api.NewQuantity(int64(pp.last.MemoryWorkingSetBytes), api.BinarySI),
		},
		Timestamp: pp.last.Timestamp,
		Window:    window,
	}, true
}

// NodeUsage is the named node's usage, false when the store has no two
// points for it.
func (s *Store) NodeUsage(node string) (Usage, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.nodes[node].usage()
}

// PodUsage is the usage of each of the pod's containers, sorted by name,
// with the earliest container timestamp and its window, as upstream
// reports a pod. It is false unless every container the last scrape saw
// has two points: a pod with one container still missing would show too
// little.
func (s *Store) PodUsage(ref PodRef) ([]ContainerUsage, Usage, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	pairs, ok := s.pods[ref]
	if !ok || len(pairs) == 0 {
		return nil, Usage{}, false
	}
	var containers []ContainerUsage
	var earliest Usage
	for name, pp := range pairs {
		u, ok := pp.usage()
		if !ok {
			return nil, Usage{}, false
		}
		containers = append(containers, ContainerUsage{Name: name, Usage: u})
		if earliest.Timestamp.IsZero() || u.Timestamp.Before(earliest.Timestamp) {
			earliest = Usage{Timestamp: u.Timestamp, Window: u.Window}
		}
	}
	slices.SortFunc(containers, func(a, b ContainerUsage) int { return strings.Compare(a.Name, b.Name) })
	return containers, earliest, true
}

// Counts is how many nodes and containers the store holds points for,
// and how many of them have two (and so have metrics).
type Counts struct {
	Nodes, NodesWithMetrics           int
	Containers, ContainersWithMetrics int
}

// Counts counts the store's contents, for logs and the debug API.
func (s *Store) Counts() Counts {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var c Counts
	for _, pp := range s.nodes {
		c.Nodes++
		if pp.prev != nil {
			c.NodesWithMetrics++
		}
	}
	for _, pairs := range s.pods {
		for _, pp := range pairs {
			c.Containers++
			if pp.prev != nil {
				c.ContainersWithMetrics++
			}
		}
	}
	return c
}
