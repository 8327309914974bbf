package rbac

import (
	"context"
	"fmt"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

func rule(verbs, groups, resources []string) api.PolicyRule {
	return api.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
}

func list(s ...string) []string { return s }

func clusterRole(name string, rules ...api.PolicyRule) *api.ClusterRole {
	return &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: name}, Rules: rules}
}

func role(ns, name string, rules ...api.PolicyRule) *api.Role {
	return &api.Role{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}, Rules: rules}
}

func clusterBinding(name, roleName string, subjects ...api.Subject) *api.ClusterRoleBinding {
	return &api.ClusterRoleBinding{ObjectMeta: api.ObjectMeta{Name: name}, Subjects: subjects,
		RoleRef: api.RoleRef{APIGroup: api.RBACGroupName, Kind: "ClusterRole", Name: roleName}}
}

func binding(ns, name, kind, roleName string, subjects ...api.Subject) *api.RoleBinding {
	return &api.RoleBinding{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}, Subjects: subjects,
		RoleRef: api.RoleRef{APIGroup: api.RBACGroupName, Kind: kind, Name: roleName}}
}

func userSubject(name string) api.Subject {
	return api.Subject{Kind: api.UserKind, APIGroup: api.RBACGroupName, Name: name}
}
func groupSubject(name string) api.Subject {
	return api.Subject{Kind: api.GroupKind, APIGroup: api.RBACGroupName, Name: name}
}
func saSubject(ns, name string) api.Subject {
	return api.Subject{Kind: api.ServiceAccountKind, Namespace: ns, Name: name}
}

var (
	alice = auth.User{Name: "alice", Groups: []string{"dev", auth.AuthenticatedGroup}}
	bob   = auth.User{Name: "bob", Groups: []string{auth.AuthenticatedGroup}}
	robot = auth.ServiceAccountUser("ci", "robot")
)

// testPolicy is a small cluster: pod readers, a namespaced Role, a
// ClusterRole used in a RoleBinding, a health-check URL role, and a
// binding to a role that does not exist.
func testPolicy() *StaticSource {
	return &StaticSource{
		ClusterRoles: []*api.ClusterRole{
			clusterRole("pod-reader", rule(list("get", "list", "watch"), list(""), list("pods", "pods/log"))),
			clusterRole("deploy-editor", rule(list("*"), list("apps"), list("deployments", "*/scale"))),
			clusterRole("health", api.PolicyRule{Verbs: list("get"), NonResourceURLs: list("/healthz", "/healthz/*")}),
			clusterRole("one-config", api.PolicyRule{Verbs: list("get", "update"), APIGroups: list(""), Resources: list("configmaps"), ResourceNames: list("app-config")}),
		},
		ClusterRoleBindings: []*api.ClusterRoleBinding{
			clusterBinding("alice-pods", "pod-reader", userSubject("alice")),
			clusterBinding("everyone-health", "health", groupSubject(auth.AuthenticatedGroup)),
			clusterBinding("dangling", "no-such-role", userSubject("bob")),
			// A ServiceAccount subject without a namespace matches nobody
			// in a ClusterRoleBinding.
			clusterBinding("sa-no-namespace", "pod-reader", api.Subject{Kind: api.ServiceAccountKind, Name: "robot"}),
		},
		Roles: []*api.Role{
			role("team-a", "secret-reader", rule(list("get"), list(""), list("secrets"))),
		},
		RoleBindings: []*api.RoleBinding{
			binding("team-a", "devs-secrets", "Role", "secret-reader", groupSubject("dev")),
			binding("team-a", "devs-deploy", "ClusterRole", "deploy-editor", groupSubject("dev")),
			// No namespace on the subject: the binding's (ci) is meant.
			binding("ci", "robot-config", "ClusterRole", "one-config", saSubject("", "robot")),
			binding("ci", "robot-secrets", "Role", "missing-role", saSubject("ci", "robot")),
		},
	}
}

func resourceAttrs(user auth.User, verb, group, resource, sub, ns, name string) authorizer.Attributes {
	return authorizer.Attributes{User: user, Verb: verb, ResourceRequest: true, APIGroup: group, APIVersion: "v1",
		Resource: resource, Subresource: sub, Namespace: ns, Name: name}
}

