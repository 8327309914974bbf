package clusterroleaggregation

import (
	"fmt"
	"testing"

	"kplane/pkg/api"
)

func aggregated(name string, selectors ...map[string]string) *api.ClusterRole {
	role := &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: name}, AggregationRule: &api.AggregationRule{}}
	for _, s := range selectors {
		role.AggregationRule.ClusterRoleSelectors = append(role.AggregationRule.ClusterRoleSelectors, api.LabelSelector{MatchLabels: s})
	}
	return role
}

func labelled(name string, labels map[string]string, rules ...api.PolicyRule) *api.ClusterRole {
	return &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: name, Labels: labels}, Rules: rules}
}

func verbsOn(resource string, verbs ...string) api.PolicyRule {
	return api.PolicyRule{Verbs: verbs, APIGroups: []string{""}, Resources: []string{resource}}
}

var (
	toView = map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}
	toEdit = map[string]string{"rbac.authorization.k8s.io/aggregate-to-edit": "true"}
)

func TestAggregatedRules(t *testing.T) {
	tests := []struct {
		name   string
		target *api.ClusterRole
		all    []*api.ClusterRole
		want   []api.PolicyRule
	}{
		{
			name:   "union in name order, duplicates once",
			target: aggregated("view", toView),
			all: []*api.ClusterRole{
				labelled("z-extra", toView, verbsOn("widgets", "get"), verbsOn("pods", "get", "list")),
				labelled("a-core", toView, verbsOn("pods", "get", "list")),
				labelled("unlabelled", nil, verbsOn("secrets", "get")),
			},
			want: []api.PolicyRule{verbsOn("pods", "get", "list"), verbsOn("widgets", "get")},
		},
		{
			name:   "selectors in order, then names",
			target: aggregated("edit", toEdit, toView),
			all: []*api.ClusterRole{
				labelled("a-view", toView, verbsOn("pods", "get")),
				labelled("b-edit", toEdit, verbsOn("pods", "create")),
			},
			want: []api.PolicyRule{verbsOn("pods", "create"), verbsOn("pods", "get")},
		},
		{
			name: "itself is skipped even when it matches",
			target: func() *api.ClusterRole {
				r := aggregated("view", toView)
				r.Labels = toView
				r.Rules = []api.PolicyRule{verbsOn("old", "get")}
				return r
			}(),
			all:  []*api.ClusterRole{labelled("a", toView, verbsOn("pods", "get"))},
			want: []api.PolicyRule{verbsOn("pods", "get")},
		},
		{
			name:   "nothing selected: no rules",
			target: aggregated("view", toView),
			want:   []api.PolicyRule{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := append([]*api.ClusterRole{tt.target}, tt.all...)
			got, err := aggregatedRules(tt.target, all)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || !rulesEqual(got, tt.want) {
				t.Fatalf("rules = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAggregatedRulesBadSelector(t *testing.T) {
	target := &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: "x"}, AggregationRule: &api.AggregationRule{
		ClusterRoleSelectors: []api.LabelSelector{{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}},
	}}
	if _, err := aggregatedRules(target, nil); err == nil {
		t.Fatal("want an error for an unknown operator")
	}
}
