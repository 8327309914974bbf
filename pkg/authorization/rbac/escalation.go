package rbac

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/auth"
)

// This file is RBAC's escalation check (upstream's
// pkg/registry/rbac/validation/policy_comparator.go and
// rule.go ConfirmNoEscalation): nobody may write a Role holding, or a
// binding granting, a permission they do not hold themselves. The
// apiserver runs it as admission on roles and bindings
// (pkg/apiserver/admission_rbac.go), unless the writer is in
// system:masters or holds the "escalate" (roles) or "bind" (bindings)
// verb.

// ConfirmNoEscalation returns nil when the rules user holds in namespace
// cover every one of rules, and otherwise an error listing the missing
// permissions in upstream's words:
//
//	user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
//	{APIGroups:[""], Resources:["pods"], Verbs:["delete" "get"]}
//
// Errors met while resolving the user's own rules (a binding to a missing
// role) are appended as "; resolution errors: [...]".
func ConfirmNoEscalation(ctx context.Context, src Source, user auth.User, namespace string, rules []api.PolicyRule) error {
	owned, resolveErr := RulesFor(ctx, src, user, namespace)
	covered, missing := Covers(owned, rules)
	if covered {
		return nil
	}
	descriptions := map[string]bool{}
	for _, r := range CompactRules(missing) {
		descriptions[CompactString(r)] = true
	}
	lines := make([]string, 0, len(descriptions))
	for d := range descriptions {
		lines = append(lines, d)
	}
	slices.Sort(lines)
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		user.Name, user.Groups, strings.Join(lines, "\n"))
	if resolveErr != nil {
		msg += fmt.Sprintf("; resolution errors: [%v]", resolveErr)
	}
	return &EscalationError{Message: msg}
}

// EscalationError is ConfirmNoEscalation's refusal. The apiserver wraps it
// in a 403 naming the object being written.
type EscalationError struct {
	Message string
}

func (e *EscalationError) Error() string { return e.Message }

// Covers reports whether ownerRules cover every permission of
// servantRules, and returns the ones they do not, broken down to one
// group, resource, verb (and name) each.
func Covers(ownerRules, servantRules []api.PolicyRule) (bool, []api.PolicyRule) {
	var uncovered []api.PolicyRule
	for _, servant := range servantRules {
		for _, sub := range BreakdownRule(servant) {
			if !slices.ContainsFunc(ownerRules, func(owner api.PolicyRule) bool { return ruleCovers(owner, sub) }) {
				uncovered = append(uncovered, sub)
			}
		}
	}
	return len(uncovered) == 0, uncovered
}

// BreakdownRule splits a rule into rules of one API group, one resource,
// one verb and at most one resource name; or, for non-resource URLs, one
// URL and one verb.
func BreakdownRule(rule api.PolicyRule) []api.PolicyRule {
	var subrules []api.PolicyRule
	for _, group := range rule.APIGroups {
		for _, resource := range rule.Resources {
			for _, verb := range rule.Verbs {
				if len(rule.ResourceNames) == 0 {
					subrules = append(subrules, api.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: []string{verb}})
					continue
				}
				for _, name := range rule.ResourceNames {
					subrules = append(subrules, api.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: []string{verb}, ResourceNames: []string{name}})
				}
			}
		}
	}
	for _, url := range rule.NonResourceURLs {
		for _, verb := range rule.Verbs {
			subrules = append(subrules, api.PolicyRule{NonResourceURLs: []string{url}, Verbs: []string{verb}})
		}
	}
	return subrules
}

// ruleCovers reports whether owner grants everything sub does. "*" covers
// any verb, group or resource; "*/scale" covers any resource's scale
// subresource; an owner with resource names covers only those names; an
// owner URL ending in "*" covers the paths under it.
func ruleCovers(owner, sub api.PolicyRule) bool {
	verbs := slices.Contains(owner.Verbs, "*") || containsAll(owner.Verbs, sub.Verbs)
	groups := slices.Contains(owner.APIGroups, "*") || containsAll(owner.APIGroups, sub.APIGroups)
	names := len(owner.ResourceNames) == 0 || (len(sub.ResourceNames) > 0 && containsAll(owner.ResourceNames, sub.ResourceNames))
	return verbs && groups && names &&
		resourcesCoverAll(owner.Resources, sub.Resources) &&
		urlsCoverAll(owner.NonResourceURLs, sub.NonResourceURLs)
}

func containsAll(set, values []string) bool {
	for _, v := range values {
		if !slices.Contains(set, v) {
			return false
		}
	}
	return true
}

func resourcesCoverAll(owner, sub []string) bool {
	if slices.Contains(owner, "*") {
		return true
	}
	for _, r := range sub {
		if slices.Contains(owner, r) {
			continue
		}
		_, subresource, ok := strings.Cut(r, "/")
		if !ok || !slices.Contains(owner, "*/"+subresource) {
			return false
		}
	}
	return true
}

func urlsCoverAll(owner, sub []string) bool {
	for _, path := range sub {
		if !slices.ContainsFunc(owner, func(o string) bool {
			return o == path || (strings.HasSuffix(o, "*") && strings.HasPrefix(path, strings.TrimRight(o, "*")))
		}) {
			return false
		}
	}
	return true
}

// CompactRules merges rules that differ only in their verbs (one group,
// one resource, at most one name, nothing else): the broken-down missing
// rules of a Covers check read as one line per resource again.
func CompactRules(rules []api.PolicyRule) []api.PolicyRule {
	type simpleResource struct{ group, resource, name string }
	var compacted []api.PolicyRule
	simple := map[simpleResource]*api.PolicyRule{}
	var order []simpleResource
	for _, r := range rules {
		if len(r.APIGroups) != 1 || len(r.Resources) != 1 || len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 {
			compacted = append(compacted, r)
			continue
		}
		key := simpleResource{group: r.APIGroups[0], resource: r.Resources[0]}
		if len(r.ResourceNames) == 1 {
			key.name = "\x00" + r.ResourceNames[0] // tells "no name" from the name ""
		}
		if existing, ok := simple[key]; ok {
			existing.Verbs = append(existing.Verbs, r.Verbs...)
			continue
		}
		c := api.PolicyRule{APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames, Verbs: slices.Clone(r.Verbs)}
		simple[key] = &c
		order = append(order, key)
	}
	for _, key := range order {
		compacted = append(compacted, *simple[key])
	}
	return compacted
}

// CompactString prints a rule as upstream's escalation messages do:
// {APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}, leaving out
// the empty fields.
func CompactString(r api.PolicyRule) string {
	var parts []string
	add := func(name string, values []string) {
		if len(values) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", name, values))
		}
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("NonResourceURLs", r.NonResourceURLs)
	add("ResourceNames", r.ResourceNames)
	add("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}
