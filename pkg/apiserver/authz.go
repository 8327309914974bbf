package apiserver

import (
	"fmt"
	"net/http"
	"strings"

	"kplane/pkg/apiserver/response"
	"kplane/pkg/audit"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// The handler chain every request goes through, in router.go's order
// (upstream's DefaultBuildHandlerChain, read from the outside in):
//
//	parseRequestInfo what the URL asks for (authorizer.RequestInfo)
//	timeoutRequests  --request-timeout (timeout.go)         → 504
//	auditInit        the audit ID; audits a 401 (audit.go)
//	authenticate     who is asking (authn.go)            → 401
//	auditRequests    start the audit Event (audit.go)
//	impersonate      --as / --as-group (impersonation.go) → 403
//	limitInFlight    --max-requests-inflight (inflight.go) → 429
//	authorize        may they? (this file)                → 403
//	then the aggregator's proxy, or kplane's own handlers with admission.

// parseRequestInfo reads the request's URL into an authorizer.RequestInfo
// once, for every later step.
func (s *Server) parseRequestInfo(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := authorizer.ParseRequestInfo(r)
		next.ServeHTTP(w, r.WithContext(authorizer.WithRequestInfo(r.Context(), info)))
	})
}

// authorize asks the server's authorizers whether the request's user may
// do what the request asks, and answers 403 with upstream's message when
// none allows it. An authorizer that could not decide (its error) and no
// other that allowed is a 500, as upstream's WithAuthorization answers: the
// request was not refused, it could not be judged.
func (s *Server) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, _ := auth.UserFrom(ctx)
		attrs := authorizer.RequestInfoFrom(ctx).Attributes(user)
		decision, reason, err := s.authorizer.Authorize(ctx, attrs)
		if decision == authorizer.DecisionAllow {
			audit.AddAnnotation(ctx, "authorization.k8s.io/decision", "allow")
			audit.AddAnnotation(ctx, "authorization.k8s.io/reason", reason)
			next.ServeHTTP(w, r)
			return
		}
		if err != nil {
			audit.AddAnnotation(ctx, "authorization.k8s.io/reason", "internal error")
			internalError(w, r, err)
			return
		}
		audit.AddAnnotation(ctx, "authorization.k8s.io/decision", "forbid")
		audit.AddAnnotation(ctx, "authorization.k8s.io/reason", reason)
		response.WriteError(w, authorizer.Forbidden(attrs, reason))
	})
}

// htmlSanitizer escapes what upstream's responsewriters escapes in a
// plain-text error.
var htmlSanitizer = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;")

// internalError is upstream's responsewriters.InternalError: a plain-text
// 500 naming the request, not a Status.
func internalError(w http.ResponseWriter, r *http.Request, err error) {
	http.Error(w, htmlSanitizer.Replace(fmt.Sprintf("Internal Server Error: %q: %v", r.RequestURI, err)), http.StatusInternalServerError)
}

// Authorization modes (--authorization-mode), as upstream names them.
const (
	AuthorizationModeAlwaysAllow = "AlwaysAllow"
	AuthorizationModeNode        = "Node"
	AuthorizationModeRBAC        = "RBAC"
)

// buildAuthorizer puts together the authorizers --authorization-mode
// names, in its order, behind the system:masters shortcut.
func (s *Server) buildAuthorizer() (authorizer.Authorizer, error) {
	chain := []authorizer.Authorizer{authorizer.PrivilegedGroups(auth.MastersGroup)}
	seen := map[string]bool{}
	for _, mode := range s.opts.AuthorizationModes {
		if seen[mode] {
			return nil, fmt.Errorf("--authorization-mode: %q is named twice", mode)
		}
		seen[mode] = true
		switch mode {
		case AuthorizationModeAlwaysAllow:
			z := authorizer.AlwaysAllow()
			chain = append(chain, z)
			s.ruleResolvers = append(s.ruleResolvers, z)
		case AuthorizationModeNode:
			z, err := s.nodeAuthorizer()
			if err != nil {
				return nil, err
			}
			chain = append(chain, z)
			// A kubelet's rules cannot be listed; the Node authorizer says so.
			if rr, ok := z.(authorizer.RuleResolver); ok {
				s.ruleResolvers = append(s.ruleResolvers, rr)
			}
		case AuthorizationModeRBAC:
			z := s.rbacAuthorizer()
			chain = append(chain, z)
			// RBAC can also list a user's rules (SelfSubjectRulesReview).
			s.ruleResolvers = append(s.ruleResolvers, z)
		default:
			return nil, fmt.Errorf("--authorization-mode: unknown mode %q (known: %s)", mode,
				strings.Join([]string{AuthorizationModeAlwaysAllow, AuthorizationModeNode, AuthorizationModeRBAC}, ", "))
		}
	}
	if len(s.opts.AuthorizationModes) == 0 {
		return nil, fmt.Errorf("--authorization-mode: name at least one mode")
	}
	return authorizer.Union(chain...), nil
}
