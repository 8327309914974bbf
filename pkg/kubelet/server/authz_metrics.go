package server

// This file is one narrow authorization rule beside authz.go's, standing in
// for upstream's ClusterRole system:metrics-server: that role grants
// metrics-server's ServiceAccount `get` on nodes/metrics, the subresource
// upstream's kubelet authorizes GET /metrics and /metrics/... as. So
// metrics-server's user (auth.MetricsServerUserName, the CN of the client
// certificate `ctl up` issues it) may read the kubelet's metrics, and
// nothing else: its containerLogs, exec or port-forward requests are
// refused as any other caller's are.

import (
	"net/http"
	"strings"

	"kplane/pkg/auth"
)

// mayReadMetrics reports whether the request is metrics-server reading the
// kubelet's metrics.
func mayReadMetrics(r *http.Request) bool {
	if r.Method != http.MethodGet || (r.URL.Path != "/metrics" && !strings.HasPrefix(r.URL.Path, "/metrics/")) {
		return false
	}
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return false
	}
	return r.TLS.PeerCertificates[0].Subject.CommonName == auth.MetricsServerUserName
}
