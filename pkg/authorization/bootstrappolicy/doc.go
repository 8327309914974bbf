// Package bootstrappolicy is the RBAC policy every kplane cluster starts
// with: the ClusterRoles, ClusterRoleBindings, Roles and RoleBindings that
// give each built-in identity exactly what upstream gives it, so that a
// cluster with --authorization-mode=Node,RBAC works from its first second.
//
// It mirrors upstream's plugin/pkg/auth/authorizer/rbac/bootstrappolicy:
//
//   - policy.go: the user-facing roles (cluster-admin, admin, edit, view and
//     the system:aggregate-to-* roles they aggregate), discovery and
//     health-check roles, and the roles of the components (scheduler,
//     controller-manager, kube-proxy, kubelet API admin…), with their
//     bindings;
//   - controller_policy.go: one system:controller:<name> ClusterRole per
//     controller, bound to the kube-system ServiceAccount <name> that the
//     controller-manager uses under --use-service-account-credentials;
//   - namespace_policy.go: the Roles and RoleBindings in kube-system and
//     kube-public (leader locking, the extension-apiserver-authentication
//     ConfigMap, bootstrap tokens);
//   - addons.go: what upstream's add-on manifests install beside the
//     cluster (CoreDNS, metrics-server, the cloud-controller-manager) and
//     kubeadm's binding of its admin group;
//   - kplane.go: rights only kplane's own features need (the cluster clock
//     ConfigMap), kept in separate kplane: roles so that no upstream role is
//     ever wider than upstream's.
//
// Every object carries the label kubernetes.io/bootstrapping=rbac-defaults
// and the annotation rbac.authorization.kubernetes.io/autoupdate=true. The
// apiserver reconciles the policy at each start (pkg/apiserver/
// bootstrap_rbac.go): it creates what is missing and adds back rules and
// subjects someone removed, unless the object's autoupdate annotation says
// "false" — the way an administrator tells the apiserver "I changed this on
// purpose".
package bootstrappolicy
