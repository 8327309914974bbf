// This file holds the rules of the system:node ClusterRole, which the
// Node authorizer (pkg/authorization/node) applies to every kubelet for
// the requests it does not decide from the kubelet's pods itself.
// Upstream keeps them in plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go
// (NodeRules).

package bootstrappolicy

import "kplane/pkg/api"

// NodeRules returns the rules of upstream's system:node ClusterRole: what
// any kubelet may do. The Node authorizer narrows the object-specific
// ones (secrets, configmaps, volumes, tokens, its own Node and pods,
// leases) to what the kubelet's pods use, and the NodeRestriction
// admission plugin narrows the writes to the kubelet's own objects.
func NodeRules() []api.PolicyRule {
	rule := func(verbs []string, group string, resources ...string) api.PolicyRule {
		return api.PolicyRule{Verbs: verbs, APIGroups: []string{group}, Resources: resources}
	}
	read := []string{"get", "list", "watch"}
	return []api.PolicyRule{
		// Delegated authentication and authorization of the kubelet's own
		// API; these creates change nothing.
		rule([]string{"create"}, "authentication.k8s.io", "tokenreviews"),
		rule([]string{"create"}, "authorization.k8s.io", "subjectaccessreviews", "localsubjectaccessreviews"),

		// Services, for the environment variables of every container.
		rule(read, "", "services"),

		// Registering the Node and reporting its status.
		rule([]string{"create", "get", "list", "watch"}, "", "nodes"),
		rule([]string{"update", "patch"}, "", "nodes/status"),
		rule([]string{"update", "patch"}, "", "nodes"),

		// Events about the node and its pods.
		rule([]string{"create", "update", "patch"}, "", "events"),

		// Pods: reading, mirror pods of static pods, status, evictions.
		rule(read, "", "pods"),
		rule([]string{"create", "delete"}, "", "pods"),
		rule([]string{"update", "patch"}, "", "pods/status"),
		rule([]string{"create"}, "", "pods/eviction"),

		// What pods reference: secrets, configmaps, volumes.
		rule(read, "", "secrets", "configmaps"),
		rule([]string{"get"}, "", "persistentvolumeclaims", "persistentvolumes"),
		rule([]string{"get"}, "", "endpoints"),

		// Rotating the kubelet's own client certificate.
		rule([]string{"create", "get", "list", "watch"}, "certificates.k8s.io", "certificatesigningrequests"),

		// The node's heartbeat Lease.
		rule([]string{"get", "create", "update", "patch", "delete"}, "coordination.k8s.io", "leases"),

		// CSI.
		rule([]string{"get"}, "storage.k8s.io", "volumeattachments"),

		// Tokens for the ServiceAccounts of the node's pods.
		rule([]string{"create"}, "", "serviceaccounts/token"),

		// Resizing a volume reports through the claim's status.
		rule([]string{"get", "update", "patch"}, "", "persistentvolumeclaims/status"),

		// CSI drivers and the node's CSINode.
		rule(read, "storage.k8s.io", "csidrivers"),
		rule([]string{"get", "create", "update", "patch", "delete"}, "storage.k8s.io", "csinodes"),

		// RuntimeClasses.
		rule(read, "node.k8s.io", "runtimeclasses"),

		// Dynamic resource allocation: the claims of the node's pods and
		// the node's ResourceSlices.
		rule([]string{"get"}, "resource.k8s.io", "resourceclaims"),
		rule(read, "resource.k8s.io", "resourceslices"),
		rule([]string{"deletecollection"}, "resource.k8s.io", "resourceslices"),
	}
}
