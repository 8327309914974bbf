package stats

// This file renders a Summary as the Prometheus metrics of
// GET /metrics/resource, named, labelled and described as upstream's
// kubelet does (pkg/kubelet/metrics/collectors/resource_metrics.go). This
// is what metrics-server scrapes: CPU as counters in core-seconds, each
// sample stamped with the time (in milliseconds) it was taken, so that the
// scraper computes a rate as Δcounter / Δtimestamp however late it asks.

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Upstream's help texts carry the metric's stability level, as the
// Kubernetes metrics framework (component-base) prints it.
var (
	nodeCPUUsageDesc = prometheus.NewDesc("node_cpu_usage_seconds_total",
		"[STABLE] Cumulative cpu time consumed by the node in core-seconds", nil, nil)
	nodeMemoryUsageDesc = prometheus.NewDesc("node_memory_working_set_bytes",
		"[STABLE] Current working set of the node in bytes", nil, nil)
	containerCPUUsageDesc = prometheus.NewDesc("container_cpu_usage_seconds_total",
		"[STABLE] Cumulative cpu time consumed by the container in core-seconds", []string{"container", "pod", "namespace"}, nil)
	containerMemoryUsageDesc = prometheus.NewDesc("container_memory_working_set_bytes",
		"[STABLE] Current working set of the container in bytes", []string{"container", "pod", "namespace"}, nil)
	containerStartTimeDesc = prometheus.NewDesc("container_start_time_seconds",
		"[STABLE] Start time of the container since unix epoch in seconds", []string{"container", "pod", "namespace"}, nil)
	podCPUUsageDesc = prometheus.NewDesc("pod_cpu_usage_seconds_total",
		"[STABLE] Cumulative cpu time consumed by the pod in core-seconds", []string{"pod", "namespace"}, nil)
	podMemoryUsageDesc = prometheus.NewDesc("pod_memory_working_set_bytes",
		"[STABLE] Current working set of the pod in bytes", []string{"pod", "namespace"}, nil)
	resourceScrapeErrorDesc = prometheus.NewDesc("resource_scrape_error",
		"[STABLE] 1 if there was an error while getting container metrics, 0 otherwise", nil, nil)
)

// SummaryFunc returns the Summary to render (a kubelet's, for one node).
type SummaryFunc func() (*Summary, error)

// ResourceMetricsCollector is a prometheus.Collector of the resource
// metrics of one Summary per scrape. Like upstream's it reports only what
// exists at scrape time (no gauge left behind by a deleted pod), and a
// Summary that cannot be had is reported as resource_scrape_error 1 with
// no other metric, not as an HTTP error.
type ResourceMetricsCollector struct {
	summary SummaryFunc
}

// NewResourceMetricsCollector returns a collector of summary's figures.
func NewResourceMetricsCollector(summary SummaryFunc) *ResourceMetricsCollector {
	return &ResourceMetricsCollector{summary: summary}
}

// Describe sends the descriptions of every metric the collector may send.
func (c *ResourceMetricsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{nodeCPUUsageDesc, nodeMemoryUsageDesc, containerStartTimeDesc,
		containerCPUUsageDesc, containerMemoryUsageDesc, podCPUUsageDesc, podMemoryUsageDesc, resourceScrapeErrorDesc} {
		ch <- d
	}
}

// Collect takes one Summary and sends its metrics.
func (c *ResourceMetricsCollector) Collect(ch chan<- prometheus.Metric) {
	s, err := c.summary()
	if err != nil {
		ch <- prometheus.MustNewConstMetric(resourceScrapeErrorDesc, prometheus.GaugeValue, 1)
		return
	}
	cpu(ch, nodeCPUUsageDesc, s.Node.CPU)
	memory(ch, nodeMemoryUsageDesc, s.Node.Memory)
	for _, pod := range s.Pods {
		ref := pod.PodRef
		for _, ctr := range pod.Containers {
			if ctr.StartTime.Unix() > 0 {
				ch <- prometheus.MustNewConstMetric(containerStartTimeDesc, prometheus.GaugeValue,
					float64(ctr.StartTime.UnixNano())/float64(time.Second), ctr.Name, ref.Name, ref.Namespace)
			}
			cpu(ch, containerCPUUsageDesc, ctr.CPU, ctr.Name, ref.Name, ref.Namespace)
			memory(ch, containerMemoryUsageDesc, ctr.Memory, ctr.Name, ref.Name, ref.Namespace)
		}
		cpu(ch, podCPUUsageDesc, pod.CPU, ref.Name, ref.Namespace)
		memory(ch, podMemoryUsageDesc, pod.Memory, ref.Name, ref.Namespace)
	}
	ch <- prometheus.MustNewConstMetric(resourceScrapeErrorDesc, prometheus.GaugeValue, 0)
}

// cpu sends the CPU counter of stats in core-seconds, stamped with its time.
func cpu(ch chan<- prometheus.Metric, desc *prometheus.Desc, stats *CPUStats, labels ...string) {
	if stats == nil || stats.UsageCoreNanoSeconds == nil {
		return
	}
	m := prometheus.MustNewConstMetric(desc, prometheus.CounterValue,
		float64(*stats.UsageCoreNanoSeconds)/float64(time.Second), labels...)
	ch <- prometheus.NewMetricWithTimestamp(stats.Time.Time, m)
}

// memory sends the working set of stats in bytes, stamped with its time.
func memory(ch chan<- prometheus.Metric, desc *prometheus.Desc, stats *MemoryStats, labels ...string) {
	if stats == nil || stats.WorkingSetBytes == nil {
		return
	}
	m := prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, float64(*stats.WorkingSetBytes), labels...)
	ch <- prometheus.NewMetricWithTimestamp(stats.Time.Time, m)
}
