package kubeproxy

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are upstream's kube-proxy metrics (pkg/proxy/metrics) that
// kplane can honestly report, in a registry of the proxier's own so that
// several kube-proxies in one test process do not collide.
type metrics struct {
	registry *prometheus.Registry
	// syncDuration is how long computing the rules took.
	syncDuration prometheus.Histogram
	// lastSync and lastQueued are when the rules were last written and
	// when a sync was last asked for.
	lastSync, lastQueued prometheus.Gauge
	// syncs counts syncs (kplane's name; upstream's is the histogram's
	// _count).
	syncs prometheus.Counter
	// serviceChanges and endpointChanges count the informer events that
	// asked for a sync.
	serviceChanges, endpointChanges prometheus.Counter
	// rules is the number of iptables rules per table after the last sync.
	rules *prometheus.GaugeVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		syncDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "kubeproxy_sync_proxy_rules_duration_seconds",
			Help: "SyncProxyRules latency in seconds: how long computing the node's rules took",
			// Upstream's buckets: 1 ms doubling to 16 s.
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 15),
		}),
		lastSync: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kubeproxy_sync_proxy_rules_last_timestamp_seconds",
			Help: "The last time the proxy rules were successfully synced",
		}),
		lastQueued: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds",
			Help: "The last time a sync of the proxy rules was queued",
		}),
		syncs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "kubeproxy_sync_proxy_rules_total",
			Help: "Syncs of the proxy rules (kplane's counter)",
		}),
		serviceChanges: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "kubeproxy_sync_proxy_rules_service_changes_total",
			Help: "Cumulative proxy rules Service changes",
		}),
		endpointChanges: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "kubeproxy_sync_proxy_rules_endpoint_changes_total",
			Help: "Cumulative proxy rules Endpoint changes",
		}),
		rules: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kubeproxy_sync_proxy_rules_iptables_total",
			Help: "Total number of iptables rules owned by kube-proxy",
		}, []string{"table"}),
	}
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.syncDuration, m.lastSync, m.lastQueued, m.syncs, m.serviceChanges, m.endpointChanges, m.rules)
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
