package bootstrappolicy

import (
	"slices"
	"strings"
	"testing"

	"kplane/pkg/controllermanager"
)

// Every object of the policy carries the bootstrapping label and the
// autoupdate annotation, and no two objects of a kind share a name.
func TestPolicyMetadata(t *testing.T) {
	seen := map[string]bool{}
	check := func(kind, namespace, name string, labels, annotations map[string]string) {
		t.Helper()
		key := kind + " " + namespace + "/" + name
		if seen[key] {
			t.Errorf("%s is in the policy twice", key)
		}
		seen[key] = true
		if labels[BootstrappingLabel] != BootstrappingValue {
			t.Errorf("%s lacks label %s=%s", key, BootstrappingLabel, BootstrappingValue)
		}
		if annotations[AutoUpdateAnnotation] != "true" {
			t.Errorf("%s lacks annotation %s=true", key, AutoUpdateAnnotation)
		}
	}
	for _, r := range ClusterRoles() {
		check("ClusterRole", "", r.Name, r.Labels, r.Annotations)
		if r.Kind != "ClusterRole" || r.APIVersion != "rbac.authorization.k8s.io/v1" {
			t.Errorf("ClusterRole %s has type %s %s", r.Name, r.APIVersion, r.Kind)
		}
	}
	for _, b := range ClusterRoleBindings() {
		check("ClusterRoleBinding", "", b.Name, b.Labels, b.Annotations)
	}
	for _, r := range Roles() {
		check("Role", r.Namespace, r.Name, r.Labels, r.Annotations)
	}
	for _, b := range RoleBindings() {
		check("RoleBinding", b.Namespace, b.Name, b.Labels, b.Annotations)
	}
}

// Every binding names a role the policy defines: a ClusterRoleBinding a
// ClusterRole, a RoleBinding a Role of its namespace or a ClusterRole.
func TestBindingsReferToPolicyRoles(t *testing.T) {
	clusterRoles := map[string]bool{}
	for _, r := range ClusterRoles() {
		clusterRoles[r.Name] = true
	}
	roles := map[string]bool{}
	for _, r := range Roles() {
		roles[r.Namespace+"/"+r.Name] = true
	}
	for _, b := range ClusterRoleBindings() {
		if b.RoleRef.Kind != "ClusterRole" || !clusterRoles[b.RoleRef.Name] {
			t.Errorf("ClusterRoleBinding %s refers to %s %q, which the policy lacks", b.Name, b.RoleRef.Kind, b.RoleRef.Name)
		}
		if len(b.Subjects) == 0 && b.Name != SystemNodeRoleName {
			t.Errorf("ClusterRoleBinding %s has no subjects", b.Name)
		}
	}
	for _, b := range RoleBindings() {
		ok := (b.RoleRef.Kind == "Role" && roles[b.Namespace+"/"+b.RoleRef.Name]) ||
			(b.RoleRef.Kind == "ClusterRole" && clusterRoles[b.RoleRef.Name])
		if !ok {
			t.Errorf("RoleBinding %s/%s refers to %s %q, which the policy lacks", b.Namespace, b.Name, b.RoleRef.Kind, b.RoleRef.Name)
		}
	}
}

// Each controller kplane's controller-manager runs has a ServiceAccount
// whose system:controller: role is bound to it, so that under
// --use-service-account-credentials it can do its job.
func TestEveryControllerServiceAccountIsBound(t *testing.T) {
	bound := map[string][]string{} // ServiceAccount → ClusterRoles
	for _, b := range ClusterRoleBindings() {
		for _, s := range b.Subjects {
			if s.Kind == "ServiceAccount" && s.Namespace == ControllerNamespace {
				bound[s.Name] = append(bound[s.Name], b.RoleRef.Name)
			}
		}
	}
	for _, d := range controllermanager.Controllers() {
		if d.ServiceAccount == "" {
			// Upstream runs the serviceaccount-token controller with the
			// manager's own credentials: it makes the tokens the others
			// would need first. Every other controller has an account.
			if d.Name != "serviceaccount-token" {
				t.Errorf("controller %s has no ServiceAccount", d.Name)
			}
			continue
		}
		want := []string{ControllerRolePrefix + d.ServiceAccount}
		if d.ServiceAccount == "bootstrap-signer" || d.ServiceAccount == "token-cleaner" {
			// Upstream gives these two namespaced Roles only (in
			// kube-system, and kube-public for the signer), no ClusterRole.
			if !namespacedBound(d.ServiceAccount) {
				t.Errorf("controller %s: kube-system/%s has no RoleBinding", d.Name, d.ServiceAccount)
			}
			continue
		}
		if d.ServiceAccount == HostPathProvisionerServiceAccount {
			want = []string{"system:persistent-volume-provisioner", HostPathProvisionerRole}
		}
		if got := bound[d.ServiceAccount]; !slices.Equal(got, want) {
			t.Errorf("controller %s: kube-system/%s is bound to %v, want %v", d.Name, d.ServiceAccount, got, want)
		}
	}
}

// admin, edit and view gather their rules from the aggregate-to roles, and
// view's rules flow into edit and edit's into admin.
func TestAggregatedRoles(t *testing.T) {
	byName := map[string]int{}
	roles := ClusterRoles()
	for i, r := range roles {
		byName[r.Name] = i
	}
	for _, tc := range []struct{ role, selects, carrier string }{
		{"admin", AggregateToAdmin, "system:aggregate-to-admin"},
		{"edit", AggregateToEdit, "system:aggregate-to-edit"},
		{"view", AggregateToView, "system:aggregate-to-view"},
	} {
		r := roles[byName[tc.role]]
		if r.AggregationRule == nil || len(r.AggregationRule.ClusterRoleSelectors) != 1 ||
			r.AggregationRule.ClusterRoleSelectors[0].MatchLabels[tc.selects] != "true" {
			t.Errorf("%s aggregationRule = %+v, want matchLabels %s=true", tc.role, r.AggregationRule, tc.selects)
		}
		if len(r.Rules) != 0 {
			t.Errorf("%s has rules of its own; the aggregation controller fills them", tc.role)
		}
		if roles[byName[tc.carrier]].Labels[tc.selects] != "true" {
			t.Errorf("%s is not labelled %s=true", tc.carrier, tc.selects)
		}
	}
	if roles[byName["view"]].Labels[AggregateToEdit] != "true" || roles[byName["edit"]].Labels[AggregateToAdmin] != "true" {
		t.Error("view must aggregate into edit and edit into admin")
	}
}

// Only roles named kplane:… hold kplane-only rights; the controllers' roles
// all start with system:controller:.
func TestRoleNames(t *testing.T) {
	for _, r := range ControllerRoles() {
		if _, ok := ControllerServiceAccount(r.Name); !ok {
			t.Errorf("controller role %s lacks the %s prefix", r.Name, ControllerRolePrefix)
		}
	}
	for _, r := range kplaneClusterRoles() {
		if !strings.HasPrefix(r.Name, "kplane:") {
			t.Errorf("kplane-only role %s must be named kplane:…", r.Name)
		}
	}
	for _, r := range kplaneRoles() {
		if !strings.HasPrefix(r.Name, "kplane:") {
			t.Errorf("kplane-only role %s must be named kplane:…", r.Name)
		}
	}
}

// namespacedBound says whether some RoleBinding names the kube-system
// ServiceAccount sa.
func namespacedBound(sa string) bool {
	for _, b := range RoleBindings() {
		for _, s := range b.Subjects {
			if s.Kind == "ServiceAccount" && s.Namespace == "kube-system" && s.Name == sa {
				return true
			}
		}
	}
	return false
}
