package bootstrappolicy

import (
	"kplane/pkg/api"
	"kplane/pkg/auth"
)

// Rights only kplane's own features need live in roles named kplane:…,
// bound beside the upstream roles, so that every upstream role stays
// exactly upstream's.
const (
	// ClusterClockReaderRole reads ConfigMap kube-system/kplane-clock, the
	// cluster clock every component follows (`ctl time advance` moves it).
	ClusterClockReaderRole = "kplane:cluster-clock-reader"
	// DebugAPIReviewerRole lets a component check the bearer tokens of
	// callers of its debug API (`ctl trace`, `ctl why`) with TokenReviews,
	// the way delegating servers do; upstream's kube-proxy and CoreDNS
	// serve no authenticated API and so their roles lack it.
	DebugAPIReviewerRole = "kplane:debug-api-reviewer"
	// HostPathProvisionerRole is what kplane's hostpath provisioner (a
	// controller of kplane's controller-manager with no upstream
	// counterpart; kind runs local-path-provisioner instead) needs beyond
	// upstream's system:persistent-volume-provisioner, which it is bound to
	// as well: updating its volumes to take its finalizer off once their
	// directory is gone (local-path-provisioner's role may update volumes
	// too).
	HostPathProvisionerRole = "kplane:hostpath-provisioner"
	// HostPathProvisionerServiceAccount is the provisioner's kube-system
	// ServiceAccount (its controller Descriptor's).
	HostPathProvisionerServiceAccount = "hostpath-provisioner"
	// CloudControllerManagerRole is what kplane's cloud-controller-manager
	// needs beyond the cloud-provider's system:cloud-controller-manager:
	// its cloud-node controller updates a Node's status (upstream's
	// patches it).
	CloudControllerManagerRole = "kplane:cloud-controller-manager"
	// SimulatedNetworkRole is what the simulated runtime's network
	// (kubelet --network-kubeconfig, user auth.SimulatedNetworkUserName)
	// reads: the pod behind an address, on any node (GetPod, and PodByIP's
	// cluster-wide list by status.podIP in pkg/kubelet/shellcluster.go),
	// and the NetworkPolicies and namespace labels that judge a connection
	// (what a network plugin such as kindnet or Calico reads with its own
	// role). Services, ConfigMaps and Secrets the shell reads through the
	// kubelet's own client, under the Node authorizer.
	SimulatedNetworkRole = "kplane:simulated-network"
	// KubeDNSServiceRole lets kplane's DNS create the kube-dns Service in
	// kube-system when it is missing, a job kubeadm does as the
	// administrator when it installs CoreDNS.
	KubeDNSServiceRole = "kplane:kube-dns-service"
)

// kplaneClusterRoles are kplane's cluster-wide additions.
func kplaneClusterRoles() []api.ClusterRole {
	return []api.ClusterRole{
		clusterRole(DebugAPIReviewerRole, nil,
			rule("create").groups(authenticationGroup).resources("tokenreviews").build()),
		clusterRole(HostPathProvisionerRole, nil,
			rule("update", "patch").groups(legacyGroup).resources("persistentvolumes").build()),
		clusterRole(CloudControllerManagerRole, nil,
			rule("update").groups(legacyGroup).resources("nodes/status").build()),
		clusterRole(SimulatedNetworkRole, nil,
			rule("get", "list", "watch").groups(legacyGroup).resources("pods", "namespaces").build(),
			rule("get", "list", "watch").groups(networkingGroup).resources("networkpolicies").build()),
	}
}

// kplaneClusterRoleBindings give the debug-API reviewer role to the
// components whose upstream role does not already allow TokenReviews, and
// the kplane: roles to the identities they are made for.
func kplaneClusterRoleBindings() []api.ClusterRoleBinding {
	return []api.ClusterRoleBinding{
		clusterRoleBinding(DebugAPIReviewerRole,
			userSubject(auth.KubeProxyUserName),
			serviceAccountSubject("kube-system", CoreDNSServiceAccount),
			serviceAccountSubject("kube-system", CloudControllerManagerServiceAccount)),
		namedClusterRoleBinding(HostPathProvisionerRole+":system:persistent-volume-provisioner", "system:persistent-volume-provisioner",
			serviceAccountSubject(ControllerNamespace, HostPathProvisionerServiceAccount)),
		clusterRoleBinding(HostPathProvisionerRole, serviceAccountSubject(ControllerNamespace, HostPathProvisionerServiceAccount)),
		clusterRoleBinding(CloudControllerManagerRole, serviceAccountSubject("kube-system", CloudControllerManagerServiceAccount)),
		clusterRoleBinding(SimulatedNetworkRole, userSubject(auth.SimulatedNetworkUserName)),
	}
}

// kplaneRoles are kplane's namespaced additions.
func kplaneRoles() []api.Role {
	return []api.Role{
		// The informers that follow the clock list and watch with
		// fieldSelector=metadata.name=kplane-clock, which RBAC checks
		// against resourceNames as it does a get.
		role(api.ClusterClockNamespace, ClusterClockReaderRole,
			rule("get", "list", "watch").groups(legacyGroup).resources("configmaps").names(api.ClusterClockName).build()),
		// A create names no object when it is authorized, so it cannot be
		// limited to kube-dns; the Role keeps it to kube-system.
		role("kube-system", KubeDNSServiceRole,
			rule("get").groups(legacyGroup).resources("services").names("kube-dns").build(),
			rule("create").groups(legacyGroup).resources("services").build()),
	}
}

// kplaneRoleBindings let every authenticated identity read the cluster
// clock: like /version, it is no secret, and every component (kubelets,
// scheduler, controller-managers, add-ons) follows it.
func kplaneRoleBindings() []api.RoleBinding {
	return []api.RoleBinding{
		roleBinding(api.ClusterClockNamespace, ClusterClockReaderRole, "Role", ClusterClockReaderRole,
			groupSubject(auth.AuthenticatedGroup)),
		roleBinding("kube-system", KubeDNSServiceRole, "Role", KubeDNSServiceRole,
			serviceAccountSubject("kube-system", CoreDNSServiceAccount)),
	}
}
