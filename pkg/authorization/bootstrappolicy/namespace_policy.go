package bootstrappolicy

import (
	"kplane/pkg/api"
	"kplane/pkg/auth"
)

// ExtensionAPIServerAuthenticationReader is the kube-system Role that lets
// delegating servers read the extension-apiserver-authentication
// ConfigMap (the client CA and the front-proxy's request-header settings).
const ExtensionAPIServerAuthenticationReader = "extension-apiserver-authentication-reader"

// Roles returns the namespaced Roles of upstream's namespace_policy.go.
func Roles() []api.Role {
	roles := []api.Role{
		role("kube-system", ExtensionAPIServerAuthenticationReader,
			rule("get", "list", "watch").groups(legacyGroup).resources("configmaps").names("extension-apiserver-authentication").build()),
		// Leader election in kube-system: the Leases the components lock
		// with and the LeaseCandidates of coordinated leader election.
		role("kube-system", "system::leader-locking-kube-controller-manager", leaderLockingRules()...),
		role("kube-system", "system::leader-locking-kube-scheduler", leaderLockingRules()...),
		// The bootstrap signer reads bootstrap-token Secrets in kube-system
		// and signs kube-public's cluster-info ConfigMap with them.
		role("kube-system", ControllerRolePrefix+"bootstrap-signer",
			rule("get", "list", "watch").groups(legacyGroup).resources("secrets").build()),
		role("kube-system", ControllerRolePrefix+"cloud-provider",
			rule("create", "get", "list", "watch").groups(legacyGroup).resources("configmaps").build()),
		role("kube-system", ControllerRolePrefix+"token-cleaner",
			rule("delete", "get", "list", "watch").groups(legacyGroup).resources("secrets").build(),
			eventsRule()),
		role("kube-public", ControllerRolePrefix+"bootstrap-signer",
			rule("get", "list", "watch").groups(legacyGroup).resources("configmaps").build(),
			rule("update").groups(legacyGroup).resources("configmaps").names("cluster-info").build(),
			eventsRule()),
	}
	roles = append(roles, kubeadmRoles()...)
	return append(roles, kplaneRoles()...)
}

// RoleBindings returns the namespaced RoleBindings of upstream's
// namespace_policy.go, the add-ons' and kplane's.
func RoleBindings() []api.RoleBinding {
	bindings := []api.RoleBinding{
		roleBinding("kube-system", "system::extension-apiserver-authentication-reader", "Role", ExtensionAPIServerAuthenticationReader,
			userSubject(auth.ControllerManagerUserName), userSubject(auth.SchedulerUserName)),
		roleBinding("kube-system", "system::leader-locking-kube-controller-manager", "Role", "system::leader-locking-kube-controller-manager",
			userSubject(auth.ControllerManagerUserName), serviceAccountSubject("kube-system", "kube-controller-manager"),
			serviceAccountSubject("kube-system", "leader-election-controller")),
		roleBinding("kube-system", "system::leader-locking-kube-scheduler", "Role", "system::leader-locking-kube-scheduler",
			userSubject(auth.SchedulerUserName), serviceAccountSubject("kube-system", "kube-scheduler")),
		roleBinding("kube-system", ControllerRolePrefix+"bootstrap-signer", "Role", ControllerRolePrefix+"bootstrap-signer",
			serviceAccountSubject("kube-system", "bootstrap-signer")),
		roleBinding("kube-system", ControllerRolePrefix+"cloud-provider", "Role", ControllerRolePrefix+"cloud-provider",
			serviceAccountSubject("kube-system", "cloud-provider")),
		roleBinding("kube-system", ControllerRolePrefix+"token-cleaner", "Role", ControllerRolePrefix+"token-cleaner",
			serviceAccountSubject("kube-system", "token-cleaner")),
		roleBinding("kube-public", ControllerRolePrefix+"bootstrap-signer", "Role", ControllerRolePrefix+"bootstrap-signer",
			serviceAccountSubject("kube-system", "bootstrap-signer")),
	}
	bindings = append(bindings, addonRoleBindings()...)
	bindings = append(bindings, kubeadmRoleBindings()...)
	return append(bindings, kplaneRoleBindings()...)
}

// leaderLockingRules are the rules of both system::leader-locking-* Roles.
func leaderLockingRules() []api.PolicyRule {
	return []api.PolicyRule{
		rule("watch", "get", "list", "create", "update").groups(coordinationGroup).resources("leases").build(),
		rule("watch", "get", "list", "create", "update").groups(coordinationGroup).resources("leasecandidates").build(),
	}
}
