package rbac

import (
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/authorization/authorizer"
)

func TestRuleAllows(t *testing.T) {
	res := func(verb, group, resource, sub, name string) authorizer.Attributes {
		return authorizer.Attributes{ResourceRequest: true, Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Name: name}
	}
	path := func(verb, p string) authorizer.Attributes { return authorizer.Attributes{Verb: verb, Path: p} }
	pods := api.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	for _, tc := range []struct {
		rule api.PolicyRule
		a    authorizer.Attributes
		want bool
	}{
		{pods, res("get", "", "pods", "", "web"), true},
		{pods, res("delete", "", "pods", "", "web"), false},
		{pods, res("get", "apps", "pods", "", "web"), false},
		{pods, res("get", "", "pods", "log", "web"), false}, // a subresource needs its own rule
		{api.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}}, res("get", "", "pods", "log", "web"), true},
		{api.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}, res("escalate", "rbac.authorization.k8s.io", "clusterroles", "", "x"), true},
		{api.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"apps"}, Resources: []string{"*/scale"}}, res("update", "apps", "deployments", "scale", "web"), true},
		{api.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, res("get", "", "configmaps", "", "a"), true},
		{api.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, res("get", "", "configmaps", "", "b"), false},
		{api.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, res("list", "", "configmaps", "", ""), false},
		{api.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/healthz/*"}}, path("get", "/healthz/etcd"), true},
		{api.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, path("get", "/healthz/etcd"), false},
		{api.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"*"}}, path("post", "/x"), false},
		{pods, path("get", "/api"), false}, // a resource rule never covers a path
	} {
		if got := RuleAllows(tc.a, tc.rule); got != tc.want {
			t.Errorf("RuleAllows(%+v, %+v) = %v, want %v", tc.a, tc.rule, got, tc.want)
		}
	}
}
