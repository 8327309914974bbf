package bootstrappolicy

import (
	"strings"

	"kplane/pkg/api"
)

// ControllerRolePrefix starts the name of every controller's ClusterRole:
// system:controller:<ServiceAccount name>.
const ControllerRolePrefix = "system:controller:"

// ControllerNamespace holds the controllers' ServiceAccounts.
const ControllerNamespace = "kube-system"

// ControllerRoles returns one ClusterRole per kube-controller-manager
// controller, upstream's controller_policy.go without the roles of
// feature-gated alpha and beta controllers. kplane runs only some of these
// controllers; the rest are kept so that a cluster's policy reads as
// upstream's does.
func ControllerRoles() []api.ClusterRole {
	roles := make([]api.ClusterRole, 0, len(controllerRules))
	for _, c := range controllerRules {
		roles = append(roles, clusterRole(ControllerRolePrefix+c.serviceAccount, nil, c.rules...))
	}
	return roles
}

// ControllerRoleBindings binds each controller's role to its kube-system
// ServiceAccount, under the role's own name.
func ControllerRoleBindings() []api.ClusterRoleBinding {
	bindings := make([]api.ClusterRoleBinding, 0, len(controllerRules))
	for _, c := range controllerRules {
		bindings = append(bindings, clusterRoleBinding(ControllerRolePrefix+c.serviceAccount,
			serviceAccountSubject(ControllerNamespace, c.serviceAccount)))
	}
	return bindings
}

// ControllerServiceAccount returns the ServiceAccount a system:controller:
// role is bound to, and false for other names.
func ControllerServiceAccount(roleName string) (string, bool) {
	return strings.CutPrefix(roleName, ControllerRolePrefix)
}

// controllerPolicy is one controller's rights, named by the ServiceAccount
// the controller-manager gives it.
type controllerPolicy struct {
	serviceAccount string
	rules          []api.PolicyRule
}

