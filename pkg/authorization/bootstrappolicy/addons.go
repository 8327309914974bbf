package bootstrappolicy

import (
	"kplane/pkg/api"
	"kplane/pkg/pki"
)

// The ServiceAccounts kplane's add-on components run as (their user names
// are in package auth).
const (
	CoreDNSServiceAccount                = "coredns"
	MetricsServerServiceAccount          = "metrics-server"
	CloudControllerManagerServiceAccount = "cloud-controller-manager"
)

// addonClusterRoles are the ClusterRoles of the add-ons' upstream
// manifests: kubeadm's CoreDNS, metrics-server's components.yaml and
// k8s.io/cloud-provider's sample cloud-controller-manager role.
func addonClusterRoles() []api.ClusterRole {
	return []api.ClusterRole{
		clusterRole("system:coredns", nil,
			rule("list", "watch").groups(legacyGroup).resources("endpoints", "services", "pods", "namespaces").build(),
			rule("list", "watch").groups(discoveryGroup).resources("endpointslices").build()),
		clusterRole("system:metrics-server", nil,
			rule("get").groups(legacyGroup).resources("nodes/metrics").build(),
			rule("get", "list", "watch").groups(legacyGroup).resources("pods", "nodes").build()),
		// Reading resource metrics (kubectl top) is part of view, edit and
		// admin.
		clusterRole("system:aggregated-metrics-reader",
			map[string]string{AggregateToView: "true", AggregateToEdit: "true", AggregateToAdmin: "true"},
			rule("get", "list", "watch").groups(metricsGroup).resources("pods", "nodes").build()),
		clusterRole("system:cloud-controller-manager", nil,
			rule("create", "patch", "update").groups(legacyGroup).resources("events").build(),
			rule("*").groups(legacyGroup).resources("nodes").build(),
			rule("patch").groups(legacyGroup).resources("nodes/status").build(),
			rule("list", "patch", "update", "watch").groups(legacyGroup).resources("services").build(),
			rule("list", "patch", "update", "watch").groups(legacyGroup).resources("services/status").build(),
			rule("create").groups(legacyGroup).resources("serviceaccounts").build(),
			rule("get", "list", "update", "watch").groups(legacyGroup).resources("persistentvolumes").build(),
			rule("create", "get", "list", "watch", "update").groups(legacyGroup).resources("endpoints").build(),
			rule("get", "create", "update").groups(coordinationGroup).resources("leases").build()),
	}
}

// addonClusterRoleBindings bind the add-on roles to the add-ons'
// ServiceAccounts, and kubeadm's admin group to cluster-admin.
func addonClusterRoleBindings() []api.ClusterRoleBinding {
	return []api.ClusterRoleBinding{
		clusterRoleBinding("system:coredns", serviceAccountSubject("kube-system", CoreDNSServiceAccount)),
		clusterRoleBinding("system:metrics-server", serviceAccountSubject("kube-system", MetricsServerServiceAccount)),
		// metrics-server authenticates and authorizes its own callers by
		// asking the apiserver.
		namedClusterRoleBinding("metrics-server:system:auth-delegator", "system:auth-delegator",
			serviceAccountSubject("kube-system", MetricsServerServiceAccount)),
		clusterRoleBinding("system:cloud-controller-manager", serviceAccountSubject("kube-system", CloudControllerManagerServiceAccount)),
		// kubeadm (1.29+) gives its admin group cluster-admin through RBAC
		// rather than system:masters; the apiserver's client certificate
		// towards kubelets and aggregated servers carries that group.
		namedClusterRoleBinding(pki.KubeletClientOrganization, "cluster-admin", groupSubject(pki.KubeletClientOrganization)),
	}
}

// addonRoleBindings let metrics-server read the
// extension-apiserver-authentication ConfigMap, as its manifest does.
func addonRoleBindings() []api.RoleBinding {
	return []api.RoleBinding{
		roleBinding("kube-system", "metrics-server-auth-reader", "Role", ExtensionAPIServerAuthenticationReader,
			serviceAccountSubject("kube-system", MetricsServerServiceAccount)),
	}
}
