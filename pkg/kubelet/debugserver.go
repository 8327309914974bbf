package kubelet

import (
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/debug"
)

// DefaultDebugAddress is where a kubelet serves its debug API unless told
// otherwise: a free loopback port (the address is announced in the
// endpoint file and logged). Upstream's kubelet has no such listener; its
// /metrics and /debug/pprof are on the authenticated port 10250.
const DefaultDebugAddress = "127.0.0.1:0"

// startDebugServer binds the process's loopback debug listener: /healthz,
// /metrics (this process's own registry: Go runtime, process, and
// kubelet_running_pods), /debug/pprof/ and the debug API for cluster
// administrators, whose tokens the apiserver checks (TokenReview, through
// tokens, the cache the kubelet's server shares). It
// announces the address in opts.DebugEndpointFile and returns the stop
// function, or nil when opts.DebugAddress is empty.
func startDebugServer(opts *Options, tokens debug.Authenticator, nodes *nodeSet, log *slog.Logger) (stop func(), err error) {
	if opts.DebugAddress == "" {
		return nil, nil
	}
	mux := debug.ComponentMux(opts.Journal, tokens, kubeletMetrics(nodes))
	srv, err := debug.Listen("--debug-address", opts.DebugAddress, mux)
	if err != nil {
		return nil, err
	}
	if err := debug.Announce(opts.DebugEndpointFile, opts.DebugComponent, srv.URL(), ""); err != nil {
		srv.Close()
		return nil, err
	}
	log.Info("serving health, metrics and the debug API", "address", srv.URL())
	return srv.Serve(log), nil
}

// kubeletMetrics is the handler of a registry of this process's own, so
// that several kubelets in one test process do not collide in the default
// registry.
func kubeletMetrics(nodes *nodeSet) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "kubelet_running_pods",
			Help: "Number of pods of this process's nodes whose phase is Running (upstream: pods with a running sandbox).",
		}, func() float64 { return float64(nodes.runningPods()) }),
	)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

// runningPods counts the pods in phase Running bound to this process's
// nodes, as the informer's cache holds them.
func (s *nodeSet) runningPods() int {
	pods, err := s.pods.List(labels.Everything())
	if err != nil {
		return 0
	}
	n := 0
	for _, pod := range pods {
		if s.byName[pod.Spec.NodeName] != nil && pod.Status.Phase == api.PodRunning {
			n++
		}
	}
	return n
}
