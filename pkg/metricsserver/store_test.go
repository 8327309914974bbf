package metricsserver

import (
	"testing"
	"time"
)

var t0 = time.Unix(1700000000, 0)

// point is a sample at t0+at with cpu CPU-seconds used and mem bytes.
func point(at time.Duration, cpuSeconds float64, mem uint64) MetricsPoint {
	return MetricsPoint{Timestamp: t0.Add(at), CumulativeCPUNanoSeconds: uint64(cpuSeconds * 1e9), MemoryWorkingSetBytes: mem}
}

func nodeBatch(p MetricsPoint) map[string]*MetricsBatch {
	return map[string]*MetricsBatch{"node1": {Node: &p}}
}

func TestNodeUsageIsTheRateBetweenTwoPoints(t *testing.T) {
	s := NewStore(15 * time.Second)
	s.Store(nodeBatch(point(0, 100, 1<<20)))
	if _, ok := s.NodeUsage("node1"); ok {
		t.Fatal("usage after one scrape: a rate needs two points")
	}
	// 3 CPU-seconds in 15 s: 200m.
	s.Store(nodeBatch(point(15*time.Second, 103, 2<<20)))
	u, ok := s.NodeUsage("node1")
	if !ok {
		t.Fatal("no usage after two scrapes")
	}
	if cpu := u.Resources["cpu"]; cpu.MilliValue() != 200 {
		t.Errorf("cpu = %s, want 200m", cpu.String())
	}
	if mem := u.Resources["memory"]; mem.Value() != 2<<20 {
		t.Errorf("memory = %s, want the last working set 2Mi", mem.String())
	}
	if u.Window != 15*time.Second || !u.Timestamp.Equal(t0.Add(15*time.Second)) {
		t.Errorf("window %v at %v, want 15s at the later sample", u.Window, u.Timestamp)
	}
}

func TestStoreRules(t *testing.T) {
	tests := []struct {
		name   string
		points []MetricsPoint
		// wantMilliCPU < 0: no usage.
		wantMilliCPU int64
		wantWindow   time.Duration
	}{
		{"a counter that went backwards starts over",
			[]MetricsPoint{point(0, 100, 1), point(15*time.Second, 103, 1), point(30*time.Second, 1, 1)}, -1, 0},
		{"after a reset the next point has a rate again",
			[]MetricsPoint{point(0, 100, 1), point(15*time.Second, 1, 1), point(30*time.Second, 2.5, 1)}, 100, 15 * time.Second},
		{"the same sample twice keeps the older point",
			[]MetricsPoint{point(0, 100, 1), point(10*time.Second, 101, 1), point(10*time.Second, 101, 1)}, 100, 10 * time.Second},
		{"the same sample as the only one has no rate",
			[]MetricsPoint{point(0, 100, 1), point(0, 100, 1)}, -1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(15 * time.Second)
			for _, p := range tc.points {
				s.Store(nodeBatch(p))
			}
			u, ok := s.NodeUsage("node1")
			if tc.wantMilliCPU < 0 {
				if ok {
					t.Fatalf("usage %v, want none", u.Resources)
				}
				return
			}
			if !ok {
				t.Fatal("no usage")
			}
			if cpu := u.Resources["cpu"]; cpu.MilliValue() != tc.wantMilliCPU || u.Window != tc.wantWindow {
				t.Errorf("cpu %s over %v, want %dm over %v", cpu.String(), u.Window, tc.wantMilliCPU, tc.wantWindow)
			}
		})
	}
}

func TestANodeMissingFromARoundLosesItsMetrics(t *testing.T) {
	s := NewStore(15 * time.Second)
	s.Store(nodeBatch(point(0, 1, 1)))
	s.Store(nodeBatch(point(15*time.Second, 2, 1)))
	s.Store(map[string]*MetricsBatch{})
	if _, ok := s.NodeUsage("node1"); ok {
		t.Error("a node that did not answer the last scrape still has metrics")
	}
}

func podBatch(containers map[string]MetricsPoint) map[string]*MetricsBatch {
	return map[string]*MetricsBatch{"node1": {Pods: map[PodRef]map[string]MetricsPoint{{"default", "web"}: containers}}}
}

func TestPodUsageNeedsEveryContainer(t *testing.T) {
	s := NewStore(15 * time.Second)
	ref := PodRef{"default", "web"}
	s.Store(podBatch(map[string]MetricsPoint{"web": point(0, 1, 1)}))
	// The sidecar appears only now: web has two points, sidecar one.
	s.Store(podBatch(map[string]MetricsPoint{"web": point(15*time.Second, 2.5, 10), "sidecar": point(15*time.Second, 1, 5)}))
	if c, _, ok := s.PodUsage(ref); ok {
		t.Fatalf("pod usage %+v while the sidecar has one point, want none", c)
	}
	s.Store(podBatch(map[string]MetricsPoint{"web": point(30*time.Second, 4, 10), "sidecar": point(25*time.Second, 1.5, 5)}))
	containers, pod, ok := s.PodUsage(ref)
	if !ok || len(containers) != 2 {
		t.Fatalf("pod usage %+v, %v; want both containers", containers, ok)
	}
	if containers[0].Name != "sidecar" || containers[1].Name != "web" {
		t.Errorf("containers %s, %s; want sorted by name", containers[0].Name, containers[1].Name)
	}
	if cpu := containers[1].Resources["cpu"]; cpu.MilliValue() != 100 {
		t.Errorf("web cpu = %s, want 100m", cpu.String())
	}
	// The pod's timestamp is the earliest container's, with its window.
	if !pod.Timestamp.Equal(t0.Add(25*time.Second)) || pod.Window != 10*time.Second {
		t.Errorf("pod timestamp %v window %v, want t0+25s and 10s", pod.Timestamp, pod.Window)
	}
}

func TestARestartedContainerStartsOver(t *testing.T) {
	s := NewStore(15 * time.Second)
	ref := PodRef{"default", "web"}
	first := point(0, 5, 1)
	first.StartTime = t0.Add(-time.Hour)
	s.Store(podBatch(map[string]MetricsPoint{"web": first}))
	// Restarted at t0+14s (after the stored sample) with a counter that is
	// higher by chance: without the start time the rate would be wrong.
	again := point(15*time.Second, 6, 1)
	again.StartTime = t0.Add(14 * time.Second)
	s.Store(podBatch(map[string]MetricsPoint{"web": again}))
	if c, _, ok := s.PodUsage(ref); ok {
		t.Fatalf("usage %+v across a restart, want none", c)
	}
}

func TestAFreshContainerHasUsageAfterOneScrape(t *testing.T) {
	s := NewStore(15 * time.Second)
	// Started 12 s before its first sample: old enough to trust, younger
	// than one resolution, so its start counts as the first point.
	p := point(12*time.Second, 1.2, 1)
	p.StartTime = t0
	s.Store(podBatch(map[string]MetricsPoint{"web": p}))
	containers, pod, ok := s.PodUsage(PodRef{"default", "web"})
	if !ok {
		t.Fatal("no usage for a fresh container after its first scrape")
	}
	if cpu := containers[0].Resources["cpu"]; cpu.MilliValue() != 100 || pod.Window != 12*time.Second {
		t.Errorf("cpu %s over %v, want 100m over 12s", cpu.String(), pod.Window)
	}
}
