package authorizer

import (
	"context"
	"errors"
	"strings"

	"kplane/pkg/auth"
)

// Union asks each authorizer in turn; the first that allows or denies
// decides. When none does, the request has no opinion from anyone, which
// the apiserver answers with 403 (or 500 when one of them failed with an
// error, returned joined); the reasons the authorizers gave are
// joined, one per line, as upstream's union does.
func Union(authorizers ...Authorizer) Authorizer {
	return Func(func(ctx context.Context, a Attributes) (Decision, string, error) {
		var reasons []string
		var errs []error
		for _, z := range authorizers {
			decision, reason, err := z.Authorize(ctx, a)
			if err != nil {
				errs = append(errs, err)
			}
			if reason != "" {
				reasons = append(reasons, reason)
			}
			if decision != DecisionNoOpinion {
				return decision, reason, err
			}
		}
		return DecisionNoOpinion, strings.Join(reasons, "\n"), errors.Join(errs...)
	})
}

// PrivilegedGroups allows every request of a member of one of groups
// (system:masters): upstream puts this ahead of every other authorizer, so
// the cluster administrator never depends on RBAC objects that could be
// deleted. For anyone else it has no opinion.
func PrivilegedGroups(groups ...string) Authorizer {
	return Func(func(_ context.Context, a Attributes) (Decision, string, error) {
		for _, g := range groups {
			if a.User.InGroup(g) {
				return DecisionAllow, "", nil
			}
		}
		return DecisionNoOpinion, "", nil
	})
}

// AlwaysAllow allows everything (--authorization-mode=AlwaysAllow): a
// cluster with no authorization, as kplane was before RBAC. It is a
// RuleResolver too: everyone holds every rule.
func AlwaysAllow() interface {
	Authorizer
	RuleResolver
} {
	return alwaysAllow{}
}

type alwaysAllow struct{}

func (alwaysAllow) Authorize(context.Context, Attributes) (Decision, string, error) {
	return DecisionAllow, "", nil
}

// RulesFor gives everyone every verb on every resource and URL, as
// upstream's alwaysAllowAuthorizer does.
func (alwaysAllow) RulesFor(context.Context, auth.User, string) ([]ResourceRule, []NonResourceRule, bool, error) {
	return []ResourceRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
		[]NonResourceRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}}, false, nil
}