// controllerRules lists the controllers' rights in upstream's order.
var controllerRules = []controllerPolicy{
	{"attachdetach-controller", []api.PolicyRule{
		rule("list", "watch").groups(legacyGroup).resources("persistentvolumes", "persistentvolumeclaims").build(),
		rule("get", "list", "watch").groups(legacyGroup).resources("nodes").build(),
		rule("patch", "update").groups(legacyGroup).resources("nodes/status").build(),
		rule("list", "watch").groups(legacyGroup).resources("pods").build(),
		eventsRule(),
		rule("get", "create", "delete", "list", "watch").groups(storageGroup).resources("volumeattachments").build(),
		rule("get", "watch", "list").groups(storageGroup).resources("csidrivers").build(),
		rule("get", "watch", "list").groups(storageGroup).resources("csinodes").build(),
	}},
	{"clusterrole-aggregation-controller", []api.PolicyRule{
		// It rewrites aggregated roles with any rule, so it must be able
		// to escalate.
		rule("escalate", "get", "list", "watch", "update", "patch").groups(rbacGroup).resources("clusterroles").build(),
	}},
	{"cronjob-controller", []api.PolicyRule{
		rule("get", "list", "watch", "update").groups(batchGroup).resources("cronjobs").build(),
		rule("get", "list", "watch", "create", "update", "delete", "patch").groups(batchGroup).resources("jobs").build(),
		rule("update").groups(batchGroup).resources("cronjobs/status").build(),
		rule("update").groups(batchGroup).resources("cronjobs/finalizers").build(),
		rule("list", "watch", "delete").groups(legacyGroup).resources("pods").build(),
		eventsRule(),
	}},
	{"daemon-set-controller", []api.PolicyRule{
		rule("get", "list", "watch").groups(extensionsGroup, appsGroup).resources("daemonsets").build(),
		rule("update").groups(extensionsGroup, appsGroup).resources("daemonsets/status").build(),
		rule("update").groups(extensionsGroup, appsGroup).resources("daemonsets/finalizers").build(),
		rule("list", "watch").groups(legacyGroup).resources("nodes").build(),
		rule("list", "watch", "create", "delete", "patch").groups(legacyGroup).resources("pods").build(),
		rule("create").groups(legacyGroup).resources("pods/binding").build(),
		rule("get", "list", "watch", "create", "delete", "update", "patch").groups(appsGroup).resources("controllerrevisions").build(),
		eventsRule(),
	}},
	{"deployment-controller", []api.PolicyRule{
		rule("get", "list", "watch", "update").groups(extensionsGroup, appsGroup).resources("deployments").build(),
		rule("update").groups(extensionsGroup, appsGroup).resources("deployments/status").build(),
		rule("update").groups(extensionsGroup, appsGroup).resources("deployments/finalizers").build(),
		rule("get", "list", "watch", "create", "update", "patch", "delete").groups(appsGroup, extensionsGroup).resources("replicasets").build(),
		// update is upstream's leftover (kubernetes#36897).
		rule("get", "list", "watch", "update").groups(legacyGroup).resources("pods").build(),
		eventsRule(),
	}},
	{"disruption-controller", []api.PolicyRule{
		rule("get", "list", "watch").groups(extensionsGroup, appsGroup).resources("deployments").build(),
		rule("get", "list", "watch").groups(appsGroup, extensionsGroup).resources("replicasets").build(),
		rule("get", "list", "watch").groups(legacyGroup).resources("replicationcontrollers").build(),
		rule("get", "list", "watch").groups(policyGroup).resources("poddisruptionbudgets").build(),
		rule("get", "list", "watch").groups(appsGroup).resources("statefulsets").build(),
		rule("update").groups(policyGroup).resources("poddisruptionbudgets/status").build(),
		rule("patch", "update").groups(legacyGroup).resources("pods/status").build(),
		rule("get").groups("*").resources("*/scale").build(),
		eventsRule(),
	}},
	{"endpoint-controller", []api.PolicyRule{
		rule("get", "list", "watch").groups(legacyGroup).resources("services", "pods").build(),
		rule("get", "list", "watch", "create", "update", "delete").groups(legacyGroup).resources("endpoints").build(),
		rule("create").groups(legacyGroup).resources("endpoints/restricted").build(),
		eventsRule(),
	}},
	{"endpointslice-controller", []api.PolicyRule{
		rule("get", "list", "watch").groups(legacyGroup).resources("services", "pods", "nodes").build(),
		// Slices owned by a Service with blockOwnerDeletion need the
		// right to set the Service's finalizers.
		rule("update").groups(legacyGroup).resources("services/finalizers").build(),
		rule("get", "list", "watch", "create", "update", "delete").groups(discoveryGroup).resources("endpointslices").build(),
		eventsRule(),
	}},
	{"endpointslicemirroring-controller", []api.PolicyRule{
		rule("get", "list", "watch").groups(legacyGroup).resources("services", "endpoints").build(),
		rule("update").groups(legacyGroup).resources("services/finalizers").build(),
		rule("update").groups(legacyGroup).resources("endpoints/finalizers").build(),
		rule("get", "list", "watch", "create", "update", "delete").groups(discoveryGroup).resources("endpointslices").build(),
		eventsRule(),
	}},
	{"expand-controller", []api.PolicyRule{
		rule("get", "list", "watch", "update", "patch").groups(legacyGroup).resources("persistentvolumes").build(),
		rule("update", "patch").groups(legacyGroup).resources("persistentvolumeclaims/status").build(),
		rule("get", "list", "watch").groups(legacyGroup).resources("persistentvolumeclaims").build(),
		eventsRule(),
	}},
	{"ephemeral-volume-controller", []api.PolicyRule{
		rule("get", "list", "watch").groups(legacyGroup).resources("pods").build(),
		rule("update").groups(legacyGroup).resources("pods/finalizers").build(),
		rule("get", "list", "watch", "create").groups(legacyGroup).resources("persistentvolumeclaims").build(),
		eventsRule(),
	}},
	{"generic-garbage-collector", []api.PolicyRule{
		// It lists, watches, reads and deletes dependents of any kind.
		rule("get", "list", "watch", "patch", "update", "delete").groups("*").resources("*").build(),
		eventsRule(),
	}},
	{"horizontal-pod-autoscaler", []api.PolicyRule{
		rule("get", "list", "watch").groups(autoscalingGroup).resources("horizontalpodautoscalers").build(),
		rule("update").groups(autoscalingGroup).resources("horizontalpodautoscalers/status").build(),
		rule("get", "update").groups("*").resources("*/scale").build(),
		rule("list", "watch").groups(legacyGroup).resources("pods").build(),
		rule("list", "watch").groups(metricsGroup).resources("pods").build(),
		rule("get", "list", "watch").groups(customMetricsGroup).resources("*").build(),
		rule("get", "list", "watch").groups(externalMetricsGroup).resources("*").build(),
		eventsRule(),
	}},
	{"job-controller", []api.PolicyRule{
		rule("get", "list", "watch", "update", "patch").groups(batchGroup).resources("jobs").build(),
		rule("update").groups(batchGroup).resources("jobs/status").build(),
		rule("update").groups(batchGroup).resources("jobs/finalizers").build(),
		rule("list", "watch", "create", "delete", "patch").groups(legacyGroup).resources("pods").build(),
		eventsRule(),
	}},
	{"namespace-controller", []api.PolicyRule{
		rule("get", "list", "watch", "delete").groups(legacyGroup).resources("namespaces").build(),
		rule("update").groups(legacyGroup).resources("namespaces/finalize", "namespaces/status").build(),
		// Emptying a namespace deletes whatever it holds.
		rule("get", "list", "watch", "delete", "deletecollection").groups("*").resources("*").build(),
	}},
	{"node-controller", []api.PolicyRule{
		rule("get", "list", "watch", "update", "delete", "patch").groups(legacyGroup).resources("nodes").build(),
		rule("patch", "update").groups(legacyGroup).resources("nodes/status").build(),
		// Marking pods not ready before deleting them.
		rule("patch", "update").groups(legacyGroup).resources("pods/status").build(),
		rule("list", "watch", "get", "delete").groups(legacyGroup).resources("pods").build(),
		eventsRule(),
	}},
	{"persistent-volume-binder", []api.PolicyRule{
		rule("get", "list", "watch", "update", "create", "delete").groups(legacyGroup).resources("persistentvolumes").build(),
		rule("update").groups(legacyGroup).resources("persistentvolumes/status").build(),
		rule("get", "list", "watch", "update").groups(legacyGroup).resources("persistentvolumeclaims").build(),
		rule("update").groups(legacyGroup).resources("persistentvolumeclaims/status").build(),
		rule("list", "watch", "get", "create", "delete").groups(legacyGroup).resources("pods").build(),
		rule("get", "list", "watch").groups(storageGroup).resources("storageclasses").build(),
		rule("list", "watch").groups(legacyGroup).resources("nodes").build(),
		eventsRule(),
		// The recycler watches its pod's events.
		rule("watch").groups(legacyGroup).resources("events").build(),
	}},
	{"pod-garbage-collector", []api.PolicyRule{
		rule("list", "watch", "delete").groups(legacyGroup).resources("pods").build(),
		rule("get", "list", "watch").groups(legacyGroup).resources("nodes").build(),
		rule("patch").groups(legacyGroup).resources("pods/status").build(),
	}},
	{"replicaset-controller", []api.PolicyRule{
		rule("get", "list", "watch", "update").groups(appsGroup, extensionsGroup).resources("replicasets").build(),
		rule("update").groups(appsGroup, extensionsGroup).resources("replicasets/status").build(),
		rule("update").groups(appsGroup, extensionsGroup).resources("replicasets/finalizers").build(),
		rule("list", "watch", "patch", "create", "delete").groups(legacyGroup).resources("pods").build(),
		eventsRule(),
	}},
	{"replication-controller", []api.PolicyRule{
		rule("get", "list", "watch", "update").groups(legacyGroup).resources("replicationcontrollers").build(),
		rule("update").groups(legacyGroup).resources("replicationcontrollers/status").build(),
		rule("update").groups(legacyGroup).resources("replicationcontrollers/finalizers").build(),
		rule("list", "watch", "patch", "create", "delete").groups(legacyGroup).resources("pods").build(),
		eventsRule(),
	}},
	{"resourcequota-controller", []api.PolicyRule{
		// Quota counts objects of any kind.
		rule("list", "watch").groups("*").resources("*").build(),
		rule("update").groups(legacyGroup).resources("resourcequotas/status").build(),
		eventsRule(),
	}},
	{"route-controller", []api.PolicyRule{
		rule("list", "watch").groups(legacyGroup).resources("nodes").build(),
		rule("patch").groups(legacyGroup).resources("nodes/status").build(),
		eventsRule(),
	}},
	{"service-account-controller", []api.PolicyRule{
		rule("create").groups(legacyGroup).resources("serviceaccounts").build(),
		eventsRule(),
	}},
	{"service-controller", []api.PolicyRule{
		rule("get", "list", "watch").groups(legacyGroup).resources("services").build(),
		rule("patch", "update").groups(legacyGroup).resources("services/status").build(),
		rule("list", "watch").groups(legacyGroup).resources("nodes").build(),
		eventsRule(),
	}},
	{"statefulset-controller", []api.PolicyRule{
		rule("list", "watch").groups(legacyGroup).resources("pods").build(),
		rule("get", "list", "watch").groups(appsGroup).resources("statefulsets").build(),
		rule("update").groups(appsGroup).resources("statefulsets/status").build(),
		rule("update").groups(appsGroup).resources("statefulsets/finalizers").build(),
		rule("get", "create", "delete", "update", "patch").groups(legacyGroup).resources("pods").build(),
		rule("get", "create", "delete", "update", "patch", "list", "watch").groups(appsGroup).resources("controllerrevisions").build(),
		rule("get", "create", "list", "watch").groups(legacyGroup).resources("persistentvolumeclaims").build(),
		rule("update", "delete").groups(legacyGroup).resources("persistentvolumeclaims").build(),
		rule("update").groups(legacyGroup).resources("pods/finalizers").build(),
		eventsRule(),
	}},
	{"ttl-controller", []api.PolicyRule{
		rule("update", "patch", "list", "watch").groups(legacyGroup).resources("nodes").build(),
		eventsRule(),
	}},
	{"certificate-controller", []api.PolicyRule{
		rule("get", "list", "watch", "delete").groups(certificatesGroup).resources("certificatesigningrequests").build(),
		rule("update").groups(certificatesGroup).resources("certificatesigningrequests/status", "certificatesigningrequests/approval").build(),
		rule("approve").groups(certificatesGroup).resources("signers").names(kubeAPIServerClientKubeletSigner).build(),
		rule("sign").groups(certificatesGroup).resources("signers").names(legacyUnknownSignerName,
			kubeAPIServerClientSignerName, kubeAPIServerClientKubeletSigner, kubeletServingSignerName).build(),
		rule("create").groups(authorizationGroup).resources("subjectaccessreviews").build(),
		eventsRule(),
	}},
	{"pvc-protection-controller", []api.PolicyRule{
		rule("get", "list", "watch", "update").groups(legacyGroup).resources("persistentvolumeclaims").build(),
		rule("update").groups(legacyGroup).resources("persistentvolumeclaims/status").build(),
		rule("list", "watch", "get").groups(legacyGroup).resources("pods").build(),
		eventsRule(),
	}},
	{"pv-protection-controller", []api.PolicyRule{
		rule("get", "list", "watch", "update").groups(legacyGroup).resources("persistentvolumes").build(),
		eventsRule(),
	}},
	{"ttl-after-finished-controller", []api.PolicyRule{
		rule("get", "list", "watch", "delete").groups(batchGroup).resources("jobs").build(),
		eventsRule(),
	}},
	{"root-ca-cert-publisher", []api.PolicyRule{
		rule("create", "update").groups(legacyGroup).resources("configmaps").build(),
		eventsRule(),
	}},
	{"validatingadmissionpolicy-status-controller", []api.PolicyRule{
		rule("get", "list", "watch").groups(admissionGroup).resources("validatingadmissionpolicies").build(),
		rule("get", "patch", "update").groups(admissionGroup).resources("validatingadmissionpolicies/status").build(),
		eventsRule(),
	}},
	{"legacy-service-account-token-cleaner", []api.PolicyRule{
		rule("get").groups(legacyGroup).resources("configmaps").names("kube-apiserver-legacy-service-account-token-tracking").build(),
		rule("patch", "delete").groups(legacyGroup).resources("secrets").build(),
	}},
	// The controllers of APIs kplane does not serve (dynamic resource
	// allocation, Service CIDRs, volume attributes classes) keep their
	// roles too, as the attach-detach and admission-policy ones do.
	{"device-taint-eviction-controller", []api.PolicyRule{
		rule("delete", "get", "list", "watch").groups(legacyGroup).resources("pods").build(),
		rule("patch", "update").groups(legacyGroup).resources("pods/status").build(),
		rule("get", "list", "watch").groups(resourceGroup).resources("resourceclaims").build(),
		rule("get", "list", "watch").groups(resourceGroup).resources("resourceslices").build(),
		rule("get", "list", "watch").groups(resourceGroup).resources("deviceclasses").build(),
		eventsRule(),
	}},
	{"resource-claim-controller", []api.PolicyRule{
		rule("get", "list", "watch").groups(legacyGroup).resources("pods").build(),
		rule("update").groups(legacyGroup).resources("pods/finalizers").build(),
		rule("get", "list", "watch", "create", "delete").groups(resourceGroup).resources("resourceclaims").build(),
		rule("update", "patch").groups(resourceGroup).resources("resourceclaims", "resourceclaims/status").build(),
		rule("update", "patch").groups(legacyGroup).resources("pods/status").build(),
		eventsRule(),
		rule("update", "patch").groups(resourceGroup).resources("resourceclaims/binding").build(),
	}},
	{"selinux-warning-controller", []api.PolicyRule{
		eventsRule(),
		rule("get", "list", "watch").groups(legacyGroup).resources("persistentvolumes").build(),
		rule("get", "list", "watch").groups(legacyGroup).resources("persistentvolumeclaims").build(),
		rule("get", "list", "watch").groups(legacyGroup).resources("pods").build(),
		rule("get", "list", "watch").groups(storageGroup).resources("csidrivers").build(),
	}},
	{"service-cidrs-controller", []api.PolicyRule{
		rule("get", "list", "watch", "patch", "update").groups(networkingGroup).resources("servicecidrs").build(),
		rule("patch", "update").groups(networkingGroup).resources("servicecidrs/finalizers").build(),
		rule("patch", "update").groups(networkingGroup).resources("servicecidrs/status").build(),
		rule("get", "list", "watch").groups(networkingGroup).resources("ipaddresses").build(),
		eventsRule(),
	}},
	{"volumeattributesclass-protection-controller", []api.PolicyRule{
		rule("get", "list", "watch").groups(legacyGroup).resources("persistentvolumeclaims").build(),
		rule("get", "list", "watch").groups(legacyGroup).resources("persistentvolumes").build(),
		rule("get", "list", "watch", "update").groups(storageGroup).resources("volumeattributesclasses").build(),
		eventsRule(),
	}},
}
