package debug

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ComponentMux is what a component without an HTTP server of its own (the
// scheduler, the kubelets) serves on its loopback debug address: /healthz
// ("ok" while the process runs) and /metrics (metrics, or Prometheus'
// default registry when nil) to anyone, as the controller-manager serves
// them, and under /debug/ the debug API and pprof, for cluster
// administrators only (authn decides who asks).
func ComponentMux(j *Journal, authn Authenticator, metrics http.Handler) *http.ServeMux {
	if metrics == nil {
		metrics = promhttp.Handler()
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
	})
	mux.Handle("/debug/", j.Handler(authn, true))
	return mux
}

// Server is a component's loopback HTTP server: bound by Listen (so a
// busy port fails at start), serving from Serve until the stop it returns.
type Server struct {
	listener net.Listener
	server   *http.Server
}

// Listen binds addr, which must be on a loopback address (kplane never
// listens beyond the machine), for handler. flag names the address's flag
// in errors.
func Listen(flag, addr string, handler http.Handler) (*Server, error) {
	if err := CheckLoopback(flag, addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return &Server{listener: ln, server: &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}}, nil
}

// URL is the server's base URL, with the port the kernel chose for port 0.
func (s *Server) URL() string { return "http://" + s.listener.Addr().String() }

// Serve serves in a goroutine until stop is called; stop waits up to five
// seconds for requests in flight (a followed records stream is cut).
func (s *Server) Serve(log *slog.Logger) (stop func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := s.server.Serve(s.listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("debug server stopped", "err", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if s.server.Shutdown(ctx) != nil {
			_ = s.server.Close()
		}
		<-done
	}
}

// Close releases the address of a server that never served.
func (s *Server) Close() { _ = s.listener.Close() }

// CheckLoopback accepts host:port on a loopback interface only: the
// address of flag, for its error message.
func CheckLoopback(flag, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q must be host:port: %w", flag, addr, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("%s %q: port must be a number from 0 to 65535", flag, addr)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s %q must be on a loopback address (127.0.0.1, ::1 or localhost)", flag, addr)
	}
	return nil
}
