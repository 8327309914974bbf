package controllermanager

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// newMux serves what kube-controller-manager serves on its port that kplane
// needs: /metrics, prometheus' default registry, where pkg/controller
// registers kplane_controller_syncs_total,
// kplane_controller_sync_duration_seconds and kplane_workqueue_depth; and
// /healthz, which answers "ok" while the process runs, leader or not; and
// under /debug/ the debug API and pprof (debugAPI), for cluster
// administrators only.
func newMux(debugAPI http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
	})
	mux.Handle("/debug/", debugAPI)
	return mux
}

// listen binds addr (loopback, checked by Validate) and returns the
// listener and the server that will serve it; debugAPI serves /debug/.
func listen(addr string, debugAPI http.Handler) (net.Listener, *http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: newMux(debugAPI), ReadHeaderTimeout: 10 * time.Second}
	return ln, srv, nil
}

// serve serves on ln until stop is called; stop waits up to five seconds
// for scrapes in flight.
func (m *ControllerManager) serve() (stop func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := m.server.Serve(m.listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.log.Error("metrics server stopped", "err", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = m.server.Shutdown(ctx)
		<-done
	}
}
