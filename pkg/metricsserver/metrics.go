package metricsserver

// This file is metrics-server's own Prometheus metrics, named as upstream's
// pkg/scraper/scraper.go and pkg/storage/monitoring.go name them, served on
// --debug-address /metrics: how long each kubelet took to answer, how
// many requests succeeded, when a node was last scraped, and how many
// points the store holds.

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// serverMetrics are one metrics-server's metrics, in a registry of its own
// so that several in one test process do not collide.
type serverMetrics struct {
	registry        *prometheus.Registry
	requestDuration *prometheus.HistogramVec
	requestTotal    *prometheus.CounterVec
	lastRequestTime *prometheus.GaugeVec
}

// newServerMetrics registers the metrics; store feeds the points gauge.
func newServerMetrics(store *Store) *serverMetrics {
	m := &serverMetrics{
		registry: prometheus.NewRegistry(),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "metrics_server_kubelet_request_duration_seconds",
			Help:    "Duration of requests to the kubelets' /metrics/resource.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"node"}),
		requestTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "metrics_server_kubelet_request_total",
			Help: "Requests to the kubelets, by success.",
		}, []string{"success"}),
		lastRequestTime: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "metrics_server_kubelet_last_request_time_seconds",
			Help: "When each node was last asked, in seconds since the epoch of the component's clock.",
		}, []string{"node"}),
	}
	points := func(kind string, count func(Counts) int) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "metrics_server_storage_points", Help: "Points with metrics in the store, by kind.",
			ConstLabels: prometheus.Labels{"type": kind},
		}, func() float64 { return float64(count(store.Counts())) })
	}
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requestDuration, m.requestTotal, m.lastRequestTime,
		points("node", func(c Counts) int { return c.NodesWithMetrics }),
		points("container", func(c Counts) int { return c.ContainersWithMetrics }),
	)
	return m
}

// observe records one kubelet request.
func (m *serverMetrics) observe(node string, began time.Time, took time.Duration, err error) {
	m.requestDuration.WithLabelValues(node).Observe(took.Seconds())
	m.requestTotal.WithLabelValues(map[bool]string{true: "true", false: "false"}[err == nil]).Inc()
	m.lastRequestTime.WithLabelValues(node).Set(float64(began.UnixNano()) / 1e9)
}

// handler serves the registry.
func (m *serverMetrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
