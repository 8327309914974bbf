package metricsserver

// This file reads a kubelet's /metrics/resource answer, as upstream's
// pkg/scraper/client/resource/decode.go does. The kubelet writes Prometheus
// text such as
//
//	node_cpu_usage_seconds_total 42.5 1700000000000
//	node_memory_working_set_bytes 1.2e+08 1700000000000
//	container_cpu_usage_seconds_total{container="web",namespace="default",pod="web-1"} 3.2 1700000000000
//	container_memory_working_set_bytes{container="web",namespace="default",pod="web-1"} 2.1e+07 1700000000000
//	container_start_time_seconds{container="web",namespace="default",pod="web-1"} 1.6999e+09 1700000000000
//
// where the trailing number is the sample's timestamp in milliseconds, taken
// from the kubelet's clock. The CPU figures are counters (CPU seconds used
// since the node or container started); a rate needs two of them, which is
// the store's business.

import (
	"fmt"
	"io"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The metric names of the kubelet's resource metrics endpoint.
const (
	nodeCPUUsageMetric         = "node_cpu_usage_seconds_total"
	nodeMemoryWorkingSetMetric = "node_memory_working_set_bytes"
	containerCPUUsageMetric    = "container_cpu_usage_seconds_total"
	containerMemoryMetric      = "container_memory_working_set_bytes"
	containerStartTimeMetric   = "container_start_time_seconds"
)

// MetricsPoint is one sample of a node or a container.
type MetricsPoint struct {
	// StartTime is when the container started (zero for a node): its
	// cumulative CPU was zero then.
	StartTime time.Time
	// Timestamp is when the kubelet sampled the figures.
	Timestamp time.Time
	// CumulativeCPUNanoSeconds is the CPU time used since the start, in
	// nanoseconds (CPU-seconds × 1e9).
	CumulativeCPUNanoSeconds uint64
	// MemoryWorkingSetBytes is the memory working set at Timestamp.
	MemoryWorkingSetBytes uint64
}

// PodRef names a pod.
type PodRef struct {
	Namespace string
	Name      string
}

// String is namespace/name.
func (p PodRef) String() string { return p.Namespace + "/" + p.Name }

// MetricsBatch is what one scrape of one node found.
type MetricsBatch struct {
	// Node is the node's point, nil when the answer lacked the node's CPU
	// or memory (upstream drops an incomplete node point too).
	Node *MetricsPoint
	// Pods maps each pod to its containers' points by container name. A
	// pod with any incomplete container is left out entirely, as upstream
	// leaves it out: half a pod would under-report its usage.
	Pods map[PodRef]map[string]MetricsPoint
}

// DecodeBatch parses a /metrics/resource answer. A sample without a
// timestamp is taken to be from scrapeTime, the time the answer arrived.
// Metrics it does not know are ignored.
func DecodeBatch(r io.Reader, scrapeTime time.Time) (*MetricsBatch, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse resource metrics: %w", err)
	}
	var node MetricsPoint
	containers := map[PodRef]map[string]*MetricsPoint{}
	container := func(m *dto.Metric) *MetricsPoint {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		ref := PodRef{Namespace: labels["namespace"], Name: labels["pod"]}
		if ref.Namespace == "" || ref.Name == "" || labels["container"] == "" {
			return nil
		}
		if containers[ref] == nil {
			containers[ref] = map[string]*MetricsPoint{}
		}
		p := containers[ref][labels["container"]]
		if p == nil {
			p = &MetricsPoint{}
			containers[ref][labels["container"]] = p
		}
		return p
	}
	for name, family := range families {
		for _, m := range family.GetMetric() {
			value, at := sampleValue(m), sampleTime(m, scrapeTime)
			switch name {
			case nodeCPUUsageMetric:
				node.CumulativeCPUNanoSeconds, node.Timestamp = seconds(value), at
			case nodeMemoryWorkingSetMetric:
				node.MemoryWorkingSetBytes, node.Timestamp = nonNegative(value), at
			case containerCPUUsageMetric:
				if p := container(m); p != nil {
					p.CumulativeCPUNanoSeconds, p.Timestamp = seconds(value), at
				}
			case containerMemoryMetric:
				if p := container(m); p != nil {
					p.MemoryWorkingSetBytes, p.Timestamp = nonNegative(value), at
				}
			case containerStartTimeMetric:
				if p := container(m); p != nil {
					p.StartTime = time.Unix(0, int64(value*1e9))
				}
			}
		}
	}

	batch := &MetricsBatch{Pods: map[PodRef]map[string]MetricsPoint{}}
	if complete(node) {
		batch.Node = &node
	}
	for ref, byName := range containers {
		points := map[string]MetricsPoint{}
		for name, p := range byName {
			if !complete(*p) {
				points = nil
				break
			}
			points[name] = *p
		}
		if points != nil {
			batch.Pods[ref] = points
		}
	}
	return batch, nil
}

// complete reports whether p has a time, CPU and memory. Upstream treats a
// zero counter or working set as missing too: a kubelet that has not
// measured yet reports zeros.
func complete(p MetricsPoint) bool {
	return !p.Timestamp.IsZero() && p.CumulativeCPUNanoSeconds > 0 && p.MemoryWorkingSetBytes > 0
}

// sampleValue is the value of a counter, gauge or untyped sample.
func sampleValue(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Untyped != nil:
		return m.Untyped.GetValue()
	}
	return 0
}

// sampleTime is the sample's own timestamp (milliseconds), or fallback.
func sampleTime(m *dto.Metric, fallback time.Time) time.Time {
	if m.TimestampMs == nil {
		return fallback
	}
	return time.UnixMilli(m.GetTimestampMs())
}

// seconds converts CPU-seconds to nanoseconds; negative is nonsense and
// counts as zero.
func seconds(v float64) uint64 { return nonNegative(v * 1e9) }

// nonNegative rounds v to a whole number, zero when it is negative.
func nonNegative(v float64) uint64 {
	if v <= 0 {
		return 0
	}
	return uint64(v + 0.5)
}
