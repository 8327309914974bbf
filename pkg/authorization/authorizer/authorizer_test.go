package authorizer

import (
	"context"
	"net/http/httptest"
	"testing"

	"kplane/pkg/auth"
)

func TestParseRequestInfo(t *testing.T) {
	for _, tc := range []struct {
		method, url                                 string
		resourceRequest                             bool
		verb, group, namespace, resource, sub, name string
	}{
		{"GET", "/healthz", false, "get", "", "", "", "", ""},
		{"GET", "/api/v1", false, "get", "", "", "", "", ""},
		{"GET", "/apis/apps/v1", false, "get", "", "", "", "", ""},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", true, "create", "authorization.k8s.io", "", "selfsubjectaccessreviews", "", ""},
		{"GET", "/api/v1/namespaces/default/pods", true, "list", "", "default", "pods", "", ""},
		{"GET", "/api/v1/pods?watch=true", true, "watch", "", "", "pods", "", ""},
		{"GET", "/api/v1/pods?watch", true, "watch", "", "", "pods", "", ""}, // upstream's bool: present is true
		{"GET", "/api/v1/pods?watch=yes", true, "watch", "", "", "pods", "", ""},
		{"GET", "/api/v1/pods?watch=False", true, "list", "", "", "pods", "", ""},
		{"GET", "/api/v1/namespaces/default/pods/web-0?watch=1", true, "get", "", "default", "pods", "", "web-0"},
		// Empty segments are kept: resource "" (the handler 404s these).
		{"GET", "/api/v1/namespaces/default//secrets", true, "get", "", "default", "", "", "secrets"},
		{"DELETE", "/api/v1//secrets", true, "delete", "", "", "", "", "secrets"},
		{"GET", "/api/v1/watch/namespaces/default/pods", true, "watch", "", "default", "pods", "", ""},
		{"GET", "/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dweb-0&watch=1", true, "watch", "", "default", "pods", "", "web-0"},
		{"GET", "/api/v1/namespaces/default/pods/web-0/log", true, "get", "", "default", "pods", "log", "web-0"},
		{"HEAD", "/api/v1/namespaces/default/pods/web-0", true, "get", "", "default", "pods", "", "web-0"},
		{"PUT", "/apis/apps/v1/namespaces/ns1/deployments/web/scale", true, "update", "apps", "ns1", "deployments", "scale", "web"},
		{"PATCH", "/api/v1/nodes/node1/status", true, "patch", "", "", "nodes", "status", "node1"},
		{"DELETE", "/api/v1/namespaces/ns1/configmaps", true, "deletecollection", "", "ns1", "configmaps", "", ""},
		{"GET", "/api/v1/namespaces/ns1", true, "get", "", "ns1", "namespaces", "", "ns1"},
		{"PUT", "/api/v1/namespaces/ns1/finalize", true, "update", "", "ns1", "namespaces", "finalize", "ns1"},
		{"GET", "/api/v1/nodes/node1/proxy/stats/summary", true, "get", "", "", "nodes", "proxy", "node1"},
		{"GET", "/api/v1/proxy/nodes/node1/stats", true, "proxy", "", "", "nodes", "", "node1"},
	} {
		info := ParseRequestInfo(httptest.NewRequest(tc.method, tc.url, nil))
		got := [...]string{info.Verb, info.APIGroup, info.Namespace, info.Resource, info.Subresource, info.Name}
		want := [...]string{tc.verb, tc.group, tc.namespace, tc.resource, tc.sub, tc.name}
		if info.ResourceRequest != tc.resourceRequest || got != want {
			t.Errorf("%s %s: resource request %v, %q; want %v, %q", tc.method, tc.url, info.ResourceRequest, got, tc.resourceRequest, want)
		}
	}
}

func TestForbiddenMessages(t *testing.T) {
	alice := auth.User{Name: "alice"}
	for _, tc := range []struct {
		a      Attributes
		reason string
		want   string
	}{
		{Attributes{User: alice, Verb: "list", ResourceRequest: true, Resource: "pods", Namespace: "default"}, "",
			`pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"`},
		{Attributes{User: alice, Verb: "get", ResourceRequest: true, Resource: "pods", Subresource: "log", Name: "web-0", Namespace: "default"}, "",
			`pods "web-0" is forbidden: User "alice" cannot get resource "pods/log" in API group "" in the namespace "default"`},
		{Attributes{User: alice, Verb: "delete", ResourceRequest: true, APIGroup: "apps", Resource: "deployments", Name: "web"}, "",
			`deployments.apps "web" is forbidden: User "alice" cannot delete resource "deployments" in API group "apps" at the cluster scope`},
		{Attributes{User: alice, Verb: "get", Path: "/metrics"}, "",
			`forbidden: User "alice" cannot get path "/metrics"`},
		{Attributes{User: auth.NodeUser("n1"), Verb: "get", ResourceRequest: true, Resource: "secrets", Name: "s", Namespace: "ns"},
			"no relationship found between node 'n1' and this object",
			`secrets "s" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "ns": no relationship found between node 'n1' and this object`},
	} {
		err := Forbidden(tc.a, tc.reason)
		if err.Error() != tc.want || err.Status().Code != 403 {
			t.Errorf("Forbidden(%+v) = %d %q, want 403 %q", tc.a, err.Status().Code, err.Error(), tc.want)
		}
	}
}

func TestUnionFirstDecisionWins(t *testing.T) {
	noOpinion := Func(func(context.Context, Attributes) (Decision, string, error) { return DecisionNoOpinion, "not mine", nil })
	masters := PrivilegedGroups(auth.MastersGroup)
	u := Union(masters, noOpinion, noOpinion)
	if d, reason, _ := u.Authorize(context.Background(), Attributes{User: auth.User{Name: "bob"}}); d != DecisionNoOpinion || reason != "not mine\nnot mine" {
		t.Errorf("bob: %v %q", d, reason)
	}
	if d, _, _ := u.Authorize(context.Background(), Attributes{User: auth.AdminUser()}); d != DecisionAllow {
		t.Errorf("admin: %v", d)
	}
}
