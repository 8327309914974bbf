package clusterroleaggregation

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
)

// aggregatedRules returns the rules target should hold: for each of its
// selectors in order, the rules of the ClusterRoles the selector matches,
// taken in name order, each rule once (the first time it is met). target
// itself is skipped, so that its own (aggregated) rules never feed back
// into it. This is upstream's order exactly, so kplane's admin, edit and
// view list their rules as a real cluster's do.
func aggregatedRules(target *api.ClusterRole, all []*api.ClusterRole) ([]api.PolicyRule, error) {
	byName := slices.Clone(all)
	slices.SortFunc(byName, func(a, b *api.ClusterRole) int { return strings.Compare(a.Name, b.Name) })
	rules := []api.PolicyRule{}
	for i := range target.AggregationRule.ClusterRoleSelectors {
		selector, err := labels.FromLabelSelector(&target.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return nil, fmt.Errorf("clusterrole %s: aggregationRule.clusterRoleSelectors[%d]: %w", target.Name, i, err)
		}
		for _, role := range byName {
			if role.Name == target.Name || !selector.Matches(role.Labels) {
				continue
			}
			for _, r := range role.Rules {
				if !slices.ContainsFunc(rules, func(have api.PolicyRule) bool { return reflect.DeepEqual(have, r) }) {
					rules = append(rules, r)
				}
			}
		}
	}
	return rules, nil
}

// rulesEqual compares two rule lists, a nil list equal to an empty one (a
// role stored without rules reads back as nil).
func rulesEqual(a, b []api.PolicyRule) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}
