package fakeapi

import (
	"fmt"

	"kplane/pkg/client"
	"net/http"
	"strings"
)

// request is a REST request taken apart: which verb on which object.
type request struct {
	verb                  string
	resource              string
	subresource           string
	namespace, name       string
	collectionOfNamespace bool // the path named a namespace (…/namespaces/ns/pods)
	labelSelector         string
}

// parseRequest reads the verb and target of a Kubernetes REST request:
//
//	/api/v1/namespaces/default/pods/web-0/status
//	/apis/apps/v1/namespaces/default/deployments
//	/api/v1/nodes/node1
//	/api/v1/namespaces/ns1/finalize
//
// resourceNamed finds the resource a plural names.
func parseRequest(r *http.Request, resourceNamed func(plural string) (client.Resource, bool)) (request, error) {
	segments := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(segments) >= 3 && segments[0] == "api":
		segments = segments[2:] // api, v1
	case len(segments) >= 4 && segments[0] == "apis":
		segments = segments[3:] // apis, group, version
	default:
		return request{}, fmt.Errorf("fakeapi serves only resource paths, not %s", r.URL.Path)
	}
	var req request
	// …/namespaces/<ns>/<resource>… unless <resource> is a subresource of
	// the namespace itself (namespaces/<ns>/status, /finalize).
	if len(segments) >= 3 && segments[0] == "namespaces" && namespaced(resourceNamed, segments[2]) {
		req.namespace, req.collectionOfNamespace = segments[1], true
		segments = segments[2:]
	}
	req.resource = segments[0]
	if _, ok := resourceNamed(req.resource); !ok {
		return request{}, fmt.Errorf("fakeapi does not know the resource %q (%s)", req.resource, r.URL.Path)
	}
	if len(segments) > 1 {
		req.name = segments[1]
	}
	if len(segments) > 2 {
		req.subresource = strings.Join(segments[2:], "/")
	}
	req.verb = verbOf(r, req.name != "")
	req.labelSelector = r.URL.Query().Get("labelSelector")
	return req, nil
}

// verbOf names what an HTTP method does to an object or a collection.
func verbOf(r *http.Request, named bool) string {
	switch r.Method {
	case http.MethodGet:
		switch {
		case named:
			return VerbGet
		case r.URL.Query().Get("watch") == "1" || r.URL.Query().Get("watch") == "true":
			return VerbWatch
		}
		return VerbList
	case http.MethodPost:
		return VerbCreate
	case http.MethodPut:
		return VerbUpdate
	case http.MethodPatch:
		return VerbPatch
	case http.MethodDelete:
		if named {
			return VerbDelete
		}
		return VerbDeleteCollection
	}
	return strings.ToLower(r.Method)
}

// namespaced reports whether the resource plural names lives in a namespace.
func namespaced(resourceNamed func(string) (client.Resource, bool), plural string) bool {
	res, _ := resourceNamed(plural)
	return res.Namespaced
}
