package server

// This file serves the kubelet's resource usage: GET /stats/summary, the
// Summary API as JSON (upstream: pkg/kubelet/server/stats/handler.go), and
// GET /metrics/resource, the same figures as Prometheus metrics
// (upstream: the resource metrics collector registered in
// pkg/kubelet/server/server.go), which metrics-server scrapes.
//
// kplane-only: a kubelet process with hollow nodes serves them all on one
// port, so the caller names the node in the request's Host header
// (https://127.0.0.1:<port>/stats/summary with Host: <node name>), the way
// a virtual host is named; a process with one node ignores it.

import (
	"encoding/json"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"kplane/pkg/kubelet/stats"
)

// SummaryLookup returns the Summary of the node named nodeName (from the
// request's host). Errors are answered as ContainerLookup's are.
type SummaryLookup func(nodeName string) (*stats.Summary, error)

// SetSummaryLookup sets (or replaces) how the server finds node summaries.
func (s *Server) SetSummaryLookup(summaries SummaryLookup) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.summaries = summaries
}

func (s *Server) summaryLookup() SummaryLookup {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.summaries
}

// requestNode is the node a request is addressed to: its host without the port.
func requestNode(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.Host); err == nil {
		return host
	}
	return r.Host
}

// serveStatsSummary answers GET /stats/summary with the node's Summary.
// Upstream's ?only_cpu_and_memory=true changes nothing here: kplane's
// Summary holds only CPU and memory anyway.
func (s *Server) serveStatsSummary(w http.ResponseWriter, r *http.Request) {
	lookup := s.summaryLookup()
	if lookup == nil {
		http.Error(w, "the kubelet's stats are not available yet", http.StatusServiceUnavailable)
		return
	}
	summary, err := lookup(requestNode(r))
	if err != nil {
		http.Error(w, err.Error(), lookupStatusCode(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(summary); err != nil {
		s.log.Debug("write stats summary", "err", err)
	}
}

// serveResourceMetrics answers GET /metrics/resource. Like upstream, a
// Summary that cannot be had is not an HTTP error: the scrape succeeds
// with resource_scrape_error 1.
func (s *Server) serveResourceMetrics(w http.ResponseWriter, r *http.Request) {
	lookup := s.summaryLookup()
	node := requestNode(r)
	registry := prometheus.NewRegistry()
	registry.MustRegister(stats.NewResourceMetricsCollector(func() (*stats.Summary, error) {
		if lookup == nil {
			return nil, errStatsNotReady
		}
		return lookup(node)
	}))
	promhttp.HandlerFor(registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}).ServeHTTP(w, r)
}

var errStatsNotReady = &statusError{code: http.StatusServiceUnavailable, msg: "the kubelet's stats are not available yet"}

// statusError is an error with the HTTP status to answer it with.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string   { return e.msg }
func (e *statusError) StatusCode() int { return e.code }
