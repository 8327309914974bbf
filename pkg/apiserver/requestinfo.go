package apiserver

import (
	"net/http"
	"strings"
)

// requestInfo is what the apiserver reads from a resource URL before doing
// anything else: which resource, which namespace and name, which verb.
//
//	/api/v1/namespaces/default/pods/web-0/status
//	 └─┬──┘ └────────┬────────┘ └┬─┘ └─┬─┘ └─┬──┘
//	 group/version   namespace  resource name subresource
type requestInfo struct {
	verb        string // get, list, watch, create, update, patch, delete, deletecollection
	res         *resource
	namespace   string
	name        string
	subresource string
	// proxyPath is the kubelet path of nodes/<name>/proxy/<path>
	// (nodeproxy.go): "/" and everything after proxy.
	proxyPath string
	// path is the group/version root, for error messages about unknown paths.
	path string
}

// parseRequest maps a URL under /api or /apis onto the registry. It returns
// nil when the path names nothing the server serves.
func (s *Server) parseRequest(r *http.Request) *requestInfo {
	segs := splitPath(r.URL.Path)
	var group, version string
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		version, segs = segs[1], segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		group, version, segs = segs[1], segs[2], segs[3:]
	default:
		return nil
	}
	if len(segs) == 0 {
		return nil
	}

	info := &requestInfo{}
	// /namespaces/<ns>/<resource>/... is a namespaced path when <resource> is
	// a namespaced resource; otherwise it is the namespaces resource itself
	// (/namespaces/<name>/status, /namespaces/<name>/finalize).
	if segs[0] == "namespaces" && len(segs) >= 3 {
		if res := s.reg.lookup(group, version, segs[2]); res != nil && res.namespaced {
			info.namespace, segs = segs[1], segs[2:]
		}
	}
	info.res = s.reg.lookup(group, version, segs[0])
	if info.res == nil {
		return nil
	}
	if len(segs) > 1 {
		info.name = segs[1]
	}
	if len(segs) > 2 {
		info.subresource = segs[2]
	}
	if info.subresource == "proxy" && info.res.plural == "nodes" && info.res.group == "" {
		info.proxyPath = nodeProxyPath(segs[3:], r.URL.Path)
	} else if len(segs) > 3 {
		return nil
	}
	info.verb = verbFor(r, info.name != "")
	return info
}

// verbFor turns an HTTP method into a Kubernetes verb.
func verbFor(r *http.Request, hasName bool) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if isWatch(r) {
			return "watch"
		}
		if hasName {
			return "get"
		}
		return "list"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if hasName {
			return "delete"
		}
		return "deletecollection"
	}
	return strings.ToLower(r.Method)
}

// isWatch reports whether the request asks for a watch (?watch=true, or
// any other value upstream reads as true, such as the Python client's True).
func isWatch(r *http.Request) bool {
	return queryOf(r).bool("watch")
}

func splitPath(p string) []string {
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	return segs
}
