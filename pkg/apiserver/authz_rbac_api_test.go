package apiserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver"
	"kplane/pkg/auth"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// startRBACServer starts an apiserver that authorizes with RBAC only, and
// creates namespace ns.
func startRBACServer(t *testing.T, ns string) (*framework.APIServer, *client.Client) {
	t.Helper()
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.AuthorizationModes = []string{apiserver.AuthorizationModeRBAC}
	})
	admin := a.Client(t, nil)
	if _, err := admin.Namespaces().Create(context.Background(), &api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return a, admin
}

func rbacRule(verbs, groups, resources []string) api.PolicyRule {
	return api.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
}

func roleRef(kind, name string) api.RoleRef {
	return api.RoleRef{APIGroup: api.RBACGroupName, Kind: kind, Name: name}
}

func userSubjects(name string) []api.Subject {
	return []api.Subject{{Kind: api.UserKind, APIGroup: api.RBACGroupName, Name: name}}
}

// TestRBACAuthorizesThroughRoleBindings: alice is refused with upstream's
// exact 403 until a RoleBinding grants her a Role that lists pods; then
// she may list pods in that namespace only.
func TestRBACAuthorizesThroughRoleBindings(t *testing.T) {
	ctx := context.Background()
	a, admin := startRBACServer(t, "team-a")
	alice := a.ClientAs(t, auth.User{Name: "alice"}, nil)

	_, err := alice.Pods("team-a").List(ctx, client.ListOptions{})
	want := `pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "team-a"`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("before any binding: err = %v, want 403 %q", err, want)
	}

	mustCreate(t, admin.Roles("team-a"), &api.Role{ObjectMeta: api.ObjectMeta{Name: "pod-reader"},
		Rules: []api.PolicyRule{rbacRule([]string{"get", "list", "watch"}, []string{""}, []string{"pods"})}})
	mustCreate(t, admin.RoleBindings("team-a"), &api.RoleBinding{ObjectMeta: api.ObjectMeta{Name: "alice-reads-pods"},
		Subjects: userSubjects("alice"), RoleRef: roleRef("Role", "pod-reader")})

	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		_, err := alice.Pods("team-a").List(ctx, client.ListOptions{})
		return err == nil, "list pods as alice: " + errString(err)
	})
	if _, err := alice.Pods("default").List(ctx, client.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("list pods in default: err = %v, want 403: a RoleBinding reaches its namespace only", err)
	}
	if err := alice.Pods("team-a").Delete(ctx, "p", client.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("delete a pod: err = %v, want 403: the Role lists no delete", err)
	}
}

