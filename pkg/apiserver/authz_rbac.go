package apiserver

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"kplane/pkg/api"
	"kplane/pkg/authorization/rbac"
	"kplane/pkg/store/cache"
)

// The RBAC authorizer (pkg/authorization/rbac) reads Roles and bindings
// from this server's own watch caches, never from etcd: authorizing a
// request costs no round trip.
//
// The caches follow etcd through a watch, so a binding just written
// authorizes requests a moment later (the watch delay, usually well under
// a millisecond in one process). Upstream has the same window: its RBAC
// authorizer reads shared-informer listers fed by a watch on its own
// apiserver. A client that creates a RoleBinding and at once uses it can
// be refused once; kubectl users never notice.

// rbacPolicy is the server's one RBAC authorizer over its caches, built on
// first use: by --authorization-mode=RBAC, and by the escalation check of
// admission_rbac.go, which needs the writer's RBAC rules whichever modes
// are on.
type rbacPolicy struct {
	once       sync.Once
	authorizer *rbac.Authorizer
}

// rbacAuthorizer returns the RBAC authorizer over this server's Roles and
// bindings, building it the first time; it is also the RuleResolver of
// SelfSubjectRulesReview.
func (s *Server) rbacAuthorizer() *rbac.Authorizer {
	s.rbac.once.Do(func() {
		s.rbac.authorizer = rbac.New(s.newRBACCacheSource())
	})
	return s.rbac.authorizer
}

// rbacCacheSource is an rbac.Source over the watch caches of the four RBAC
// resources. Roles are read with one cache Get each. Bindings are read on
// every request, so the source keeps them as ready slices (all
// ClusterRoleBindings; the RoleBindings grouped by namespace), rebuilt
// only when the cache has moved to a new revision since.
type rbacCacheSource struct {
	roles, clusterRoles                *resource
	roleBindings, clusterRoleBindings  *resource
	rolesCache, clusterRolesCache      *cache.Cache
	roleBindingsCache, clusterBindings *cache.Cache

	clusterBindingsView atomic.Pointer[bindingsView[[]*api.ClusterRoleBinding]]
	roleBindingsView    atomic.Pointer[bindingsView[map[string][]*api.RoleBinding]]
}

// bindingsView is the bindings of one cache as of its revision.
type bindingsView[T any] struct {
	revision int64
	bindings T
}

func (s *Server) newRBACCacheSource() *rbacCacheSource {
	lookup := func(plural string) *resource { return s.reg.lookup(api.RBACGroupName, "v1", plural) }
	src := &rbacCacheSource{
		roles:               lookup("roles"),
		clusterRoles:        lookup("clusterroles"),
		roleBindings:        lookup("rolebindings"),
		clusterRoleBindings: lookup("clusterrolebindings"),
	}
	src.rolesCache = s.caches[src.roles]
	src.clusterRolesCache = s.caches[src.clusterRoles]
	src.roleBindingsCache = s.caches[src.roleBindings]
	src.clusterBindings = s.caches[src.clusterRoleBindings]
	return src
}

// ListClusterRoleBindings returns every ClusterRoleBinding the cache holds.
// It lists at the revision the cache is at (never 0, which would ask etcd
// for its revision first: authorization makes no round trip).
func (src *rbacCacheSource) ListClusterRoleBindings(ctx context.Context) ([]*api.ClusterRoleBinding, error) {
	rev := src.clusterBindings.Revision()
	if v := src.clusterBindingsView.Load(); v != nil && v.revision == rev {
		return v.bindings, nil
	}
	entries, rev, err := src.clusterBindings.List(ctx, src.clusterRoleBindings.keyPrefix(""), max(rev, 1))
	if err != nil {
		return nil, fmt.Errorf("read clusterrolebindings from the watch cache: %w", err)
	}
	bindings := make([]*api.ClusterRoleBinding, 0, len(entries))
	for _, e := range entries {
		if b, ok := storedAs[*api.ClusterRoleBinding](e.Object); ok {
			bindings = append(bindings, b)
		}
	}
	src.clusterBindingsView.Store(&bindingsView[[]*api.ClusterRoleBinding]{revision: rev, bindings: bindings})
	return bindings, nil
}

// ListRoleBindings returns the RoleBindings of namespace.
func (src *rbacCacheSource) ListRoleBindings(ctx context.Context, namespace string) ([]*api.RoleBinding, error) {
	rev := src.roleBindingsCache.Revision()
	if v := src.roleBindingsView.Load(); v != nil && v.revision == rev {
		return v.bindings[namespace], nil
	}
	entries, rev, err := src.roleBindingsCache.List(ctx, src.roleBindings.keyPrefix(""), max(rev, 1))
	if err != nil {
		return nil, fmt.Errorf("read rolebindings from the watch cache: %w", err)
	}
	byNamespace := map[string][]*api.RoleBinding{}
	for _, e := range entries {
		if b, ok := storedAs[*api.RoleBinding](e.Object); ok {
			byNamespace[b.Namespace] = append(byNamespace[b.Namespace], b)
		}
	}
	src.roleBindingsView.Store(&bindingsView[map[string][]*api.RoleBinding]{revision: rev, bindings: byNamespace})
	return byNamespace[namespace], nil
}

// GetRole returns the Role namespace/name from the cache.
func (src *rbacCacheSource) GetRole(_ context.Context, namespace, name string) (*api.Role, error) {
	if e, ok := src.rolesCache.Get(src.roles.key(namespace, name)); ok {
		if r, ok := storedAs[*api.Role](e.Object); ok {
			return r, nil
		}
	}
	return nil, rbac.RoleNotFound(name)
}

// GetClusterRole returns the ClusterRole name from the cache.
func (src *rbacCacheSource) GetClusterRole(_ context.Context, name string) (*api.ClusterRole, error) {
	if e, ok := src.clusterRolesCache.Get(src.clusterRoles.key("", name)); ok {
		if r, ok := storedAs[*api.ClusterRole](e.Object); ok {
			return r, nil
		}
	}
	return nil, rbac.ClusterRoleNotFound(name)
}
