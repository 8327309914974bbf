package authorizer

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"kplane/pkg/api/fields"
	"kplane/pkg/auth"
)

// RequestInfo is what the URL and method of a request say it is about,
// read before the request reaches any handler (upstream's
// request.RequestInfo). Authorization, audit and the in-flight limit all
// need it; the apiserver computes it once, first in its handler chain, and
// keeps it in the request's context.
//
//	GET /apis/apps/v1/namespaces/default/deployments/web/scale
//	     └┬─┘ └┬─┘ └┬┘            └──┬──┘ └────┬────┘ └┬┘ └─┬─┘
//	   prefix group version   namespace   resource  name subresource
type RequestInfo struct {
	// ResourceRequest is false for paths outside /api and /apis and for
	// the discovery documents (/api, /apis/apps/v1).
	ResourceRequest bool
	// Path is the URL path.
	Path string
	// Verb: see Attributes.Verb. A GET without a name is list, or watch
	// when WatchRequested or under /watch/; a GET with a name is get even
	// with ?watch=1, as upstream's (and the handler serves the object, not
	// a watch). A DELETE without a name is deletecollection.
	Verb string

	APIPrefix   string // "api" or "apis"
	APIGroup    string
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	// FieldSelector is the ?fieldSelector= of a list or watch, as sent.
	FieldSelector string
}

// specialVerbs are the old path verbs: /api/v1/watch/pods,
// /api/v1/proxy/nodes/n1.
var specialVerbs = map[string]bool{"proxy": true, "watch": true}

// namespaceSubresources are what may follow /namespaces/<name>/ without
// naming a resource inside the namespace.
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// IsNamespaceSubresource reports whether segment, after /namespaces/<name>/,
// is a subresource of that Namespace (status, finalize) rather than a
// resource inside it. The apiserver's router reads paths by the same rule.
func IsNamespaceSubresource(segment string) bool { return namespaceSubresources[segment] }

// ParseRequestInfo reads r's path and method the way upstream's
// RequestInfoFactory does. It never fails: a path it cannot read as a
// resource is a non-resource request.
func ParseRequestInfo(r *http.Request) *RequestInfo {
	info := &RequestInfo{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := splitPath(r.URL.Path)
	if len(parts) < 3 || (parts[0] != "api" && parts[0] != "apis") {
		return info // /healthz, /api, /api/v1, /apis/apps
	}
	info.APIPrefix, parts = parts[0], parts[1:]
	if info.APIPrefix == "apis" {
		if len(parts) < 3 {
			return info // /apis/apps/v1: discovery
		}
		info.APIGroup, parts = parts[0], parts[1:]
	}
	info.ResourceRequest = true
	info.APIVersion, parts = parts[0], parts[1:]

	if specialVerbs[parts[0]] && len(parts) > 1 {
		info.Verb, parts = parts[0], parts[1:]
	} else {
		info.Verb = verbOfMethod(r.Method)
	}
	if parts[0] == "namespaces" && len(parts) > 1 {
		info.Namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			parts = parts[2:]
		}
	}
	if len(parts) >= 3 && info.Verb != "proxy" {
		info.Subresource = parts[2]
	}
	if len(parts) >= 2 {
		info.Name = parts[1]
	}
	info.Resource = parts[0]

	query := r.URL.Query()
	if info.Name == "" && info.Verb == "get" {
		info.Verb = "list"
		if WatchRequested(query) {
			info.Verb = "watch"
		}
	}
	if info.Verb == "list" || info.Verb == "watch" {
		// A list or watch of one object by field selector is about that
		// object: RBAC's resourceNames apply to it.
		info.Name = nameFromFieldSelector(query)
		info.FieldSelector = query.Get("fieldSelector")
	}
	if info.Name == "" && info.Verb == "delete" {
		info.Verb = "deletecollection"
	}
	return info
}

// Attributes are the authorization attributes of a request by user.
func (info *RequestInfo) Attributes(user auth.User) Attributes {
	a := Attributes{User: user}
	a.Verb = info.Verb
	a.ResourceRequest = info.ResourceRequest
	a.Path = info.Path
	if info.ResourceRequest {
		a.APIGroup, a.APIVersion = info.APIGroup, info.APIVersion
		a.Namespace, a.Resource, a.Subresource, a.Name = info.Namespace, info.Resource, info.Subresource, info.Name
		a.FieldSelector = info.FieldSelector
	}
	return a
}

// verbOfMethod maps an HTTP method onto a verb of a resource request.
func verbOfMethod(method string) string {
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodGet, http.MethodHead:
		return "get"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return ""
}

// nameFromFieldSelector is X when the fieldSelector requires
// metadata.name=X (or ==X), read by the same parser the handler filters
// with, so RBAC's resourceNames judge exactly the object the list or watch
// returns. As upstream's RequestInfoFactory, a name that could not be a
// path segment (".", "..", or holding "/" or "%") narrows nothing.
func nameFromFieldSelector(query url.Values) string {
	selector, err := fields.Parse(query.Get("fieldSelector"))
	if err != nil {
		return "" // the handler answers 400
	}
	name, ok := selector.RequiresExactMatch("metadata.name")
	if !ok || name == "." || name == ".." || strings.ContainsAny(name, "/%") {
		return ""
	}
	return name
}

// WatchRequested reports whether a query asks for a watch, by upstream's
// rule for a boolean query parameter: present, with a first value other
// than "false" or "0". A bare ?watch, ?watch=yes and the Python client's
// ?watch=True all ask for one. The authorizer and the apiserver's handlers
// both read ?watch through this function, so a request is never authorized
// as a list and then served as a watch.
func WatchRequested(query url.Values) bool {
	values, ok := query["watch"]
	if !ok || len(values) == 0 {
		return false
	}
	switch strings.ToLower(values[0]) {
	case "false", "0":
		return false
	}
	return true
}

// splitPath keeps empty segments, as upstream's does: /namespaces/default//secrets
// names a resource "" with the name "secrets", which no rule grants and no
// handler serves.
func splitPath(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

type requestInfoKey struct{}

// WithRequestInfo returns a copy of ctx that carries info.
func WithRequestInfo(ctx context.Context, info *RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey{}, info)
}

// RequestInfoFrom returns the RequestInfo the apiserver stored for the
// request, or nil outside the apiserver's chain.
func RequestInfoFrom(ctx context.Context) *RequestInfo {
	info, _ := ctx.Value(requestInfoKey{}).(*RequestInfo)
	return info
}
