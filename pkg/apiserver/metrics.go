package apiserver

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the apiserver's Prometheus metrics, served at /metrics, named
// as upstream names the same measurements.
type metrics struct {
	registry        *prometheus.Registry
	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	watchers        *prometheus.GaugeVec
	// inFlight and droppedRequests are the max-in-flight caps' state
	// (inflight.go), by request_kind readOnly or mutating.
	inFlight        *prometheus.GaugeVec
	droppedRequests *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total",
			Help: "Requests served, by verb, resource and HTTP code.",
		}, []string{"verb", "resource", "subresource", "code"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_duration_seconds",
			Help:    "Time to answer a request (watches: until the stream ends), by verb and resource.",
			Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60},
		}, []string{"verb", "resource", "subresource"}),
		watchers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_longrunning_requests",
			Help: "Watches open now, by resource.",
		}, []string{"resource"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_current_inflight_requests",
			Help: "Requests holding an in-flight slot now, by request kind (readOnly, mutating).",
		}, []string{"request_kind"}),
		droppedRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_dropped_requests_total",
			Help: "Requests refused with 429 because their in-flight cap was reached, by request kind.",
		}, []string{"request_kind"}),
	}
	// Both kinds are present from the start, at 0, as upstream reports them.
	for _, kind := range []string{requestKindReadOnly, requestKindMutating} {
		m.inFlight.WithLabelValues(kind)
	}
	m.registry.MustRegister(m.requests, m.requestDuration, m.watchers, m.inFlight, m.droppedRequests,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

// handler serves the metrics in the Prometheus text format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// statusRecorder remembers the status code a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap gives http.ResponseController the connection underneath, which
// the exec and port-forward proxy hijacks after 101 Switching Protocols.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush lets watch streams flush through the recorder.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// instrument records the count and duration of one resource request.
func (m *metrics) instrument(w http.ResponseWriter, info *requestInfo, serve func(http.ResponseWriter)) {
	rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
	if info.verb == "watch" {
		g := m.watchers.WithLabelValues(info.res.plural)
		g.Inc()
		defer g.Dec()
	}
	start := time.Now()
	serve(rec)
	m.requestDuration.WithLabelValues(info.verb, info.res.plural, info.subresource).Observe(time.Since(start).Seconds())
	m.requests.WithLabelValues(info.verb, info.res.plural, info.subresource, strconv.Itoa(rec.code)).Inc()
}
