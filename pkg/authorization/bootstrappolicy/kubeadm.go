package bootstrappolicy

import (
	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/bootstraptoken"
)

// The objects `kubeadm init` adds for node joining (its phases
// bootstrap-token and cluster-info), with kubeadm's names: who may ask for
// a kubelet certificate, whose requests the csrapproving controller
// approves, and who may read cluster-info before authenticating.
const (
	// KubeletBootstrapBinding lets the default node tokens create CSRs
	// (system:node-bootstrapper).
	KubeletBootstrapBinding = "kubeadm:kubelet-bootstrap"
	// NodeAutoApproveBootstrapBinding lets them have a new node's client
	// CSR approved automatically (…:nodeclient).
	NodeAutoApproveBootstrapBinding = "kubeadm:node-autoapprove-bootstrap"
	// NodeAutoApproveRotationBinding lets every node have the renewal of
	// its own client certificate approved automatically (…:selfnodeclient).
	NodeAutoApproveRotationBinding = "kubeadm:node-autoapprove-certificate-rotation"
	// ClusterInfoReaderRole lets system:anonymous get kube-public's
	// cluster-info, the one object a joining node reads before it trusts
	// the server or has credentials.
	ClusterInfoReaderRole = "kubeadm:bootstrap-signer-clusterinfo"
)

// kubeadmClusterRoleBindings bind the bootstrap tokens' group and the
// nodes to the CSR roles, as kubeadm's phases/bootstraptoken/node does.
func kubeadmClusterRoleBindings() []api.ClusterRoleBinding {
	return []api.ClusterRoleBinding{
		namedClusterRoleBinding(KubeletBootstrapBinding, "system:node-bootstrapper",
			groupSubject(bootstraptoken.DefaultNodeGroup)),
		namedClusterRoleBinding(NodeAutoApproveBootstrapBinding, "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
			groupSubject(bootstraptoken.DefaultNodeGroup)),
		namedClusterRoleBinding(NodeAutoApproveRotationBinding, "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
			groupSubject(auth.NodesGroup)),
	}
}

// kubeadmRoles is the kube-public Role reading cluster-info.
func kubeadmRoles() []api.Role {
	return []api.Role{
		role(bootstraptoken.ClusterInfoNamespace, ClusterInfoReaderRole,
			rule("get").groups(legacyGroup).resources("configmaps").names(bootstraptoken.ClusterInfoName).build()),
	}
}

// kubeadmRoleBindings give that Role to system:anonymous.
func kubeadmRoleBindings() []api.RoleBinding {
	return []api.RoleBinding{
		roleBinding(bootstraptoken.ClusterInfoNamespace, ClusterInfoReaderRole, "Role", ClusterInfoReaderRole,
			userSubject(auth.AnonymousUserName)),
	}
}
