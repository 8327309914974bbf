package apiserver

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"kplane/pkg/apiserver/response"
)

// The health endpoints, /healthz, /livez and /readyz, as upstream's
// apiserver serves them: "ok" when every check passes; with ?verbose one
// line per check ("[+]etcd ok") and "<endpoint> check passed"; a failing
// check makes the answer a 500 listing every check, the failed one as
// "[-]etcd failed: reason withheld" (the reason goes to the log).
// ?exclude=NAME skips a check, and /readyz/NAME runs one alone.

// healthContentType is the type of every health answer.
const healthContentType = "text/plain; charset=utf-8"

// healthCheckTimeout bounds one check, so a probe never hangs on a dead
// etcd.
const healthCheckTimeout = 2 * time.Second

// healthCheck is one named check of the health endpoints.
type healthCheck struct {
	name  string
	check func(context.Context) error
}

// healthChecks are the checks kplane runs, each a real one: the server
// answers (ping) and etcd answers a read of its current revision.
func (s *Server) healthChecks() []healthCheck {
	return []healthCheck{
		{name: "ping", check: func(context.Context) error { return nil }},
		{name: "etcd", check: func(ctx context.Context) error {
			_, err := s.store.CurrentRevision(ctx)
			return err
		}},
	}
}

// routeHealth adds the health endpoints to r.
func (s *Server) routeHealth(r chi.Router) {
	for _, endpoint := range []string{"healthz", "livez", "readyz"} {
		r.Get("/"+endpoint, func(w http.ResponseWriter, req *http.Request) { s.serveHealth(w, req, endpoint) })
		r.Get("/"+endpoint+"/{check}", func(w http.ResponseWriter, req *http.Request) {
			s.serveOneHealthCheck(w, req, chi.URLParam(req, "check"))
		})
	}
}

// serveHealth runs every check not excluded and answers as upstream does.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request, endpoint string) {
	query := r.URL.Query()
	excluded := query["exclude"]
	checks := s.healthChecks()
	var b strings.Builder
	failed := false
	for _, c := range checks {
		if slices.Contains(excluded, c.name) {
			fmt.Fprintf(&b, "[+]%s excluded: ok\n", c.name)
			continue
		}
		if err := runHealthCheck(r.Context(), c); err != nil {
			slog.Warn("health check failed", "component", "apiserver", "endpoint", endpoint, "check", c.name, "err", err)
			fmt.Fprintf(&b, "[-]%s failed: reason withheld\n", c.name)
			failed = true
			continue
		}
		fmt.Fprintf(&b, "[+]%s ok\n", c.name)
	}
	for _, name := range excluded {
		if !slices.ContainsFunc(checks, func(c healthCheck) bool { return c.name == name }) {
			fmt.Fprintf(&b, "warn: some health checks cannot be excluded: no matches for %q\n", name)
		}
	}
	if failed {
		fmt.Fprintf(&b, "%s check failed\n", endpoint)
		response.WriteRaw(w, http.StatusInternalServerError, healthContentType, []byte(b.String()))
		return
	}
	if !query.Has("verbose") {
		response.WriteRaw(w, http.StatusOK, healthContentType, []byte("ok"))
		return
	}
	fmt.Fprintf(&b, "%s check passed\n", endpoint)
	response.WriteRaw(w, http.StatusOK, healthContentType, []byte(b.String()))
}

// serveOneHealthCheck runs the check named name alone (/readyz/etcd).
func (s *Server) serveOneHealthCheck(w http.ResponseWriter, r *http.Request, name string) {
	for _, c := range s.healthChecks() {
		if c.name != name {
			continue
		}
		if err := runHealthCheck(r.Context(), c); err != nil {
			response.WriteRaw(w, http.StatusInternalServerError, healthContentType, []byte("internal server error: "+err.Error()+"\n"))
			return
		}
		response.WriteRaw(w, http.StatusOK, healthContentType, []byte("ok"))
		return
	}
	http.NotFound(w, r)
}

// runHealthCheck runs c within healthCheckTimeout.
func runHealthCheck(ctx context.Context, c healthCheck) error {
	ctx, cancel := context.WithTimeout(ctx, healthCheckTimeout)
	defer cancel()
	return c.check(ctx)
}
