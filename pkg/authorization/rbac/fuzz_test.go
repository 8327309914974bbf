package rbac

import (
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/authorization/authorizer"
)

// FuzzRuleAllows judges arbitrary requests against arbitrary rules and
// checks the invariants RBAC's matching must keep:
//
//   - the rule written for exactly the request allows it;
//   - "*" allows whatever a specific entry allows: replacing verbs,
//     apiGroups, resources or nonResourceURLs with ["*"] (and dropping
//     resourceNames) never turns an allow into a refusal;
//   - a rule only widens as its lists grow: adding a verb, group, resource
//     or URL never refuses what was allowed;
//   - RulesAllow allows exactly when one of its rules does.
//
// The rule is fuzzed as five "|"-separated lists of ","-separated entries:
// verbs|apiGroups|resources|resourceNames|nonResourceURLs.
func FuzzRuleAllows(f *testing.F) {
	for _, seed := range []struct {
		rule                                           string
		verb, group, resource, subresource, name, path string
		resourceRequest                                bool
	}{
		{"get,list||pods||", "get", "", "pods", "", "web", "", true},
		{"*|apps|deployments/scale,*/status|web|", "patch", "apps", "deployments", "scale", "web", "", true},
		{"get|*|*|a,b|", "list", "", "secrets", "", "", "", true},
		{"get||||/healthz/*,/version", "get", "", "", "", "", "/healthz/etcd", false},
		{"*||||*", "post", "", "", "", "", "/apis", false},
		{"get||pods/log||", "get", "", "pods", "log", "web", "", true},
		{",||,|,|,", "", "", "", "", "", "", true},
	} {
		f.Add(seed.rule, seed.verb, seed.group, seed.resource, seed.subresource, seed.name, seed.path, seed.resourceRequest)
	}
	f.Fuzz(func(t *testing.T, ruleText, verb, group, resource, subresource, name, path string, resourceRequest bool) {
		lists := strings.SplitN(ruleText, "|", 5)
		for len(lists) < 5 {
			lists = append(lists, "")
		}
		entries := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, ",")
		}
		rule := api.PolicyRule{Verbs: entries(lists[0]), APIGroups: entries(lists[1]), Resources: entries(lists[2]),
			ResourceNames: entries(lists[3]), NonResourceURLs: entries(lists[4])}
		a := authorizer.Attributes{Verb: verb, ResourceRequest: resourceRequest, Path: path,
			APIGroup: group, Resource: resource, Subresource: subresource, Name: name}

		exact := api.PolicyRule{Verbs: []string{verb}, NonResourceURLs: []string{path}}
		if resourceRequest {
			combined := resource
			if subresource != "" {
				combined += "/" + subresource
			}
			exact = api.PolicyRule{Verbs: []string{verb}, APIGroups: []string{group}, Resources: []string{combined}}
			if name != "" {
				exact.ResourceNames = []string{name}
			}
		}
		if !RuleAllows(a, exact) {
			t.Fatalf("%+v: the rule written for it, %+v, refuses it", a, exact)
		}

		allowed := RuleAllows(a, rule)
		if RulesAllow(a, []api.PolicyRule{exact, rule}) != true || RulesAllow(a, []api.PolicyRule{rule}) != allowed || RulesAllow(a, nil) {
			t.Fatalf("%+v: RulesAllow disagrees with RuleAllows on %+v", a, rule)
		}
		if !allowed {
			return
		}
		star := []string{"*"}
		for what, wider := range map[string]api.PolicyRule{
			"verbs *":            withList(rule, func(r *api.PolicyRule) { r.Verbs = star }),
			"apiGroups *":        withList(rule, func(r *api.PolicyRule) { r.APIGroups = star }),
			"resources *":        withList(rule, func(r *api.PolicyRule) { r.Resources = star }),
			"no resourceNames":   withList(rule, func(r *api.PolicyRule) { r.ResourceNames = nil }),
			"nonResourceURLs *":  withList(rule, func(r *api.PolicyRule) { r.NonResourceURLs = star }),
			"one verb more":      withList(rule, func(r *api.PolicyRule) { r.Verbs = append(r.Verbs, "escalate") }),
			"one group more":     withList(rule, func(r *api.PolicyRule) { r.APIGroups = append(r.APIGroups, "extra.io") }),
			"one resource more":  withList(rule, func(r *api.PolicyRule) { r.Resources = append(r.Resources, "*/status") }),
			"one URL more":       withList(rule, func(r *api.PolicyRule) { r.NonResourceURLs = append(r.NonResourceURLs, "/x*") }),
			"the request's verb": withList(rule, func(r *api.PolicyRule) { r.Verbs = append(r.Verbs, verb) }),
		} {
			if !RuleAllows(a, wider) {
				t.Fatalf("%+v: %+v allows it, but with %s (%+v) it does not", a, rule, what, wider)
			}
		}
	})
}

// withList is a copy of rule changed by change, sharing no list with it.
func withList(rule api.PolicyRule, change func(*api.PolicyRule)) api.PolicyRule {
	copied := api.PolicyRule{Verbs: slices.Clone(rule.Verbs), APIGroups: slices.Clone(rule.APIGroups),
		Resources: slices.Clone(rule.Resources), ResourceNames: slices.Clone(rule.ResourceNames),
		NonResourceURLs: slices.Clone(rule.NonResourceURLs)}
	change(&copied)
	return copied
}
