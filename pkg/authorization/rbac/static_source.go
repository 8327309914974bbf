package rbac

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// StaticSource is a Source over fixed slices of objects: for tests and for
// evaluating a policy that is not stored anywhere (a file, a fixture).
type StaticSource struct {
	Roles               []*api.Role
	RoleBindings        []*api.RoleBinding
	ClusterRoles        []*api.ClusterRole
	ClusterRoleBindings []*api.ClusterRoleBinding
}

// ListClusterRoleBindings returns every ClusterRoleBinding.
func (s *StaticSource) ListClusterRoleBindings(context.Context) ([]*api.ClusterRoleBinding, error) {
	return s.ClusterRoleBindings, nil
}

// ListRoleBindings returns the RoleBindings of namespace.
func (s *StaticSource) ListRoleBindings(_ context.Context, namespace string) ([]*api.RoleBinding, error) {
	var out []*api.RoleBinding
	for _, b := range s.RoleBindings {
		if b.Namespace == namespace {
			out = append(out, b)
		}
	}
	return out, nil
}

// GetRole returns the Role namespace/name or a NotFound error.
func (s *StaticSource) GetRole(_ context.Context, namespace, name string) (*api.Role, error) {
	for _, r := range s.Roles {
		if r.Namespace == namespace && r.Name == name {
			return r, nil
		}
	}
	return nil, RoleNotFound(name)
}

// GetClusterRole returns the ClusterRole name or a NotFound error.
func (s *StaticSource) GetClusterRole(_ context.Context, name string) (*api.ClusterRole, error) {
	for _, r := range s.ClusterRoles {
		if r.Name == name {
			return r, nil
		}
	}
	return nil, ClusterRoleNotFound(name)
}

// RoleNotFound is the error a Source returns for a missing Role, worded
// as upstream's lister words it (the singular resource name):
// `role.rbac.authorization.k8s.io "x" not found`.
func RoleNotFound(name string) error {
	return apierrors.NewNotFound(apierrors.Resource{Group: api.RBACGroupName, Resource: "role"}, name)
}

// ClusterRoleNotFound is the error a Source returns for a missing
// ClusterRole: `clusterrole.rbac.authorization.k8s.io "x" not found`.
func ClusterRoleNotFound(name string) error {
	return apierrors.NewNotFound(apierrors.Resource{Group: api.RBACGroupName, Resource: "clusterrole"}, name)
}

// unsupportedRoleRefKind is upstream's error for a binding whose roleRef
// is neither a Role nor a ClusterRole (validation refuses such bindings;
// this guards objects written around it).
func unsupportedRoleRefKind(kind string) error {
	return fmt.Errorf("unsupported role reference kind: %q", kind)
}
