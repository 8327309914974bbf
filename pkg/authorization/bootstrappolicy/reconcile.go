package bootstrappolicy

import (
	"reflect"
	"slices"
	"strings"

	"kplane/pkg/api"
)

// This file is how the apiserver brings a stored policy object back in
// line with the policy at start, upstream's
// pkg/registry/rbac/reconciliation: reconciliation only ever adds. A rule,
// subject, label or annotation someone removed comes back; what someone
// added stays. An object annotated autoupdate "false" is left as it is.

// Protected reports whether meta's object has opted out of reconciliation
// (rbac.authorization.kubernetes.io/autoupdate: "false").
func Protected(meta api.ObjectMeta) bool {
	return meta.Annotations[AutoUpdateAnnotation] == "false"
}

// ReconcileClusterRole returns existing with what expected has and existing
// lacks added, and whether anything was added. An aggregated role's rules
// belong to the clusterrole-aggregation controller, so for it only the
// selectors are reconciled.
func ReconcileClusterRole(existing, expected api.ClusterRole) (api.ClusterRole, bool) {
	out := existing
	out.Rules = slices.Clone(existing.Rules)
	changed := mergeMetadata(&out.ObjectMeta, expected.ObjectMeta)
	if expected.AggregationRule != nil {
		var selectors []api.LabelSelector
		if existing.AggregationRule != nil {
			selectors = slices.Clone(existing.AggregationRule.ClusterRoleSelectors)
		}
		for _, sel := range expected.AggregationRule.ClusterRoleSelectors {
			if !slices.ContainsFunc(selectors, func(s api.LabelSelector) bool { return reflect.DeepEqual(s, sel) }) {
				selectors = append(selectors, sel)
				changed = true
			}
		}
		out.AggregationRule = &api.AggregationRule{ClusterRoleSelectors: selectors}
		return out, changed
	}
	var added bool
	out.Rules, added = addMissingRules(out.Rules, expected.Rules)
	return out, changed || added
}

// ReconcileRole is ReconcileClusterRole for a namespaced Role.
func ReconcileRole(existing, expected api.Role) (api.Role, bool) {
	out := existing
	out.Rules = slices.Clone(existing.Rules)
	changed := mergeMetadata(&out.ObjectMeta, expected.ObjectMeta)
	var added bool
	out.Rules, added = addMissingRules(out.Rules, expected.Rules)
	return out, changed || added
}

// ReconcileClusterRoleBinding adds the subjects, labels and annotations
// expected has and existing lacks. A binding whose roleRef differs cannot
// be updated (roleRef is immutable); recreate reports it, and the caller
// replaces the binding, as upstream does.
func ReconcileClusterRoleBinding(existing, expected api.ClusterRoleBinding) (out api.ClusterRoleBinding, changed, recreate bool) {
	if existing.RoleRef != expected.RoleRef {
		return expected, true, true
	}
	out = existing
	changed = mergeMetadata(&out.ObjectMeta, expected.ObjectMeta)
	var added bool
	out.Subjects, added = addMissingSubjects(existing.Subjects, expected.Subjects)
	return out, changed || added, false
}

// ReconcileRoleBinding is ReconcileClusterRoleBinding for a RoleBinding.
func ReconcileRoleBinding(existing, expected api.RoleBinding) (out api.RoleBinding, changed, recreate bool) {
	if existing.RoleRef != expected.RoleRef {
		return expected, true, true
	}
	out = existing
	changed = mergeMetadata(&out.ObjectMeta, expected.ObjectMeta)
	var added bool
	out.Subjects, added = addMissingSubjects(existing.Subjects, expected.Subjects)
	return out, changed || added, false
}

// mergeMetadata adds expected's labels and annotations that meta lacks,
// keeping meta's own values for keys both have.
func mergeMetadata(meta *api.ObjectMeta, expected api.ObjectMeta) bool {
	var changed bool
	meta.Labels, changed = addMissingKeys(meta.Labels, expected.Labels)
	var annotated bool
	meta.Annotations, annotated = addMissingKeys(meta.Annotations, expected.Annotations)
	return changed || annotated
}

func addMissingKeys(have, want map[string]string) (map[string]string, bool) {
	changed := false
	for k, v := range want {
		if _, ok := have[k]; ok {
			continue
		}
		if !changed {
			clone := make(map[string]string, len(have)+len(want))
			for hk, hv := range have {
				clone[hk] = hv
			}
			have, changed = clone, true
		}
		have[k] = v
	}
	return have, changed
}

func addMissingSubjects(have, want []api.Subject) ([]api.Subject, bool) {
	out, changed := slices.Clone(have), false
	for _, s := range want {
		if !slices.ContainsFunc(out, func(h api.Subject) bool { return sameSubject(h, s) }) {
			out, changed = append(out, s), true
		}
	}
	return out, changed
}

// sameSubject compares subjects as upstream does: a ServiceAccount's empty
// apiGroup and a User's "rbac.authorization.k8s.io" are the defaults.
func sameSubject(a, b api.Subject) bool {
	return a.Kind == b.Kind && a.Name == b.Name && a.Namespace == b.Namespace
}

// addMissingRules appends each expected rule that the existing rules do
// not already cover as a whole.
func addMissingRules(have, want []api.PolicyRule) ([]api.PolicyRule, bool) {
	changed := false
	for _, r := range want {
		if !Covers(have, r) {
			have, changed = append(have, r), true
		}
	}
	return have, changed
}

// Covers reports whether rules together allow everything rule allows,
// broken down into single verb/group/resource/name (or verb/URL) pieces,
// as upstream's validation.Covers does. A piece is covered when one rule
// allows it by name or by "*".
func Covers(rules []api.PolicyRule, rule api.PolicyRule) bool {
	for _, verb := range rule.Verbs {
		for _, url := range rule.NonResourceURLs {
			if !slices.ContainsFunc(rules, func(r api.PolicyRule) bool {
				return hasOrStar(r.Verbs, verb) && urlCovered(r.NonResourceURLs, url)
			}) {
				return false
			}
		}
		for _, group := range rule.APIGroups {
			for _, resource := range rule.Resources {
				names := rule.ResourceNames
				if len(names) == 0 {
					names = []string{""}
				}
				for _, name := range names {
					if !slices.ContainsFunc(rules, func(r api.PolicyRule) bool {
						return hasOrStar(r.Verbs, verb) && hasOrStar(r.APIGroups, group) &&
							resourceCovered(r.Resources, resource) &&
							(len(r.ResourceNames) == 0 || (name != "" && slices.Contains(r.ResourceNames, name)))
					}) {
						return false
					}
				}
			}
		}
	}
	return true
}

func hasOrStar(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}

// resourceCovered: "*" covers everything, "*/x" covers any "r/x", and
// otherwise the names must be equal.
func resourceCovered(have []string, resource string) bool {
	for _, h := range have {
		if h == "*" || h == resource {
			return true
		}
		if sub, ok := strings.CutPrefix(h, "*/"); ok {
			if _, rsub, found := strings.Cut(resource, "/"); found && rsub == sub {
				return true
			}
		}
	}
	return false
}

// urlCovered: "*" covers every URL and "/x/*" covers every URL under /x/.
func urlCovered(have []string, url string) bool {
	for _, h := range have {
		if h == "*" || h == url {
			return true
		}
		if prefix, ok := strings.CutSuffix(h, "*"); ok && strings.HasPrefix(url, prefix) {
			return true
		}
	}
	return false
}
