package apiserver

import (
	"net/http"

	"kplane/pkg/auth"
)

// debugHandler serves the apiserver's debug API (/debug/kplane/…, see
// pkg/debug) and /debug/pprof/ on the secure port, as kube-apiserver
// serves pprof there (--profiling, on by default). The router's
// authentication has already run: a request without a valid token got
// 401; here only cluster administrators (system:masters) pass, others get
// 403, as upstream's default RBAC grants /debug/* to no one else.
func (s *Server) debugHandler() http.Handler {
	authenticated := func(r *http.Request) (string, []string, bool) {
		user, ok := auth.UserFrom(r.Context())
		return user.Name, user.Groups, ok && user.Name != auth.AnonymousUserName
	}
	return s.opts.Journal.Handler(authenticated, true)
}

// debugComponent is the apiserver's name in its endpoint file.
func (s *Server) debugComponent() string {
	if name := s.opts.Journal.Component(); name != "" {
		return name
	}
	return "apiserver"
}
