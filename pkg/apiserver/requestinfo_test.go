package apiserver

import (
	"net/http/httptest"
	"testing"
)

func TestParseRequest(t *testing.T) {
	s := &Server{reg: newRegistry(builtinResources())}
	cases := []struct {
		method, url                          string
		resource, namespace, name, sub, verb string // resource "" means: not served
	}{
		{"GET", "/api/v1/pods", "pods", "", "", "", "list"},
		{"GET", "/api/v1/namespaces/default/pods", "pods", "default", "", "", "list"},
		{"GET", "/api/v1/namespaces/default/pods?watch=1", "pods", "default", "", "", "watch"},
		{"GET", "/api/v1/namespaces/default/pods?watch=True", "pods", "default", "", "", "watch"}, // the Python client
		{"GET", "/api/v1/namespaces/default/pods?watch=False", "pods", "default", "", "", "list"},
		{"GET", "/api/v1/namespaces/default/pods?watch=0", "pods", "default", "", "", "list"},
		{"GET", "/api/v1/namespaces/default/pods?watch", "pods", "default", "", "", "watch"}, // upstream's bool: present is true
		{"GET", "/api/v1/namespaces/default/pods?watch=yes", "pods", "default", "", "", "watch"},
		// A named GET is a get whatever ?watch says, as upstream's get handler.
		{"GET", "/api/v1/namespaces/default/pods/web-0?watch=1", "pods", "default", "web-0", "", "get"},
		// Empty segments name nothing (upstream's router does not collapse them).
		{"GET", "/api/v1/namespaces/default//secrets", "", "", "", "", ""},
		{"GET", "/api/v1//secrets", "", "", "", "", ""},
		{"DELETE", "/api/v1/namespaces/default//secrets", "", "", "", "", ""},
		{"GET", "/api/v1/namespaces//secrets", "", "", "", "", ""},
		{"GET", "/api/v1/namespaces/default/secrets//status", "", "", "", "", ""},
		{"GET", "/apis//v1/pods", "", "", "", "", ""},
		{"GET", "/api//pods", "", "", "", "", ""},
		{"GET", "/api/v1/pods/", "pods", "", "", "", "list"}, // a trailing slash is not a segment
		{"GET", "/api/v1/namespaces/default/pods/web-0", "pods", "default", "web-0", "", "get"},
		{"PUT", "/api/v1/namespaces/default/pods/web-0/status", "pods", "default", "web-0", "status", "update"},
		{"POST", "/api/v1/namespaces/default/pods/web-0/binding", "pods", "default", "web-0", "binding", "create"},
		{"PATCH", "/apis/apps/v1/namespaces/ns1/deployments/d/scale", "deployments", "ns1", "d", "scale", "patch"},
		{"DELETE", "/apis/apps/v1/namespaces/ns1/deployments", "deployments", "ns1", "", "", "deletecollection"},
		// The namespaces resource itself, and its subresources.
		{"GET", "/api/v1/namespaces", "namespaces", "", "", "", "list"},
		{"GET", "/api/v1/namespaces/kube-system", "namespaces", "", "kube-system", "", "get"},
		{"PUT", "/api/v1/namespaces/doomed/finalize", "namespaces", "", "doomed", "finalize", "update"},
		{"GET", "/api/v1/namespaces/x/status", "namespaces", "", "x", "status", "get"},
		// A cluster-scoped or unknown resource under a namespace names
		// nothing: the authorizer reads a list of it in that namespace, as
		// upstream's does, never a get of the Namespace.
		{"GET", "/api/v1/namespaces/default/nodes", "", "", "", "", ""},
		{"GET", "/api/v1/namespaces/default/bogus", "", "", "", "", ""},
		{"GET", "/api/v1/nodes/node1", "nodes", "", "node1", "", "get"},
		{"GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler", "leases", "kube-system", "kube-scheduler", "", "get"},
		{"GET", "/api/v1/widgets", "", "", "", "", ""},
		{"GET", "/apis/apps/v2/deployments", "", "", "", "", ""},
		{"GET", "/api/v1/namespaces/default/pods/a/b/c", "", "", "", "", ""},
		{"GET", "/healthz", "", "", "", "", ""},
	}
	for _, tc := range cases {
		info := s.parseRequest(httptest.NewRequest(tc.method, tc.url, nil))
		if tc.resource == "" {
			if info != nil {
				t.Errorf("%s %s: parsed as %+v, want not served", tc.method, tc.url, info)
			}
			continue
		}
		if info == nil {
			t.Errorf("%s %s: not served", tc.method, tc.url)
			continue
		}
		got := [5]string{info.res.plural, info.namespace, info.name, info.subresource, info.verb}
		want := [5]string{tc.resource, tc.namespace, tc.name, tc.sub, tc.verb}
		if got != want {
			t.Errorf("%s %s: got %v, want %v", tc.method, tc.url, got, want)
		}
	}
}
