package rbac

import (
	"context"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// Authorizer is the RBAC authorizer (upstream's
// plugin/pkg/auth/authorizer/rbac/rbac.go). It allows a request when a
// rule of a role bound to the user covers it, and otherwise has no
// opinion: RBAC never denies. It also lists a user's rules for
// SelfSubjectRulesReview (authorizer.RuleResolver).
//
// Every request walks the ClusterRoleBindings and, for a namespaced
// request, the namespace's RoleBindings, stopping at the first rule that
// covers it. The walk allocates nothing until it allows (then it formats
// the reason), so a user with a few bindings costs a few microseconds even
// with upstream's ~70 bootstrap ClusterRoleBindings to skip.
type Authorizer struct {
	source Source
}

// New returns an RBAC authorizer reading Roles and bindings from source.
func New(source Source) *Authorizer {
	return &Authorizer{source: source}
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// Authorize allows the request when some rule the user holds covers it.
// The reason names the binding that allowed it, as upstream's:
//
//	RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "z"
//
// Without a covering rule the decision is no opinion, with an empty
// reason, or "RBAC: " and the errors met (a binding to a missing role)
// when there were any.
func (z *Authorizer) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	w := authorizingWalk{attrs: a}
	visitRulesFor(ctx, z.source, a.User, a.Namespace, w.visit)
	if w.allowed {
		return authorizer.DecisionAllow, "RBAC: allowed by " + w.source.String(), nil
	}
	if err := joinErrors(w.errs); err != nil {
		return authorizer.DecisionNoOpinion, "RBAC: " + err.Error(), nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// authorizingWalk is the visitor of one Authorize call: it stops at the
// first rule covering the request and remembers where it came from.
type authorizingWalk struct {
	attrs   authorizer.Attributes
	allowed bool
	source  ruleSource
	errs    []error
}

func (w *authorizingWalk) visit(source ruleSource, rule *api.PolicyRule, err error) bool {
	if rule != nil && RuleAllows(w.attrs, *rule) {
		w.allowed = true
		w.source = source
		return false
	}
	if err != nil {
		w.errs = append(w.errs, err)
	}
	return true
}

// RulesFor lists the rules user holds in namespace, split into resource
// and non-resource rules as SelfSubjectRulesReview shows them. A rule with
// both resources and non-resource URLs (invalid, but storable) shows in
// both lists, as upstream. A binding to a missing role is skipped and
// reported in err; incomplete stays false, as upstream's RBAC authorizer
// reports it (the review carries err as its evaluationError).
func (z *Authorizer) RulesFor(ctx context.Context, user auth.User, namespace string) ([]authorizer.ResourceRule, []authorizer.NonResourceRule, bool, error) {
	rules, err := RulesFor(ctx, z.source, user, namespace)
	var resourceRules []authorizer.ResourceRule
	var nonResourceRules []authorizer.NonResourceRule
	for _, r := range rules {
		if len(r.Resources) > 0 {
			resourceRules = append(resourceRules, authorizer.ResourceRule{
				Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames,
			})
		}
		if len(r.NonResourceURLs) > 0 {
			nonResourceRules = append(nonResourceRules, authorizer.NonResourceRule{
				Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs,
			})
		}
	}
	return resourceRules, nonResourceRules, false, err
}

// Source returns where the authorizer reads Roles and bindings, for the
// escalation check that shares it.
func (z *Authorizer) Source() Source { return z.source }