// TestRBACEscalationPrevention: alice may write Roles and RoleBindings in
// team-a, but not grant what she does not hold, until she is given the
// escalate and bind verbs. The refusals carry upstream's message.
func TestRBACEscalationPrevention(t *testing.T) {
	ctx := context.Background()
	a, admin := startRBACServer(t, "team-a")
	alice := a.ClientAs(t, auth.User{Name: "alice"}, nil)

	mustCreate(t, admin.Roles("team-a"), &api.Role{ObjectMeta: api.ObjectMeta{Name: "role-writer"},
		Rules: []api.PolicyRule{
			rbacRule([]string{"create", "update", "get"}, []string{api.RBACGroupName}, []string{"roles", "rolebindings"}),
			rbacRule([]string{"get", "list"}, []string{""}, []string{"pods"}),
		}})
	mustCreate(t, admin.RoleBindings("team-a"), &api.RoleBinding{ObjectMeta: api.ObjectMeta{Name: "alice-writes-roles"},
		Subjects: userSubjects("alice"), RoleRef: roleRef("Role", "role-writer")})
	mustCreate(t, admin.Roles("team-a"), &api.Role{ObjectMeta: api.ObjectMeta{Name: "secret-admin"},
		Rules: []api.PolicyRule{rbacRule([]string{"*"}, []string{""}, []string{"secrets"})}})

	// A Role within what she holds is fine (once her binding is visible).
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		_, err := alice.Roles("team-a").Create(ctx, &api.Role{ObjectMeta: api.ObjectMeta{Name: "pod-reader"},
			Rules: []api.PolicyRule{rbacRule([]string{"get"}, []string{""}, []string{"pods"})}}, client.CreateOptions{})
		return err == nil, "create a Role within alice's rights: " + errString(err)
	})

	// One that grants more is refused.
	_, err := alice.Roles("team-a").Create(ctx, &api.Role{ObjectMeta: api.ObjectMeta{Name: "pod-killer"},
		Rules: []api.PolicyRule{rbacRule([]string{"get", "delete"}, []string{""}, []string{"pods"})}}, client.CreateOptions{})
	want := `roles.rbac.authorization.k8s.io "pod-killer" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("escalating Role: err =\n%v\nwant 403\n%s", err, want)
	}

	// So is binding a Role she does not hold.
	secretBinding := &api.RoleBinding{ObjectMeta: api.ObjectMeta{Name: "bob-secrets"},
		Subjects: userSubjects("bob"), RoleRef: roleRef("Role", "secret-admin")}
	_, err = alice.RoleBindings("team-a").Create(ctx, secretBinding, client.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.HasPrefix(err.Error(),
		`rolebindings.rbac.authorization.k8s.io "bob-secrets" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`) {
		t.Fatalf("binding secret-admin: err = %v, want 403 escalation", err)
	}

	// escalate on roles and bind on secret-admin lift both refusals.
	mustCreate(t, admin.Roles("team-a"), &api.Role{ObjectMeta: api.ObjectMeta{Name: "delegator"},
		Rules: []api.PolicyRule{
			rbacRule([]string{"escalate"}, []string{api.RBACGroupName}, []string{"roles"}),
			{Verbs: []string{"bind"}, APIGroups: []string{api.RBACGroupName}, Resources: []string{"roles"}, ResourceNames: []string{"secret-admin"}},
		}})
	mustCreate(t, admin.RoleBindings("team-a"), &api.RoleBinding{ObjectMeta: api.ObjectMeta{Name: "alice-delegates"},
		Subjects: userSubjects("alice"), RoleRef: roleRef("Role", "delegator")})
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		_, err := alice.Roles("team-a").Create(ctx, &api.Role{ObjectMeta: api.ObjectMeta{Name: "pod-killer"},
			Rules: []api.PolicyRule{rbacRule([]string{"get", "delete"}, []string{""}, []string{"pods"})}}, client.CreateOptions{})
		return err == nil, "create pod-killer with escalate: " + errString(err)
	})
	if _, err := alice.RoleBindings("team-a").Create(ctx, secretBinding, client.CreateOptions{}); err != nil {
		t.Fatalf("binding secret-admin with bind on it: %v", err)
	}
}

// TestRBACBindingRoleRefIsImmutable: changing a binding's roleRef is a 422.
func TestRBACBindingRoleRefIsImmutable(t *testing.T) {
	ctx := context.Background()
	_, admin := startRBACServer(t, "team-a")
	b := mustCreate(t, admin.RoleBindings("team-a"), &api.RoleBinding{ObjectMeta: api.ObjectMeta{Name: "b"},
		Subjects: userSubjects("alice"), RoleRef: roleRef("ClusterRole", "view")})
	b.RoleRef.Name = "edit"
	_, err := admin.RoleBindings("team-a").Update(ctx, b, client.UpdateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "cannot change roleRef") {
		t.Fatalf("update roleRef: err = %v, want 422 cannot change roleRef", err)
	}
}

func mustCreate[T api.Object](t *testing.T, c *client.TypedClient[T], obj T) T {
	t.Helper()
	out, err := c.Create(context.Background(), obj, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", obj.GetObjectMeta().Name, err)
	}
	return out
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// TestRBACAggregationRuleNeedsFullAuthority: an aggregationRule can gather
// any permission, so only a writer holding all of them (or escalate) may
// set one, as upstream.
func TestRBACAggregationRuleNeedsFullAuthority(t *testing.T) {
	ctx := context.Background()
	a, admin := startRBACServer(t, "team-a")
	alice := a.ClientAs(t, auth.User{Name: "alice"}, nil)
	mustCreate(t, admin.ClusterRoles(), &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: "clusterrole-writer"},
		Rules: []api.PolicyRule{rbacRule([]string{"create"}, []string{api.RBACGroupName}, []string{"clusterroles"})}})
	mustCreate(t, admin.ClusterRoleBindings(), &api.ClusterRoleBinding{ObjectMeta: api.ObjectMeta{Name: "alice-writes-clusterroles"},
		Subjects: userSubjects("alice"), RoleRef: roleRef("ClusterRole", "clusterrole-writer")})

	aggregated := &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: "everything"},
		AggregationRule: &api.AggregationRule{ClusterRoleSelectors: []api.LabelSelector{{MatchLabels: map[string]string{"x": "y"}}}}}
	want := `clusterroles.rbac.authorization.k8s.io "everything" is forbidden: must have cluster-admin privileges to use the aggregationRule`
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		_, err := alice.ClusterRoles().Create(ctx, aggregated, client.CreateOptions{})
		return apierrors.IsForbidden(err) && err.Error() == want, "create as alice: " + errString(err)
	})
	if _, err := admin.ClusterRoles().Create(ctx, aggregated, client.CreateOptions{}); err != nil {
		t.Fatalf("create as the admin (system:masters): %v", err)
	}
}

// TestRBACRequestIsServedAsAuthorized: the authorizer and the handlers read
// a URL alike, so a user who may only get secrets cannot have a watch or a
// list served under a URL the authorizer read as something else: a bare
// ?watch or ?watch=yes is a watch for both, a named GET with ?watch=1 is a
// get for both (upstream's get handler ignores ?watch), and a path with an
// empty segment is refused (resource "") and would be a 404, never the
// collection with the slash collapsed.
func TestRBACRequestIsServedAsAuthorized(t *testing.T) {
	a, admin := startRBACServer(t, "team-a")
	mustCreate(t, admin.Secrets("team-a"), &api.Secret{ObjectMeta: api.ObjectMeta{Name: "s1"}})
	mustCreate(t, admin.Roles("team-a"), &api.Role{ObjectMeta: api.ObjectMeta{Name: "secret-getter"},
		Rules: []api.PolicyRule{rbacRule([]string{"get"}, []string{""}, []string{"secrets"})}})
	mustCreate(t, admin.RoleBindings("team-a"), &api.RoleBinding{ObjectMeta: api.ObjectMeta{Name: "bob-gets-secrets"},
		Subjects: userSubjects("bob"), RoleRef: roleRef("Role", "secret-getter")})
	bob := a.TokenFor(t, auth.User{Name: "bob"})
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		resp := a.DoWithToken(t, bob, "GET", "/api/v1/namespaces/team-a/secrets/s1", nil)
		return resp.Code == 200, "get secret as bob: " + string(resp.Body)
	})

	for _, tc := range []struct{ method, path string }{
		{"GET", "/api/v1/namespaces/team-a/secrets?watch"},
		{"GET", "/api/v1/namespaces/team-a/secrets?watch=yes"},
		{"GET", "/api/v1/namespaces/team-a//secrets"},
		{"GET", "/api/v1//secrets"},
		{"DELETE", "/api/v1/namespaces/team-a//secrets"},
	} {
		if resp := a.DoWithToken(t, bob, tc.method, tc.path, nil); resp.Code != 403 {
			t.Errorf("%s %s as bob: %d %s, want 403", tc.method, tc.path, resp.Code, resp.Body)
		}
	}

	resp := a.DoWithToken(t, bob, "GET", "/api/v1/namespaces/team-a/secrets/s1?watch=1", nil)
	if resp.Code != 200 || !strings.Contains(string(resp.Body), `"kind":"Secret"`) || strings.Contains(string(resp.Body), `"type":"ADDED"`) {
		t.Errorf("GET secrets/s1?watch=1 as bob: %d %s, want 200 and the Secret itself (a get)", resp.Code, resp.Body)
	}
	if resp := a.Do(t, "GET", "/api/v1/namespaces/team-a//secrets", nil); resp.Code != 404 {
		t.Errorf("GET …/team-a//secrets as admin: %d %s, want 404", resp.Code, resp.Body)
	}
}
