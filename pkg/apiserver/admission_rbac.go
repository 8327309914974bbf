package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
	"kplane/pkg/authorization/rbac"
)

// admitRBAC is RBAC's escalation prevention (upstream's policy-based
// storage in pkg/registry/rbac/{role,clusterrole,rolebinding,
// clusterrolebinding}/policybased): whoever may create Roles and bindings
// must not be able to give anyone, themselves included, more than they
// hold. So a write is refused with 403 unless one of these holds:
//
//   - the writer is in system:masters, or is the server itself (its own
//     bootstrap writes carry no user);
//   - for a Role or ClusterRole: the writer holds the "escalate" verb on
//     it, or already holds every rule it lists (the rules they hold in the
//     Role's namespace, or cluster-wide for a ClusterRole);
//   - for a binding: the writer holds "bind" on the role it refers to
//     (resource roles or clusterroles, resourceNames the role's name, in
//     the binding's namespace), or already holds every rule of that role.
//
// An update that changes only what the garbage collector writes
// (ownerReferences, finalizers) is let through as upstream lets it, so
// that the collector can work on roles it could not have written. A
// ClusterRole with an aggregationRule can gather any rule, so writing one
// needs every permission there is ("*" on everything), as upstream.
func (s *Server) admitRBAC(ctx context.Context, res *resource, obj, old api.Object) error {
	if res.group != api.RBACGroupName {
		return nil
	}
	user, ok := auth.UserFrom(ctx)
	if !ok || user.InGroup(auth.MastersGroup) {
		return nil
	}
	if old != nil && onlyGarbageCollectorFieldsChanged(obj, old) {
		return nil
	}
	policy := s.rbacAuthorizer().Source()
	gr := apierrors.Resource{Group: res.group, Resource: res.plural}
	switch o := obj.(type) {
	case *api.Role:
		if s.mayEscalate(ctx, user, res, o.Namespace, o.Name) {
			return nil
		}
		if err := rbac.ConfirmNoEscalation(ctx, policy, user, o.Namespace, o.Rules); err != nil {
			return apierrors.NewForbidden(gr, o.Name, err)
		}
	case *api.ClusterRole:
		if s.mayEscalate(ctx, user, res, "", o.Name) {
			return nil
		}
		if err := rbac.ConfirmNoEscalation(ctx, policy, user, "", o.Rules); err != nil {
			return apierrors.NewForbidden(gr, o.Name, err)
		}
		oldRole, _ := old.(*api.ClusterRole)
		if o.AggregationRule != nil || (oldRole != nil && oldRole.AggregationRule != nil) {
			if err := rbac.ConfirmNoEscalation(ctx, policy, user, "", fullAuthority); err != nil {
				return apierrors.NewForbidden(gr, o.Name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
			}
		}
	case *api.RoleBinding:
		return s.admitBinding(ctx, policy, user, gr, o.Name, o.Namespace, o.RoleRef)
	case *api.ClusterRoleBinding:
		return s.admitBinding(ctx, policy, user, gr, o.Name, "", o.RoleRef)
	}
	return nil
}

// fullAuthority is every permission: what upstream requires of whoever
// writes an aggregationRule.
var fullAuthority = []api.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

// admitBinding lets a binding named name through when user may bind its
// role, or holds every rule of it already.
func (s *Server) admitBinding(ctx context.Context, policy rbac.Source, user auth.User, gr apierrors.Resource, name, namespace string, ref api.RoleRef) error {
	if s.mayBind(ctx, user, namespace, ref) {
		return nil
	}
	rules, err := rbac.RoleRefRules(ctx, policy, ref, namespace)
	if err != nil {
		return apierrors.NewForbidden(gr, name, err)
	}
	if err := rbac.ConfirmNoEscalation(ctx, policy, user, namespace, rules); err != nil {
		return apierrors.NewForbidden(gr, name, err)
	}
	return nil
}

// mayEscalate asks the server's authorizers whether user holds "escalate"
// on the role namespace/name of res (roles or clusterroles).
func (s *Server) mayEscalate(ctx context.Context, user auth.User, res *resource, namespace, name string) bool {
	return s.allows(ctx, authorizer.Attributes{
		User: user, Verb: "escalate", ResourceRequest: true,
		APIGroup: api.RBACGroupName, APIVersion: "v1", Resource: res.plural, Namespace: namespace, Name: name,
	})
}

// mayBind asks whether user holds "bind" on the role ref names, in the
// binding's namespace ("" for a ClusterRoleBinding): so a namespace admin
// can be allowed to bind a ClusterRole in their namespace only.
func (s *Server) mayBind(ctx context.Context, user auth.User, bindingNamespace string, ref api.RoleRef) bool {
	var resource string
	switch ref.Kind {
	case "Role":
		resource = "roles"
	case "ClusterRole":
		resource = "clusterroles"
	default:
		return false
	}
	return s.allows(ctx, authorizer.Attributes{
		User: user, Verb: "bind", ResourceRequest: true,
		APIGroup: ref.APIGroup, APIVersion: "v1", Resource: resource, Namespace: bindingNamespace, Name: ref.Name,
	})
}

// allows reports whether the server's authorizers allow a.
func (s *Server) allows(ctx context.Context, a authorizer.Attributes) bool {
	decision, _, _ := s.authorizer.Authorize(ctx, a)
	return decision == authorizer.DecisionAllow
}

// onlyGarbageCollectorFieldsChanged reports whether obj differs from old
// at most in ownerReferences and finalizers (upstream's
// IsOnlyMutatingGCFields).
func onlyGarbageCollectorFieldsChanged(obj, old api.Object) bool {
	normalized := api.DeepCopyValue(obj)
	meta, oldMeta := normalized.GetObjectMeta(), old.GetObjectMeta()
	meta.OwnerReferences, meta.Finalizers, meta.ManagedFields = oldMeta.OwnerReferences, oldMeta.Finalizers, oldMeta.ManagedFields
	a, errA := json.Marshal(normalized)
	b, errB := json.Marshal(old)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}
