// Package rbac is the RBAC authorizer: a request is allowed when some
// Role or ClusterRole bound to the user (or one of the user's groups, or
// the user's ServiceAccount) has a rule that covers it. RBAC only ever
// allows: a request no rule covers gets "no opinion", and the apiserver
// answers 403 when no other authorizer allows it either.
//
// This file holds how one PolicyRule matches a request (upstream's
// pkg/apis/rbac/v1/evaluation_helpers.go); the Node authorizer uses it too.
package rbac

import (
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/authorization/authorizer"
)

// RuleAllows reports whether rule covers the request a describes.
//
//   - verbs and apiGroups match exactly, or "*" matches any;
//   - resources match "pods", "pods/log" (resource/subresource), "*", or
//     "*/scale" (that subresource of any resource);
//   - resourceNames, when set, must contain the object's name, so a rule
//     with names never covers list or create (which name no object);
//   - nonResourceURLs match a path exactly, "*" matches any, and a
//     trailing "*" matches a prefix ("/healthz/*").
func RuleAllows(a authorizer.Attributes, rule api.PolicyRule) bool {
	if !matchesOrStar(rule.Verbs, a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		return nonResourceURLMatches(rule.NonResourceURLs, a.Path)
	}
	return matchesOrStar(rule.APIGroups, a.APIGroup) &&
		resourceMatches(rule.Resources, a.Resource, a.Subresource) &&
		(len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, a.Name))
}

// RulesAllow reports whether any of rules covers the request.
func RulesAllow(a authorizer.Attributes, rules []api.PolicyRule) bool {
	for _, r := range rules {
		if RuleAllows(a, r) {
			return true
		}
	}
	return false
}

func matchesOrStar(list []string, value string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, value)
}

func resourceMatches(ruleResources []string, resource, subresource string) bool {
	combined := resource
	if subresource != "" {
		combined += "/" + subresource
	}
	for _, r := range ruleResources {
		switch {
		case r == "*", r == combined:
			return true
		case subresource != "" && r == "*/"+subresource:
			return true
		}
	}
	return false
}

func nonResourceURLMatches(ruleURLs []string, path string) bool {
	for _, u := range ruleURLs {
		switch {
		case u == "*", u == path:
			return true
		case strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimSuffix(u, "*")):
			return true
		}
	}
	return false
}
