package describe

import (
	"fmt"
	"slices"
	"strings"

	"kplane/pkg/api"
)

// describeRole prints a Role's rules as a table, one row per resource
// (kubectl's RoleDescriber).
func describeRole(in Input, s Settings) (string, error) {
	role, err := decode[api.Role](in.Object)
	if err != nil {
		return "", err
	}
	return describeRules(role.ObjectMeta, role.Rules), nil
}

// describeClusterRole is describeRole for a ClusterRole.
func describeClusterRole(in Input, s Settings) (string, error) {
	role, err := decode[api.ClusterRole](in.Object)
	if err != nil {
		return "", err
	}
	return describeRules(role.ObjectMeta, role.Rules), nil
}

// describeRules prints a role's rules: broken down into one rule per
// group, resource and resource name, the rules of one resource that
// differ only in verbs merged, sorted, one row each.
func describeRules(meta api.ObjectMeta, rules []api.PolicyRule) string {
	var broken []api.PolicyRule
	for _, rule := range rules {
		broken = append(broken, breakdownRule(rule)...)
	}
	compact := compactRules(broken)
	slices.SortStableFunc(compact, func(a, b api.PolicyRule) int { return strings.Compare(ruleString(a), ruleString(b)) })
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", meta.Name)
		printLabelsMultiline(w, "Labels", meta.Labels)
		printAnnotationsMultiline(w, "Annotations", meta.Annotations)
		w.write(level0, "PolicyRule:\n")
		w.write(level1, "Resources\tNon-Resource URLs\tResource Names\tVerbs\n")
		w.write(level1, "---------\t-----------------\t--------------\t-----\n")
		for _, r := range compact {
			w.write(level1, "%s\t%v\t%v\t%v\n", combineResourceGroup(r.Resources, r.APIGroups), goSlice(r.NonResourceURLs), goSlice(r.ResourceNames), goSlice(r.Verbs))
		}
	})
}

// breakdownRule splits a rule into one rule per API group, resource and
// resource name, and one per non-resource URL (upstream's
// rbac.BreakdownRule).
func breakdownRule(rule api.PolicyRule) []api.PolicyRule {
	var out []api.PolicyRule
	for _, group := range rule.APIGroups {
		for _, resource := range rule.Resources {
			if len(rule.ResourceNames) == 0 {
				out = append(out, api.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: rule.Verbs})
				continue
			}
			for _, name := range rule.ResourceNames {
				out = append(out, api.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: rule.Verbs, ResourceNames: []string{name}})
			}
		}
	}
	for _, u := range rule.NonResourceURLs {
		out = append(out, api.PolicyRule{NonResourceURLs: []string{u}, Verbs: rule.Verbs})
	}
	return out
}

// compactRules merges the verbs of rules about the same single group,
// resource and resource name (upstream's rbac.CompactRules).
func compactRules(rules []api.PolicyRule) []api.PolicyRule {
	type simple struct{ group, resource, name string }
	var out []api.PolicyRule
	var order []simple
	merged := map[simple]*api.PolicyRule{}
	for _, rule := range rules {
		if len(rule.ResourceNames) > 1 || len(rule.NonResourceURLs) > 0 || len(rule.APIGroups) != 1 || len(rule.Resources) != 1 {
			out = append(out, rule)
			continue
		}
		key := simple{group: rule.APIGroups[0], resource: rule.Resources[0]}
		if len(rule.ResourceNames) == 1 {
			key.name = rule.ResourceNames[0]
		}
		existing, ok := merged[key]
		if !ok {
			c := rule
			c.Verbs = slices.Clone(rule.Verbs)
			merged[key] = &c
			order = append(order, key)
			continue
		}
		for _, verb := range rule.Verbs {
			if !slices.Contains(existing.Verbs, verb) {
				existing.Verbs = append(existing.Verbs, verb)
			}
		}
	}
	for _, key := range order {
		out = append(out, *merged[key])
	}
	return out
}

// ruleString is the generated String of a PolicyRule, the key kubectl
// sorts rules by.
func ruleString(r api.PolicyRule) string {
	return fmt.Sprintf("&PolicyRule{Verbs:%v,APIGroups:%v,Resources:%v,ResourceNames:%v,NonResourceURLs:%v,}",
		r.Verbs, r.APIGroups, r.Resources, r.ResourceNames, r.NonResourceURLs)
}

// combineResourceGroup is "resource.group" ("deployments.apps", "pods"),
// with a subresource after a slash ("pods.metrics/status").
func combineResourceGroup(resources, groups []string) string {
	if len(resources) == 0 {
		return ""
	}
	resource, sub, hasSub := strings.Cut(resources[0], "/")
	combined := resource
	if len(groups) > 0 && groups[0] != "" {
		combined += "." + groups[0]
	}
	if hasSub {
		combined += "/" + sub
	}
	return combined
}

// describeRoleBinding prints the role a binding grants and its subjects.
func describeRoleBinding(in Input, s Settings) (string, error) {
	b, err := decode[api.RoleBinding](in.Object)
	if err != nil {
		return "", err
	}
	return describeBinding(b.ObjectMeta, b.RoleRef, b.Subjects), nil
}

// describeClusterRoleBinding is describeRoleBinding for a
// ClusterRoleBinding.
func describeClusterRoleBinding(in Input, s Settings) (string, error) {
	b, err := decode[api.ClusterRoleBinding](in.Object)
	if err != nil {
		return "", err
	}
	return describeBinding(b.ObjectMeta, b.RoleRef, b.Subjects), nil
}

func describeBinding(meta api.ObjectMeta, ref api.RoleRef, subjects []api.Subject) string {
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", meta.Name)
		printLabelsMultiline(w, "Labels", meta.Labels)
		printAnnotationsMultiline(w, "Annotations", meta.Annotations)
		w.write(level0, "Role:\n")
		w.write(level1, "Kind:\t%s\n", ref.Kind)
		w.write(level1, "Name:\t%s\n", ref.Name)
		w.write(level0, "Subjects:\n")
		w.write(level1, "Kind\tName\tNamespace\n")
		w.write(level1, "----\t----\t---------\n")
		for _, s := range subjects {
			w.write(level1, "%s\t%s\t%s\n", s.Kind, s.Name, s.Namespace)
		}
	})
}
