// Package auth answers "who is making this request?" for the apiserver,
// with kube-apiserver's authenticator chain (Chain, used by Middleware):
//
//   - a client certificate signed by the cluster CA (X509Authenticator):
//     the common name is the user, the organizations its groups;
//   - a bearer token from the static token file (TokenFile), the way
//     kube-apiserver's --token-auth-file works;
//   - a ServiceAccount token, bound or legacy, which pkg/serviceaccount
//     checks (a TokenAuthenticator the apiserver plugs in).
//
// Every component has its own identity (the controller-manager, the
// scheduler, kube-proxy, each node as system:node:<name>) and the user gets
// an admin identity in the system:masters group. The static tokens live in
// DATA_DIR/tokens.csv, a file in upstream's format that a real kube-apiserver
// would also accept. Every user the chain lets through is in
// system:authenticated; a request without credentials may reach the public
// paths as system:anonymous. Authentication only names the caller; deciding
// what that caller may do is authorization, a later step in the handler
// chain.
package auth

import "slices"

// Names of the built-in identities, spelled as upstream's default RBAC
// bindings expect them (system:kube-scheduler is what the
// system:kube-scheduler ClusterRoleBinding names, and so on).
const (
	// AdminUserName is the cluster administrator kubeadm writes into
	// admin.conf; its power comes from the system:masters group.
	AdminUserName             = "kubernetes-admin"
	ControllerManagerUserName = "system:kube-controller-manager"
	SchedulerUserName         = "system:kube-scheduler"
	KubeProxyUserName         = "system:kube-proxy"
	// DNSUserName is the cluster DNS, which upstream runs as CoreDNS pods
	// under the kube-system/coredns ServiceAccount.
	DNSUserName = "system:serviceaccount:kube-system:coredns"
	// CloudControllerManagerUserName is the cloud-controller-manager, which
	// upstream usually runs under the kube-system/cloud-controller-manager
	// ServiceAccount.
	CloudControllerManagerUserName = "system:serviceaccount:kube-system:cloud-controller-manager"
	// MetricsServerUserName is metrics-server, which upstream runs under
	// the kube-system/metrics-server ServiceAccount. Kubelets let it read
	// their resource metrics (upstream's nodes/metrics permission).
	MetricsServerUserName = "system:serviceaccount:kube-system:metrics-server"
	// SimulatedNetworkUserName is kplane's simulated pod network
	// (kubelet --network-kubeconfig), which finds the pod behind an
	// address on any node; RBAC's kplane:simulated-network role lets it
	// read pods and nothing else.
	SimulatedNetworkUserName = "system:kplane:simulated-network"
	// NodeUserNamePrefix starts every kubelet's user name:
	// system:node:<nodeName>. The Node authorizer and NodeRestriction
	// admission read the node name back out of it.
	NodeUserNamePrefix = "system:node:"
	// AnonymousUserName is who a request without credentials is, where
	// anonymous requests are allowed at all.
	AnonymousUserName = "system:anonymous"
)

// Well-known groups.
const (
	// MastersGroup is the superuser group: upstream's authorizer allows its
	// members everything, before RBAC is even consulted.
	MastersGroup = "system:masters"
	// NodesGroup holds every kubelet identity.
	NodesGroup = "system:nodes"
	// AuthenticatedGroup is added to every user that presented valid
	// credentials, as upstream's authenticator chain does.
	AuthenticatedGroup = "system:authenticated"
	// UnauthenticatedGroup is the group of the anonymous user.
	UnauthenticatedGroup = "system:unauthenticated"
)

// User is an authenticated identity: a name, the groups it belongs to, and
// what else the authenticator knows of it. It corresponds to upstream's
// user.Info.
type User struct {
	Name   string
	UID    string
	Groups []string
	// Extra holds what an authenticator adds beyond name and groups: a
	// ServiceAccount token's pod (authentication.kubernetes.io/pod-name),
	// or what an impersonator asked for with --as-user-extra.
	Extra map[string][]string
}

// InGroup reports whether u is a member of group.
func (u User) InGroup(group string) bool { return slices.Contains(u.Groups, group) }

// AdminUser is the cluster administrator: kubernetes-admin in system:masters.
func AdminUser() User { return User{Name: AdminUserName, Groups: []string{MastersGroup}} }

// ControllerManagerUser is the identity of kube-controller-manager.
func ControllerManagerUser() User { return User{Name: ControllerManagerUserName} }

// SchedulerUser is the identity of kube-scheduler.
func SchedulerUser() User { return User{Name: SchedulerUserName} }

// KubeProxyUser is the identity of kube-proxy.
func KubeProxyUser() User { return User{Name: KubeProxyUserName} }

// DNSUser is the identity of the cluster DNS: ServiceAccount
// kube-system/coredns (DNSUserName).
func DNSUser() User { return ServiceAccountUser("kube-system", "coredns") }

// CloudControllerManagerUser is the identity of the cloud-controller-manager:
// ServiceAccount kube-system/cloud-controller-manager
// (CloudControllerManagerUserName).
func CloudControllerManagerUser() User {
	return ServiceAccountUser("kube-system", "cloud-controller-manager")
}

// MetricsServerUser is the identity of metrics-server: ServiceAccount
// kube-system/metrics-server (MetricsServerUserName).
func MetricsServerUser() User { return ServiceAccountUser("kube-system", "metrics-server") }

// NodeUser is the identity of the kubelet on the named node:
// system:node:<nodeName> in group system:nodes.
func NodeUser(nodeName string) User {
	return User{Name: NodeUserNamePrefix + nodeName, Groups: []string{NodesGroup}}
}

// AnonymousUser is who a request without credentials is treated as on the
// paths that allow it.
func AnonymousUser() User {
	return User{Name: AnonymousUserName, Groups: []string{UnauthenticatedGroup}}
}

// BuiltinUsers are the identities EnsureTokens gives a token at first start.
// Nodes are not among them: they join later, through EnsureUser.
func BuiltinUsers() []User {
	return []User{AdminUser(), ControllerManagerUser(), SchedulerUser(), KubeProxyUser()}
}
