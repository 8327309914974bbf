package server

// This file is the kubelet's authentication and authorization filter, in
// front of every handler, as upstream's kubelet installs it
// (pkg/kubelet/server/server.go InstallAuthFilter, auth.go):
//
//  1. Authenticate. A client certificate the cluster CA signed names the
//     user (CN) and groups (O) — the apiserver's kube-apiserver-kubelet-client,
//     metrics-server's. Otherwise a bearer token is checked with a
//     TokenReview (upstream's --authentication-token-webhook). Neither: 401.
//  2. Authorize. The call becomes a question about the node object —
//     verb from the HTTP method, subresource from the path
//     (authz_attributes.go), name = the node — and the apiserver answers it
//     with a SubjectAccessReview (authz_review.go), so RBAC decides: kubeadm
//     binds kube-apiserver-kubelet-client to system:kubelet-api-admin
//     (nodes/proxy, stats, log, spec, metrics), and metrics-server's
//     system:metrics-server role grants nodes/metrics get. A "no" is 403
//     in upstream's words, a review that fails 500.

import (
	"fmt"
	"net/http"
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/auth"
)

// TokenAuthenticator names the holder of a request's bearer token, false
// when it has none or the apiserver does not know it; pkg/debug's
// TokenReviewAuthenticator is one.
type TokenAuthenticator func(r *http.Request) (user string, groups []string, ok bool)

// caller is who made a request.
type caller struct {
	name   string
	groups []string
}

// authenticate names the caller: its client certificate's subject, else its
// bearer token's holder.
func (s *Server) authenticate(r *http.Request) (caller, bool) {
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		// TLS has verified the chain to the cluster CA already.
		subject := r.TLS.PeerCertificates[0].Subject
		return caller{name: subject.CommonName, groups: withAuthenticated(subject.Organization)}, true
	}
	if s.opts.Tokens != nil {
		if name, groups, ok := s.opts.Tokens(r); ok {
			return caller{name: name, groups: withAuthenticated(groups)}, true
		}
	}
	return caller{}, false
}

// withAuthenticated adds system:authenticated, which every authenticated
// user has, as upstream's authenticators add it.
func withAuthenticated(groups []string) []string {
	for _, g := range groups {
		if g == auth.AuthenticatedGroup {
			return groups
		}
	}
	return append(append([]string(nil), groups...), auth.AuthenticatedGroup)
}

// authorize lets through the calls the apiserver allows, answering the
// others as upstream's kubelet does: 401 without credentials, 403
// "Forbidden (user=…, verb=…, resource=nodes, subresource=…)" when denied,
// 500 "Authorization error (…)" when the apiserver could not be asked.
func (s *Server) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who, ok := s.authenticate(r)
		if !ok {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		attrs := nodeAttributes(r.Method, r.URL.Path, s.nodeFor(r))
		spec := api.SubjectAccessReviewSpec{User: who.name, Groups: who.groups, ResourceAttributes: attrs}
		allowed, reason, err := s.reviews.allowed(r.Context(), spec)
		what := fmt.Sprintf("user=%s, verb=%s, resource=nodes, subresource=%s", who.name, attrs.Verb, attrs.Subresource)
		switch {
		case err != nil:
			s.log.Error("kubelet API authorization failed", "user", who.name, "verb", attrs.Verb, "subresource", attrs.Subresource, "err", err)
			http.Error(w, fmt.Sprintf("Authorization error (%s)", what), http.StatusInternalServerError)
		case !allowed:
			s.log.Debug("kubelet API call forbidden", "user", who.name, "verb", attrs.Verb, "subresource", attrs.Subresource, "node", attrs.Name, "reason", reason)
			http.Error(w, fmt.Sprintf("Forbidden (%s)", what), http.StatusForbidden)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// nodeFor is the node a call is about. For a path that names a pod it is
// the pod's node. A pod the lookup does not know may still be found: the
// container lookup searches every node of the process (nodeSet.FindContainer),
// so the caller-chosen Host header must not pick the node then. The call is
// asked about the process's only node, or, when it runs several, about
// node "" — which only a grant on all nodes allows. For other paths it is
// the node named in the Host header when the process runs it (hollow nodes
// share one server, see stats.go), else the server's first node.
func (s *Server) nodeFor(r *http.Request) string {
	nodes := s.opts.NodeNames
	if len(nodes) == 0 && s.opts.NodeName != "" {
		nodes = []string{s.opts.NodeName}
	}
	if namespace, name, ok := podPath(r.URL.Path); ok {
		if pods := s.podLookup(); pods != nil {
			if pod, _, err := pods(namespace, name); err == nil && pod.Spec.NodeName != "" {
				return pod.Spec.NodeName
			}
		}
		if len(nodes) == 1 {
			return nodes[0]
		}
		return ""
	}
	host := requestNode(r)
	if slices.Contains(nodes, host) {
		return host
	}
	if len(nodes) > 0 {
		return nodes[0]
	}
	return ""
}
