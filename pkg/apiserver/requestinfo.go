package apiserver

import (
	"net/http"
	"slices"
	"strings"

	"kplane/pkg/authorization/authorizer"
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
//
// An empty segment (/api/v1/namespaces/default//secrets) names nothing:
// upstream's router matches a path segment by segment and never collapses
// a double slash, and the authorizer (authorizer.ParseRequestInfo) reads
// one as a resource or name "". Serving it as the path without the empty
// segment would authorize one request and serve another.
func (s *Server) parseRequest(r *http.Request) *requestInfo {
	segs := splitPath(r.URL.Path)
	var group, version string
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		version, segs = segs[1], segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		if segs[1] == "" {
			return nil
		}
		group, version, segs = segs[1], segs[2], segs[3:]
	default:
		return nil
	}
	if len(segs) == 0 || version == "" {
		return nil
	}

	info := &requestInfo{}
	// /namespaces/<ns>/<resource>/... is a namespaced path when <resource> is
	// a namespaced resource; otherwise it is the namespaces resource itself
	// (/namespaces/<name>/status, /namespaces/<name>/finalize).
	if segs[0] == "namespaces" && len(segs) >= 3 {
		res := s.lookupResource(group, version, segs[2])
		switch {
		case res != nil && res.namespaced:
			if segs[1] == "" {
				return nil // /namespaces//pods
			}
			info.namespace, segs = segs[1], segs[2:]
		case !authorizer.IsNamespaceSubresource(segs[2]):
			// /namespaces/default/bogus: the authorizer reads a list of
			// "bogus" in default, as upstream's does, and no such resource
			// exists; reading it as a subresource of the namespace would
			// serve a get of what was authorized as a list.
			return nil
		}
	}
	// The resource, name and subresource; a node proxy's path after them
	// is the kubelet's and may hold anything.
	if slices.Contains(segs[:min(len(segs), 3)], "") {
		return nil
	}
	info.res = s.lookupResource(group, version, segs[0])
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
		// Upstream serves GET /…/pods/x with its get handler whatever the
		// query says: ?watch=1 there is ignored, and the authorizer reads
		// the request as get too. A watch of one object goes through the
		// collection with fieldSelector=metadata.name=x.
		if hasName {
			return "get"
		}
		if isWatch(r) {
			return "watch"
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

// isWatch reports whether the request's query asks for a watch, by the
// rule the authorizer uses too (authorizer.WatchRequested).
func isWatch(r *http.Request) bool {
	return authorizer.WatchRequested(r.URL.Query())
}

// splitPath splits a URL path at its slashes, keeping empty segments as
// upstream does (see parseRequest); only a leading and a trailing slash go.
func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
