package ctl

// The table of `ctl auth can-i --list`, printed as kubectl prints it
// (kubectl's cmd/auth/cani.go printStatus with pkg/util/rbac): every rule
// is broken down into one rule per API group, resource and name (or per
// URL), rules that then differ only in their verbs are joined again, and
// the result is sorted by the rule's printed form, which begins with its
// verbs.

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"kplane/pkg/api"
)

// accessRule is one row of the table: an RBAC PolicyRule's fields.
type accessRule struct {
	verbs, apiGroups, resources, resourceNames, nonResourceURLs []string
}

// sortKey is the rule as upstream's generated PolicyRule.String() prints
// it, which is what kubectl sorts the rows by.
func (r accessRule) sortKey() string {
	return fmt.Sprintf("&PolicyRule{Verbs:%v,APIGroups:%v,Resources:%v,ResourceNames:%v,NonResourceURLs:%v,}",
		r.verbs, r.apiGroups, r.resources, r.resourceNames, r.nonResourceURLs)
}

// breakdownRule splits a rule into rules of one API group, one resource
// and at most one name each, and a non-resource rule into one per URL.
func breakdownRule(r accessRule) []accessRule {
	var out []accessRule
	for _, group := range r.apiGroups {
		for _, resource := range r.resources {
			if len(r.resourceNames) == 0 {
				out = append(out, accessRule{verbs: r.verbs, apiGroups: []string{group}, resources: []string{resource}})
				continue
			}
			for _, name := range r.resourceNames {
				out = append(out, accessRule{verbs: r.verbs, apiGroups: []string{group}, resources: []string{resource}, resourceNames: []string{name}})
			}
		}
	}
	for _, url := range r.nonResourceURLs {
		out = append(out, accessRule{verbs: r.verbs, nonResourceURLs: []string{url}})
	}
	return out
}

// compactRules joins the verbs of broken-down resource rules about the
// same group, resource and name. Like kubectl's, it does not remove a verb
// two rules both grant.
func compactRules(rules []accessRule) []accessRule {
	type target struct{ group, resource, name string }
	var out []accessRule
	index := map[target]int{}
	for _, r := range rules {
		if len(r.nonResourceURLs) > 0 || len(r.apiGroups) != 1 || len(r.resources) != 1 {
			out = append(out, r)
			continue
		}
		key := target{group: r.apiGroups[0], resource: r.resources[0]}
		if len(r.resourceNames) == 1 {
			key.name = r.resourceNames[0]
		}
		if i, ok := index[key]; ok {
			out[i].verbs = append(out[i].verbs, r.verbs...)
			continue
		}
		index[key] = len(out)
		r.verbs = append([]string(nil), r.verbs...)
		out = append(out, r)
	}
	return out
}

// combineResourceGroup names a broken-down rule's resource as the table
// shows it: "pods", "deployments.apps", "deployments.apps/scale".
func combineResourceGroup(resources, groups []string) string {
	if len(resources) == 0 {
		return ""
	}
	resource, subresource, hasSub := strings.Cut(resources[0], "/")
	if len(groups) > 0 && groups[0] != "" {
		resource += "." + groups[0]
	}
	if hasSub {
		resource += "/" + subresource
	}
	return resource
}

// printRules prints a SelfSubjectRulesReview's rules as kubectl's table.
func printRules(out io.Writer, status api.SubjectRulesReviewStatus, headers bool) error {
	var rules []accessRule
	for _, r := range status.ResourceRules {
		rules = append(rules, breakdownRule(accessRule{verbs: r.Verbs, apiGroups: r.APIGroups, resources: r.Resources, resourceNames: r.ResourceNames})...)
	}
	for _, r := range status.NonResourceRules {
		rules = append(rules, breakdownRule(accessRule{verbs: r.Verbs, nonResourceURLs: r.NonResourceURLs})...)
	}
	rules = compactRules(rules)
	sort.SliceStable(rules, func(i, j int) bool { return rules[i].sortKey() < rules[j].sortKey() })

	// kubectl's printers.GetNewTabWriter settings.
	w := tabwriter.NewWriter(out, 6, 4, 3, ' ', 0)
	if headers {
		fmt.Fprintln(w, "Resources\tNon-Resource URLs\tResource Names\tVerbs")
	}
	for _, r := range rules {
		fmt.Fprintf(w, "%s\t%v\t%v\t%v\n", combineResourceGroup(r.resources, r.apiGroups), listOrEmpty(r.nonResourceURLs), listOrEmpty(r.resourceNames), listOrEmpty(r.verbs))
	}
	return w.Flush()
}

// listOrEmpty is a list as Go's %v prints a slice: "[]" when empty.
func listOrEmpty(items []string) string {
	return "[" + strings.Join(items, " ") + "]"
}
