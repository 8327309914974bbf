package audit

import (
	"slices"
	"strings"

	"kplane/pkg/authorization/authorizer"
)

// RequestAuditConfig is what the policy decided for one request: how much
// to record and which stages to leave out.
type RequestAuditConfig struct {
	Level             Level
	OmitStages        []Stage
	OmitManagedFields bool
}

// Omits says whether stage is left out for this request.
func (c RequestAuditConfig) Omits(stage Stage) bool { return slices.Contains(c.OmitStages, stage) }

// Evaluate returns the level of the first rule that matches the request
// (attrs.User is the authenticated user; a zero User for a request that
// failed authentication), or None when no rule does — upstream's policy
// checker (staging/src/k8s.io/apiserver/pkg/audit/policy/checker.go).
func (p *Policy) Evaluate(attrs authorizer.Attributes) RequestAuditConfig {
	for i := range p.Rules {
		rule := &p.Rules[i]
		if !ruleMatches(rule, attrs) {
			continue
		}
		config := RequestAuditConfig{Level: rule.Level, OmitManagedFields: p.OmitManagedFields}
		config.OmitStages = append(slices.Clone(p.OmitStages), rule.OmitStages...)
		if rule.OmitManagedFields != nil {
			config.OmitManagedFields = *rule.OmitManagedFields
		}
		return config
	}
	return RequestAuditConfig{Level: LevelNone, OmitStages: p.OmitStages}
}

// ruleMatches says whether every list the rule sets matches the request.
func ruleMatches(rule *PolicyRule, attrs authorizer.Attributes) bool {
	if len(rule.Users) > 0 && !slices.Contains(rule.Users, attrs.User.Name) {
		return false
	}
	if len(rule.UserGroups) > 0 && !slices.ContainsFunc(attrs.User.Groups, func(g string) bool { return slices.Contains(rule.UserGroups, g) }) {
		return false
	}
	if len(rule.Verbs) > 0 && !slices.Contains(rule.Verbs, attrs.Verb) {
		return false
	}
	if len(rule.Namespaces) > 0 || len(rule.Resources) > 0 {
		return ruleMatchesResource(rule, attrs)
	}
	if len(rule.NonResourceURLs) > 0 {
		return ruleMatchesNonResource(rule, attrs)
	}
	return true
}

// ruleMatchesResource matches a resource request against the rule's
// namespaces and resources.
func ruleMatchesResource(rule *PolicyRule, attrs authorizer.Attributes) bool {
	if !attrs.ResourceRequest {
		return false
	}
	if len(rule.Namespaces) > 0 && !slices.Contains(rule.Namespaces, attrs.Namespace) {
		return false
	}
	if len(rule.Resources) == 0 {
		return true
	}
	combined := attrs.Resource
	if attrs.Subresource != "" {
		combined = attrs.Resource + "/" + attrs.Subresource
	}
	for _, group := range rule.Resources {
		if group.Group != attrs.APIGroup {
			continue
		}
		if len(group.Resources) == 0 {
			return true
		}
		if len(group.ResourceNames) > 0 && !slices.Contains(group.ResourceNames, attrs.Name) {
			continue
		}
		for _, res := range group.Resources {
			switch {
			case res == "*" || res == combined:
				return true
			case attrs.Subresource != "" && strings.HasPrefix(res, "*/") && res[2:] == attrs.Subresource:
				return true // */scale
			case strings.HasSuffix(res, "/*") && strings.TrimSuffix(res, "/*") == attrs.Resource:
				return true // pods/*
			}
		}
	}
	return false
}

// ruleMatchesNonResource matches a non-resource request's path.
func ruleMatchesNonResource(rule *PolicyRule, attrs authorizer.Attributes) bool {
	if attrs.ResourceRequest {
		return false
	}
	for _, spec := range rule.NonResourceURLs {
		if spec == "*" || spec == attrs.Path {
			return true
		}
		if prefix, ok := strings.CutSuffix(spec, "*"); ok && strings.HasPrefix(attrs.Path, prefix) {
			return true
		}
	}
	return false
}
