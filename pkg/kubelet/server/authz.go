package server

// This file is the kubelet's authorization step. TLS has already
// authenticated the caller (its certificate is signed by the cluster CA);
// what remains is whether that identity may use the kubelet's API at all.
//
// Upstream's kubelet asks the apiserver with a SubjectAccessReview for the
// node subresource a path maps to (pkg/kubelet/server/auth.go: nodes/stats
// for /stats/, nodes/metrics for /metrics/, nodes/proxy for exec, attach,
// port-forward and containerLogs) and RBAC answers: kubeadm binds the
// apiserver's kubelet-client identity (group kubeadm:cluster-admins) to
// cluster-admin. kplane has no RBAC yet, so the kubelet decides by the
// certificate's groups directly: the apiserver's kubelet-client identity and
// system:masters may, any other certificate the CA signed may not, and is
// told so in upstream's words.

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"kplane/pkg/auth"
	"kplane/pkg/pki"
)

// authorize lets through the requests of callers that may use the
// kubelet's API, and answers the others 403 Forbidden.
func authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" || mayUseKubeletAPI(r) || mayReadMetrics(r) {
			next.ServeHTTP(w, r)
			return
		}
		verb := "get"
		if r.Method == http.MethodPost {
			verb = "create"
		}
		http.Error(w, fmt.Sprintf("Forbidden (user=%s, verb=%s, resource=nodes, subresource=%s)", clientName(r), verb, nodeSubresource(r.URL.Path)),
			http.StatusForbidden)
	})
}

// nodeSubresource is the node subresource upstream's kubelet authorizes a
// path as: stats for /stats/…, metrics for /metrics/…, proxy for the rest.
func nodeSubresource(path string) string {
	switch {
	case path == "/stats" || strings.HasPrefix(path, "/stats/"):
		return "stats"
	case path == "/metrics" || strings.HasPrefix(path, "/metrics/"):
		return "metrics"
	}
	return "proxy"
}

// mayUseKubeletAPI reports whether the caller's certificate names a group
// allowed to use the kubelet's API.
func mayUseKubeletAPI(r *http.Request) bool {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return false
	}
	groups := r.TLS.PeerCertificates[0].Subject.Organization
	return slices.Contains(groups, pki.KubeletClientOrganization) || slices.Contains(groups, auth.MastersGroup)
}
