package server

// This file is what a request to the kubelet's API is, in the apiserver's
// vocabulary: upstream's kubelet authorizes every call as a request on the
// node object, so that RBAC rules about nodes and their subresources decide
// who may use the kubelet (pkg/kubelet/server/auth.go,
// nodeAuthorizerAttributesGetter).

import (
	"net/http"
	"strings"

	"kplane/pkg/api"
)

// nodeAttributes is the question the kubelet asks about one call: may
// the caller <verb> the <subresource> of the node named node?
func nodeAttributes(method, path, node string) *api.ResourceAttributes {
	return &api.ResourceAttributes{
		Verb: apiVerb(method), Version: "v1", Resource: "nodes", Subresource: nodeSubresource(path), Name: node,
	}
}

// apiVerb is the API verb upstream's kubelet asks about for an HTTP method:
// reads are get, a POST (exec and attach over SPDY, port-forward) is
// create. A method it does not know maps to "", which no rule grants.
func apiVerb(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "get"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return ""
}

// nodeSubresource is the node subresource a path is authorized as:
// /stats… is stats, /metrics… metrics, /logs… log, /spec… spec, as
// upstream; everything else — /containerLogs, /exec, /attach,
// /portForward, /run, /pods, /healthz, /configz — is proxy, the right
// that lets one reach the node through the apiserver's proxy anyway.
// (Upstream 1.33's KubeletFineGrainedAuthz gate adds configz, healthz and
// pods, each falling back to proxy; kplane asks about proxy only.)
func nodeSubresource(path string) string {
	switch {
	case isSubpath(path, "/stats"):
		return "stats"
	case isSubpath(path, "/metrics"):
		return "metrics"
	case isSubpath(path, "/logs"):
		return "log"
	case isSubpath(path, "/spec"):
		return "spec"
	}
	return "proxy"
}

// isSubpath reports whether path is prefix itself or below it.
func isSubpath(path, prefix string) bool {
	prefix = strings.TrimSuffix(prefix, "/")
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// podPath returns the namespace and pod of a path that names one
// (/containerLogs/<ns>/<pod>/…, /exec/…, /attach/…, /portForward/<ns>/<pod>,
// /run/…), so the call can be authorized against the pod's node.
func podPath(path string) (namespace, pod string, ok bool) {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(parts) < 3 {
		return "", "", false
	}
	switch parts[0] {
	case "containerLogs", "exec", "attach", "portForward", "run":
		return parts[1], parts[2], parts[1] != "" && parts[2] != ""
	}
	return "", "", false
}