func TestAuthorize(t *testing.T) {
	z := New(testPolicy())
	tests := []struct {
		name   string
		attrs  authorizer.Attributes
		allow  bool
		reason string
	}{
		{"user binding, any namespace", resourceAttrs(alice, "list", "", "pods", "", "kube-system", ""), true,
			`RBAC: allowed by ClusterRoleBinding "alice-pods" of ClusterRole "pod-reader" to User "alice"`},
		{"user binding, cluster-wide list", resourceAttrs(alice, "watch", "", "pods", "", "", ""), true, ""},
		{"subresource named in the rule", resourceAttrs(alice, "get", "", "pods", "log", "default", "p"), true, ""},
		{"subresource not in the rule", resourceAttrs(alice, "get", "", "pods", "exec", "default", "p"), false, ""},
		{"verb not in the rule", resourceAttrs(alice, "delete", "", "pods", "", "default", "p"), false, ""},
		{"other user", resourceAttrs(bob, "get", "", "pods", "", "default", "p"), false,
			`RBAC: clusterrole.rbac.authorization.k8s.io "no-such-role" not found`},
		{"group, Role in its namespace", resourceAttrs(alice, "get", "", "secrets", "", "team-a", "s"), true,
			`RBAC: allowed by RoleBinding "devs-secrets/team-a" of Role "secret-reader" to Group "dev"`},
		{"RoleBinding does not reach another namespace", resourceAttrs(alice, "get", "", "secrets", "", "team-b", "s"), false, ""},
		{"RoleBinding does not reach cluster scope", resourceAttrs(alice, "list", "", "secrets", "", "", ""), false, ""},
		{"ClusterRole through a RoleBinding", resourceAttrs(alice, "delete", "apps", "deployments", "", "team-a", "d"), true,
			`RBAC: allowed by RoleBinding "devs-deploy/team-a" of ClusterRole "deploy-editor" to Group "dev"`},
		{"*/scale", resourceAttrs(alice, "update", "apps", "statefulsets", "scale", "team-a", "s"), true, ""},
		{"wrong group", resourceAttrs(alice, "delete", "", "deployments", "", "team-a", "d"), false, ""},
		{"ServiceAccount defaulted to the binding's namespace", resourceAttrs(robot, "get", "", "configmaps", "", "ci", "app-config"), true,
			`RBAC: allowed by RoleBinding "robot-config/ci" of ClusterRole "one-config" to ServiceAccount "robot/ci"`},
		{"resourceNames: other name", resourceAttrs(robot, "get", "", "configmaps", "", "ci", "other"), false,
			`RBAC: role.rbac.authorization.k8s.io "missing-role" not found`},
		{"resourceNames never cover list", resourceAttrs(robot, "list", "", "configmaps", "", "ci", ""), false, ""},
		{"ServiceAccount without namespace in a ClusterRoleBinding", resourceAttrs(robot, "get", "", "pods", "", "ci", "p"), false, ""},
		{"non-resource URL", authorizer.Attributes{User: bob, Verb: "get", Path: "/healthz"}, true,
			`RBAC: allowed by ClusterRoleBinding "everyone-health" of ClusterRole "health" to Group "system:authenticated"`},
		{"non-resource URL prefix", authorizer.Attributes{User: bob, Verb: "get", Path: "/healthz/etcd"}, true, ""},
		{"non-resource URL not granted", authorizer.Attributes{User: bob, Verb: "get", Path: "/metrics"}, false, ""},
		{"non-resource verb not granted", authorizer.Attributes{User: bob, Verb: "post", Path: "/healthz"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decision, reason, err := z.Authorize(context.Background(), tt.attrs)
			if err != nil {
				t.Fatalf("Authorize: %v", err)
			}
			if got := decision == authorizer.DecisionAllow; got != tt.allow {
				t.Fatalf("allowed = %v, want %v (reason %q)", got, tt.allow, reason)
			}
			if !tt.allow && decision != authorizer.DecisionNoOpinion {
				t.Fatalf("decision = %v, want no opinion: RBAC never denies", decision)
			}
			if tt.reason != "" && reason != tt.reason {
				t.Fatalf("reason = %q, want %q", reason, tt.reason)
			}
		})
	}
}

