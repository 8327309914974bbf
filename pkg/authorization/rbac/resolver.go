package rbac

import (
	"context"
	"fmt"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/auth"
)

// This file is upstream's DefaultRuleResolver
// (pkg/registry/rbac/validation/rule.go): it walks the bindings that apply
// to a user and hands each rule of the roles they grant to a visitor. The
// authorizer's visitor stops at the first rule that covers the request;
// RulesFor's collects them all.

// ruleSource describes where a rule came from, for the allow reason: the
// binding, its role and the subject that matched. It is only formatted
// when a request is allowed, so walking costs no formatting.
type ruleSource struct {
	clusterBinding *api.ClusterRoleBinding
	binding        *api.RoleBinding
	subject        *api.Subject
}

// String reads like upstream's binding describers:
//
//	ClusterRoleBinding "x" of ClusterRole "y" to User "z"
//	RoleBinding "b/ns" of Role "r" to ServiceAccount "default/ns"
func (s ruleSource) String() string {
	if s.clusterBinding != nil {
		b := s.clusterBinding
		return fmt.Sprintf("ClusterRoleBinding %q of %s %q to %s", b.Name, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(s.subject, ""))
	}
	b := s.binding
	return fmt.Sprintf("RoleBinding %q of %s %q to %s", b.Name+"/"+b.Namespace, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(s.subject, b.Namespace))
}

// describeSubject names a subject as upstream does; a ServiceAccount shows
// as "name/namespace", its namespace defaulting to the binding's.
func describeSubject(s *api.Subject, bindingNamespace string) string {
	if s.Kind == api.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

// visitor receives each rule that applies to the user (source set, rule
// non-nil) or an error met on the way (a missing role). It returns false
// to stop the walk.
type visitor func(source ruleSource, rule *api.PolicyRule, err error) bool

// visitRulesFor walks the rules user holds in namespace: first every
// ClusterRoleBinding's, then, for a namespaced request, the namespace's
// RoleBindings'. A binding applies when one of its subjects is the user.
// Errors do not stop the walk (a binding to a missing role grants nothing,
// the others still count), as upstream.
func visitRulesFor(ctx context.Context, src Source, user auth.User, namespace string, visit visitor) {
	clusterBindings, err := src.ListClusterRoleBindings(ctx)
	if err != nil {
		if !visit(ruleSource{}, nil, fmt.Errorf("list clusterrolebindings: %w", err)) {
			return
		}
	}
	for _, b := range clusterBindings {
		i, ok := appliesTo(user, b.Subjects, "")
		if !ok {
			continue
		}
		rules, err := RoleRefRules(ctx, src, b.RoleRef, "")
		if err != nil {
			if !visit(ruleSource{}, nil, err) {
				return
			}
			continue
		}
		source := ruleSource{clusterBinding: b, subject: &b.Subjects[i]}
		for j := range rules {
			if !visit(source, &rules[j], nil) {
				return
			}
		}
	}
	if namespace == "" {
		return
	}
	bindings, err := src.ListRoleBindings(ctx, namespace)
	if err != nil {
		visit(ruleSource{}, nil, fmt.Errorf("list rolebindings in %s: %w", namespace, err))
		return
	}
	for _, b := range bindings {
		i, ok := appliesTo(user, b.Subjects, namespace)
		if !ok {
			continue
		}
		rules, err := RoleRefRules(ctx, src, b.RoleRef, namespace)
		if err != nil {
			if !visit(ruleSource{}, nil, err) {
				return
			}
			continue
		}
		source := ruleSource{binding: b, subject: &b.Subjects[i]}
		for j := range rules {
			if !visit(source, &rules[j], nil) {
				return
			}
		}
	}
}

// RoleRefRules returns the rules of the role a binding refers to
// (upstream's GetRoleReferenceRules). A RoleBinding's Role is looked up in
// the binding's namespace; a ClusterRoleBinding passes "".
func RoleRefRules(ctx context.Context, src Source, ref api.RoleRef, bindingNamespace string) ([]api.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		role, err := src.GetRole(ctx, bindingNamespace, ref.Name)
		if err != nil {
			return nil, err
		}
		return role.Rules, nil
	case "ClusterRole":
		role, err := src.GetClusterRole(ctx, ref.Name)
		if err != nil {
			return nil, err
		}
		return role.Rules, nil
	}
	return nil, unsupportedRoleRefKind(ref.Kind)
}

// appliesTo returns the index of the first subject that is user.
// bindingNamespace is "" for a ClusterRoleBinding.
func appliesTo(user auth.User, subjects []api.Subject, bindingNamespace string) (int, bool) {
	for i := range subjects {
		if subjectIsUser(user, &subjects[i], bindingNamespace) {
			return i, true
		}
	}
	return 0, false
}

// subjectIsUser reports whether subject names user: a User by name, a
// Group the user belongs to, or a ServiceAccount whose user name
// (system:serviceaccount:<ns>:<name>) is the user's. A ServiceAccount
// subject without a namespace takes the RoleBinding's namespace (in a
// ClusterRoleBinding it matches nobody), as upstream's appliesToUser.
func subjectIsUser(user auth.User, subject *api.Subject, bindingNamespace string) bool {
	switch subject.Kind {
	case api.UserKind:
		return user.Name == subject.Name
	case api.GroupKind:
		return user.InGroup(subject.Name)
	case api.ServiceAccountKind:
		ns := subject.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return ns != "" && isServiceAccountUsername(user.Name, ns, subject.Name)
	}
	return false
}

// isServiceAccountUsername reports whether username is
// system:serviceaccount:<namespace>:<name>, without building that string
// (this runs for every ServiceAccount subject of every binding on every
// request; upstream's serviceaccount.MatchesUsername does the same).
func isServiceAccountUsername(username, namespace, name string) bool {
	rest, ok := strings.CutPrefix(username, auth.ServiceAccountUsernamePrefix)
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, namespace)
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, ":")
	return ok && rest == name
}

// RulesFor returns every rule user holds in namespace (the cluster-wide
// ones included) in walk order, and the errors met (a binding to a missing
// role), joined. The rules are the roles' own; do not modify them.
func RulesFor(ctx context.Context, src Source, user auth.User, namespace string) ([]api.PolicyRule, error) {
	var rules []api.PolicyRule
	var errs []error
	visitRulesFor(ctx, src, user, namespace, func(_ ruleSource, rule *api.PolicyRule, err error) bool {
		if rule != nil {
			rules = append(rules, *rule)
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	return rules, joinErrors(errs)
}

// joinErrors joins errors the way upstream's utilerrors.NewAggregate prints
// them: one alone as itself, several as "[a, b]".
func joinErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return &aggregateError{msg: "[" + strings.Join(msgs, ", ") + "]", errs: errs}
}

// aggregateError is several errors printed as one, still unwrappable.
type aggregateError struct {
	msg  string
	errs []error
}

func (e *aggregateError) Error() string   { return e.msg }
func (e *aggregateError) Unwrap() []error { return e.errs }
