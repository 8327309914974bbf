package apiserver

import (
	"net/http"
	"net/url"
	"testing"

	"kplane/pkg/api/fields"
	"kplane/pkg/authorization/authorizer"
)

// FuzzRequestInfo reads arbitrary requests (method, path, query) the two
// ways the apiserver reads them — authorizer.ParseRequestInfo, which the
// authorizer and audit see, and parseRequest, which picks the handler — and
// checks that they agree wherever it matters:
//
//   - on the verb, whenever the router finds a resource: a disagreement is
//     the 500 serveResource answers rather than serve what was not
//     authorized, so for any path a client can send it must not happen;
//   - on group, version, namespace, resource, name and subresource for
//     every request a handler serves, so RBAC judges the object served;
//   - on the name a list or watch is narrowed to by
//     fieldSelector=metadata.name=X: the authorizer applies resourceNames
//     to X, so the selector the handler parses must select X and only X.
func FuzzRequestInfo(f *testing.F) {
	for _, seed := range []struct{ method, path, query string }{
		{"GET", "/api/v1/namespaces/default/pods", "watch=1"},
		{"GET", "/api/v1/namespaces/default/pods/web", "watch=true"},
		{"DELETE", "/api/v1/namespaces/default/pods", ""},
		{"GET", "/apis/apps/v1/namespaces/default/deployments/web/scale", ""},
		{"PUT", "/api/v1/namespaces/kube-system/finalize", ""},
		{"GET", "/api/v1/namespaces/default/status", ""},
		{"GET", "/api/v1/namespaces/default/bogus", ""},
		{"GET", "/api/v1/nodes/n1/proxy/metrics/", ""},
		{"GET", "/api/v1/watch/namespaces/default/pods", ""},
		{"GET", "/api/v1/namespaces/default//secrets", ""},
		{"GET", "/api/v1/pods", "fieldSelector=metadata.name%3Dweb"},
		{"GET", "/api/v1/namespaces/default/secrets", "fieldSelector=metadata.name%3D%3D+a+&watch"},
		{"GET", "/api/v1/namespaces/default/secrets", `fieldSelector=metadata.name%3Da\%2Cb`},
		{"OPTIONS", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", ""},
		{"POST", "/api/v1/namespaces/default/pods/web/eviction", ""},
		{"GET", "/apis//v1/pods", ""},
	} {
		f.Add(seed.method, seed.path, seed.query)
	}
	s := &Server{reg: newRegistry(builtinResources())}
	f.Fuzz(func(t *testing.T, method, path, rawQuery string) {
		r := &http.Request{Method: method, URL: &url.URL{Path: path, RawQuery: rawQuery}, Header: http.Header{}}
		authz := authorizer.ParseRequestInfo(r)
		if authz.Path != path {
			t.Fatalf("ParseRequestInfo(%q).Path = %q", path, authz.Path)
		}
		served := s.parseRequest(r)
		if served == nil {
			return // 404 before anything reads the authorizer's verb
		}
		if authz.Verb != "" && authz.Verb != served.verb {
			t.Fatalf("%s %s?%s: authorized as %q but served as %q (a 500)", method, path, rawQuery, authz.Verb, served.verb)
		}
		if !handled(served) {
			return
		}
		if !authz.ResourceRequest {
			t.Fatalf("%s %s: served as %s of %s, but the authorizer reads a non-resource request", method, path, served.verb, served.res.plural)
		}
		want := authorizer.RequestInfo{
			APIGroup: served.res.group, APIVersion: served.res.version, Namespace: served.namespace,
			Resource: served.res.plural, Subresource: served.subresource, Name: served.name,
		}
		if served.res.plural == "namespaces" && served.res.group == "" {
			want.Namespace = served.name // upstream reads /namespaces/x as in namespace x
		}
		got := authorizer.RequestInfo{
			APIGroup: authz.APIGroup, APIVersion: authz.APIVersion, Namespace: authz.Namespace,
			Resource: authz.Resource, Subresource: authz.Subresource, Name: authz.Name,
		}
		if served.verb == "list" || served.verb == "watch" {
			got.Name = "" // checked against the field selector below
		}
		if got != want {
			t.Fatalf("%s %s: the authorizer reads %+v, the handler serves %+v", method, path, got, want)
		}
		if (served.verb == "list" || served.verb == "watch") && authz.Name != "" {
			sel, err := fields.Parse(r.URL.Query().Get("fieldSelector"))
			if err != nil {
				return // a 400: nothing is listed
			}
			if name, ok := sel.RequiresExactMatch("metadata.name"); !ok || name != authz.Name {
				t.Fatalf("fieldSelector %q: authorized for the object %q, but the handler selects %q (exact: %v)",
					r.URL.Query().Get("fieldSelector"), authz.Name, name, ok)
			}
		}
	})
}

// handled reports whether dispatch hands info to a handler rather than
// answering 404 for it; it follows serveResource and dispatch.
func handled(info *requestInfo) bool {
	if info.res.namespaced && info.name != "" && info.namespace == "" && info.verb != "list" && info.verb != "watch" {
		return false
	}
	res := info.res
	switch info.subresource {
	case "":
		return true
	case "status":
		return res.hasStatus
	case "scale":
		return res.scale != nil
	case "binding", "log", "eviction", "exec", "attach", "portforward":
		return res.plural == "pods" && res.group == ""
	case "token":
		return res.plural == "serviceaccounts" && res.group == ""
	case "finalize":
		return res.plural == "namespaces" && res.group == ""
	case "proxy":
		return info.proxyPath != ""
	}
	return false
}