func TestAuthorizeNoOpinionHasEmptyReason(t *testing.T) {
	_, reason, _ := New(testPolicy()).Authorize(context.Background(), resourceAttrs(alice, "delete", "", "nodes", "", "", "n1"))
	if reason != "" {
		t.Fatalf("reason = %q, want empty when no binding is broken", reason)
	}
}

func TestRulesFor(t *testing.T) {
	z := New(testPolicy())
	res, nonRes, incomplete, err := z.RulesFor(context.Background(), alice, "team-a")
	if err != nil || incomplete {
		t.Fatalf("RulesFor: incomplete=%v err=%v", incomplete, err)
	}
	var got []string
	for _, r := range res {
		got = append(got, fmt.Sprint(r.Verbs, r.APIGroups, r.Resources))
	}
	want := []string{
		"[get list watch] [] [pods pods/log]",
		"[get] [] [secrets]",
		"[*] [apps] [deployments */scale]",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("resource rules = %q, want %q", got, want)
	}
	if len(nonRes) != 1 || fmt.Sprint(nonRes[0].NonResourceURLs) != "[/healthz /healthz/*]" {
		t.Fatalf("non-resource rules = %+v", nonRes)
	}

	// Outside team-a only the cluster-wide rules apply.
	res, _, _, _ = z.RulesFor(context.Background(), alice, "team-b")
	if len(res) != 1 {
		t.Fatalf("rules in team-b = %+v, want only pod-reader's", res)
	}
}

func TestRulesForMissingRole(t *testing.T) {
	z := New(testPolicy())
	res, _, incomplete, err := z.RulesFor(context.Background(), robot, "ci")
	if err == nil || err.Error() != `role.rbac.authorization.k8s.io "missing-role" not found` {
		t.Fatalf("err = %v, want the missing Role named", err)
	}
	if incomplete {
		t.Fatal("incomplete = true; upstream's RBAC reports a missing role only as an evaluation error")
	}
	if len(res) != 1 || res[0].ResourceNames[0] != "app-config" {
		t.Fatalf("rules = %+v, want the one-config rule still listed", res)
	}

	_, err = RulesFor(context.Background(), testPolicy(), bob, "")
	if err == nil {
		t.Fatal("bob's dangling ClusterRoleBinding: want an error")
	}
}

func TestIsServiceAccountUsername(t *testing.T) {
	tests := []struct {
		user, ns, name string
		want           bool
	}{
		{"system:serviceaccount:ci:robot", "ci", "robot", true},
		{"system:serviceaccount:ci:robot", "c", "i:robot", false},
		{"system:serviceaccount:ci:robot2", "ci", "robot", false},
		{"system:serviceaccount:cix:robot", "ci", "robot", false},
		{"robot", "ci", "robot", false},
	}
	for _, tt := range tests {
		if got := isServiceAccountUsername(tt.user, tt.ns, tt.name); got != tt.want {
			t.Errorf("isServiceAccountUsername(%q, %q, %q) = %v, want %v", tt.user, tt.ns, tt.name, got, tt.want)
		}
	}
}

// BenchmarkRBACAuthorize measures one allowed request of a user with a few
// bindings behind 70 ClusterRoleBindings that do not apply (about the
// size of upstream's bootstrap policy), and one denied request that walks
// them all.
func BenchmarkRBACAuthorize(b *testing.B) {
	src := testPolicy()
	for i := range 70 {
		name := fmt.Sprintf("system:controller:c%d", i)
		src.ClusterRoles = append(src.ClusterRoles, clusterRole(name, rule(list("get"), list(""), list("pods"))))
		src.ClusterRoleBindings = append([]*api.ClusterRoleBinding{clusterBinding(name, name, saSubject("kube-system", fmt.Sprint("c", i)))}, src.ClusterRoleBindings...)
	}
	z := New(src)
	ctx := context.Background()
	allowed := resourceAttrs(alice, "create", "apps", "deployments", "", "team-a", "")
	denied := resourceAttrs(alice, "create", "", "nodes", "", "", "")
	b.Run("allowed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if d, _, _ := z.Authorize(ctx, allowed); d != authorizer.DecisionAllow {
				b.Fatal("not allowed")
			}
		}
	})
	b.Run("no-opinion", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if d, _, _ := z.Authorize(ctx, denied); d != authorizer.DecisionNoOpinion {
				b.Fatal("allowed")
			}
		}
	})
}
