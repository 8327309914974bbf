package rbac

import (
	"context"

	"kplane/pkg/api"
)

// Source is where the authorizer reads Roles and bindings from. The
// apiserver's implementation reads its own watch caches (authz_rbac.go);
// tests use StaticSource. Upstream's equivalent is the four listers
// (RoleGetter, RoleBindingLister, ClusterRoleGetter,
// ClusterRoleBindingLister) of plugin/pkg/auth/authorizer/rbac/rbac.go.
//
// The slices returned are shared with the source and must not be modified.
type Source interface {
	// ListClusterRoleBindings returns every ClusterRoleBinding.
	ListClusterRoleBindings(ctx context.Context) ([]*api.ClusterRoleBinding, error)
	// ListRoleBindings returns the RoleBindings of one namespace.
	ListRoleBindings(ctx context.Context, namespace string) ([]*api.RoleBinding, error)
	// GetRole returns the Role namespace/name, or an error that says it is
	// missing (upstream's lister NotFound: `role.rbac.authorization.k8s.io "x" not found`).
	GetRole(ctx context.Context, namespace, name string) (*api.Role, error)
	// GetClusterRole returns the ClusterRole name, or a NotFound error.
	GetClusterRole(ctx context.Context, name string) (*api.ClusterRole, error)
}
