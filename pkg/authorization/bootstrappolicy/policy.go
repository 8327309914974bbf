package bootstrappolicy

import (
	"kplane/pkg/api"
	"kplane/pkg/auth"
)

// The signers the certificates.k8s.io roles name (upstream's
// k8s.io/api/certificates/v1 constants).
const (
	legacyUnknownSignerName          = "kubernetes.io/legacy-unknown"
	kubeAPIServerClientSignerName    = "kubernetes.io/kube-apiserver-client"
	kubeAPIServerClientKubeletSigner = "kubernetes.io/kube-apiserver-client-kubelet"
	kubeletServingSignerName         = "kubernetes.io/kubelet-serving"
)

// The groups the bindings name beside auth's.
const (
	// AllServiceAccountsGroup holds every ServiceAccount.
	AllServiceAccountsGroup = "system:serviceaccounts"
	// MonitoringGroup is the group upstream binds system:monitoring to.
	MonitoringGroup = "system:monitoring"
	// SystemNodeRoleName is the role of kubelets; the Node authorizer
	// applies its rules, so its binding has no subjects.
	SystemNodeRoleName = "system:node"
)

// ClusterRoles returns the cluster-wide roles of upstream's policy.go,
// followed by the controllers' roles and the add-on and kplane roles.
func ClusterRoles() []api.ClusterRole {
	roles := userFacingRoles()
	roles = append(roles, componentRoles()...)
	roles = append(roles, ControllerRoles()...)
	roles = append(roles, addonClusterRoles()...)
	return append(roles, kplaneClusterRoles()...)
}

// ClusterRoleBindings returns the bindings of ClusterRoles: upstream's
// policy.go and controller_policy.go bindings, the add-ons' and kplane's.
func ClusterRoleBindings() []api.ClusterRoleBinding {
	bindings := []api.ClusterRoleBinding{
		clusterRoleBinding("cluster-admin", groupSubject(auth.MastersGroup)),
		clusterRoleBinding("system:monitoring", groupSubject(MonitoringGroup)),
		clusterRoleBinding("system:discovery", groupSubject(auth.AuthenticatedGroup)),
		clusterRoleBinding("system:basic-user", groupSubject(auth.AuthenticatedGroup)),
		clusterRoleBinding("system:public-info-viewer", groupSubject(auth.AuthenticatedGroup), groupSubject(auth.UnauthenticatedGroup)),
		clusterRoleBinding("system:node-proxier", userSubject(auth.KubeProxyUserName)),
		clusterRoleBinding("system:kube-controller-manager", userSubject(auth.ControllerManagerUserName)),
		clusterRoleBinding("system:kube-dns", serviceAccountSubject("kube-system", "kube-dns")),
		clusterRoleBinding("system:kube-scheduler", userSubject(auth.SchedulerUserName)),
		clusterRoleBinding("system:volume-scheduler", userSubject(auth.SchedulerUserName)),
		// Upstream keeps this binding without subjects since the Node
		// authorizer took over (1.7): reconciliation only adds subjects,
		// so it never gives the old system:nodes subject back.
		clusterRoleBinding(SystemNodeRoleName),
		// Every ServiceAccount may read the OIDC discovery documents of
		// the issuer that signed its own token.
		clusterRoleBinding("system:service-account-issuer-discovery", groupSubject(AllServiceAccountsGroup)),
	}
	bindings = append(bindings, ControllerRoleBindings()...)
	bindings = append(bindings, addonClusterRoleBindings()...)
	bindings = append(bindings, kubeadmClusterRoleBindings()...)
	return append(bindings, kplaneClusterRoleBindings()...)
}

// userFacingRoles are the roles people are given: cluster-admin, the
// aggregated admin/edit/view with the system:aggregate-to-* roles that fill
// them, and what every user may do (discovery, basic-user, public info).
func userFacingRoles() []api.ClusterRole {
	return []api.ClusterRole{
		// The root role: anything on any resource and any URL.
		clusterRole("cluster-admin", nil,
			rule("*").groups("*").resources("*").build(),
			rule("*").urls("*").build()),
		// Enough to tell whether the server is healthy and to negotiate
		// API versions.
		clusterRole("system:discovery", nil,
			rule("get").urls("/livez", "/readyz", "/healthz", "/version", "/version/",
				"/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*").build()),
		// Health checks and metrics, for monitoring systems.
		clusterRole("system:monitoring", nil,
			rule("get").urls("/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz",
				"/livez/*", "/readyz/*", "/healthz/*").build()),
		// A user learning about themselves: can-i, can-i --list, whoami.
		clusterRole("system:basic-user", nil,
			rule("create").groups(authorizationGroup).resources("selfsubjectaccessreviews", "selfsubjectrulesreviews").build(),
			rule("create").groups(authenticationGroup).resources("selfsubjectreviews").build()),
		// Insensitive facts anyone may read, even without credentials.
		clusterRole("system:public-info-viewer", nil,
			rule("get").urls("/livez", "/readyz", "/healthz", "/version", "/version/").build()),
		aggregatedClusterRole("admin", nil, AggregateToAdmin),
		aggregatedClusterRole("edit", map[string]string{AggregateToAdmin: "true"}, AggregateToEdit),
		aggregatedClusterRole("view", map[string]string{AggregateToEdit: "true"}, AggregateToView),
		// What admin has beyond edit: granting rights inside a namespace.
		clusterRole("system:aggregate-to-admin", map[string]string{AggregateToAdmin: "true"},
			rule("create").groups(authorizationGroup).resources("localsubjectaccessreviews").build(),
			rule(ReadWrite...).groups(rbacGroup).resources("roles", "rolebindings").build()),
		// What edit has beyond view: every user-level write, and reading
		// the resources that can escalate (secrets, exec, attach).
		clusterRole("system:aggregate-to-edit", map[string]string{AggregateToEdit: "true"},
			rule(Read...).groups(legacyGroup).resources("pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy").build(),
			rule("impersonate").groups(legacyGroup).resources("serviceaccounts").build(),
			rule(Write...).groups(legacyGroup).resources("pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward").build(),
			rule("create").groups(legacyGroup).resources("pods/eviction").build(),
			rule(Write...).groups(legacyGroup).resources("replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
				"services", "services/proxy", "persistentvolumeclaims", "configmaps", "secrets", "events").build(),
			rule("create").groups(legacyGroup).resources("serviceaccounts/token").build(),
			rule(Write...).groups(appsGroup).resources("statefulsets", "statefulsets/scale", "daemonsets",
				"deployments", "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale").build(),
			rule(Write...).groups(autoscalingGroup).resources("horizontalpodautoscalers").build(),
			rule(Write...).groups(batchGroup).resources("jobs", "cronjobs").build(),
			rule(Write...).groups(extensionsGroup).resources("daemonsets", "deployments", "deployments/scale", "deployments/rollback",
				"ingresses", "replicasets", "replicasets/scale", "replicationcontrollers/scale", "networkpolicies").build(),
			rule(Write...).groups(policyGroup).resources("poddisruptionbudgets").build(),
			rule(Write...).groups(networkingGroup).resources("networkpolicies", "ingresses").build(),
			// Leases, so that a namespace's workloads elect leaders with
			// them rather than with ConfigMaps (kubernetes#111472).
			rule(ReadWrite...).groups(coordinationGroup).resources("leases").build()),
		// Reading every non-escalating resource of a namespace (not
		// secrets, not exec).
		clusterRole("system:aggregate-to-view", map[string]string{AggregateToView: "true"},
			rule(Read...).groups(legacyGroup).resources("pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
				"services", "services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "configmaps").build(),
			rule(Read...).groups(legacyGroup).resources("limitranges", "resourcequotas", "bindings", "events",
				"pods/status", "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log").build(),
			// Reading namespaces at namespace scope means reading this
			// namespace: a hint of which namespaces one has access to.
			rule(Read...).groups(legacyGroup).resources("namespaces").build(),
			rule(Read...).groups(discoveryGroup).resources("endpointslices").build(),
			rule(Read...).groups(appsGroup).resources("controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
				"daemonsets", "daemonsets/status", "deployments", "deployments/status", "deployments/scale",
				"replicasets", "replicasets/status", "replicasets/scale").build(),
			rule(Read...).groups(autoscalingGroup).resources("horizontalpodautoscalers", "horizontalpodautoscalers/status").build(),
			rule(Read...).groups(batchGroup).resources("jobs", "cronjobs", "cronjobs/status", "jobs/status").build(),
			rule(Read...).groups(extensionsGroup).resources("daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status",
				"ingresses", "ingresses/status", "replicasets", "replicasets/scale", "replicasets/status", "replicationcontrollers/scale",
				"networkpolicies").build(),
			rule(Read...).groups(policyGroup).resources("poddisruptionbudgets", "poddisruptionbudgets/status").build(),
			rule(Read...).groups(networkingGroup).resources("networkpolicies", "ingresses", "ingresses/status").build()),
	}
}

// componentRoles are the roles of the control plane's and the nodes'
// components and of the delegating servers.
func componentRoles() []api.ClusterRole {
	return []api.ClusterRole{
		// What every kubelet may do (node_rules.go); the Node authorizer
		// applies these rules, narrowed to the kubelet's own objects.
		clusterRole(SystemNodeRoleName, nil, NodeRules()...),
		// heapster's role, kept because upstream still ships it.
		clusterRole("system:heapster", nil,
			rule(Read...).groups(legacyGroup).resources("events", "pods", "nodes", "namespaces").build(),
			rule(Read...).groups(extensionsGroup).resources("deployments").build()),
		// node-problem-detector's role; upstream binds it nowhere.
		clusterRole("system:node-problem-detector", nil,
			rule("get").groups(legacyGroup).resources("nodes").build(),
			rule("patch").groups(legacyGroup).resources("nodes/status").build(),
			eventsRule()),
		// Full access to every kubelet's API.
		clusterRole("system:kubelet-api-admin", nil,
			rule("get", "list", "watch").groups(legacyGroup).resources("nodes").build(),
			rule("proxy").groups(legacyGroup).resources("nodes").build(),
			rule("*").groups(legacyGroup).resources("nodes/proxy", "nodes/metrics", "nodes/spec", "nodes/stats", "nodes/log").build()),
		// A node asking for its first client certificate.
		clusterRole("system:node-bootstrapper", nil,
			rule("create", "get", "list", "watch").groups(certificatesGroup).resources("certificatesigningrequests").build()),
		// A server that delegates authentication and authorization to the
		// apiserver (metrics-server, aggregated servers, kubelets).
		clusterRole("system:auth-delegator", nil,
			rule("create").groups(authenticationGroup).resources("tokenreviews").build(),
			rule("create").groups(authorizationGroup).resources("subjectaccessreviews").build()),
		// The aggregator must know whether the Services it proxies to exist.
		clusterRole("system:kube-aggregator", nil,
			rule(Read...).groups(legacyGroup).resources("services", "endpoints").build()),
		// The controller-manager's own identity: its shared informers list
		// and watch everything; it creates the controllers' ServiceAccounts
		// and their tokens, and holds its leader lease.
		clusterRole("system:kube-controller-manager", nil,
			eventsRule(),
			rule("create").groups(coordinationGroup).resources("leases").build(),
			rule("get", "update").groups(coordinationGroup).resources("leases").names("kube-controller-manager").build(),
			rule("create").groups(legacyGroup).resources("secrets", "serviceaccounts").build(),
			rule("delete").groups(legacyGroup).resources("secrets").build(),
			rule("get").groups(legacyGroup).resources("namespaces", "secrets", "serviceaccounts", "configmaps").build(),
			rule("update").groups(legacyGroup).resources("secrets", "serviceaccounts").build(),
			rule("create").groups(authenticationGroup).resources("tokenreviews").build(),
			rule("create").groups(authorizationGroup).resources("subjectaccessreviews").build(),
			rule("list", "watch").groups("*").resources("*").build(),
			rule("create").groups(legacyGroup).resources("serviceaccounts/token").build()),
		// kube-dns (CoreDNS has its own system:coredns, see addons.go).
		clusterRole("system:kube-dns", nil,
			rule("list", "watch").groups(legacyGroup).resources("endpoints", "services").build()),
		// An external provisioner of PersistentVolumes.
		clusterRole("system:persistent-volume-provisioner", nil,
			rule("get", "list", "watch", "create", "delete").groups(legacyGroup).resources("persistentvolumes").build(),
			// update sets the lock annotations on claims.
			rule("get", "list", "watch", "update").groups(legacyGroup).resources("persistentvolumeclaims").build(),
			rule(Read...).groups(storageGroup).resources("storageclasses").build(),
			rule("watch").groups(legacyGroup).resources("events").build(),
			eventsRule()),
		// Node client certificate requests the csrapproving controller
		// approves.
		clusterRole("system:certificates.k8s.io:certificatesigningrequests:nodeclient", nil,
			rule("create").groups(certificatesGroup).resources("certificatesigningrequests/nodeclient").build()),
		clusterRole("system:certificates.k8s.io:certificatesigningrequests:selfnodeclient", nil,
			rule("create").groups(certificatesGroup).resources("certificatesigningrequests/selfnodeclient").build()),
		// The scheduler's volume binding.
		clusterRole("system:volume-scheduler", nil,
			rule(ReadUpdate...).groups(legacyGroup).resources("persistentvolumes").build(),
			rule(Read...).groups(storageGroup).resources("storageclasses").build(),
			rule(ReadUpdate...).groups(legacyGroup).resources("persistentvolumeclaims").build()),
		clusterRole("system:certificates.k8s.io:legacy-unknown-approver", nil,
			rule("approve").groups(certificatesGroup).resources("signers").names(legacyUnknownSignerName).build()),
		clusterRole("system:certificates.k8s.io:kubelet-serving-approver", nil,
			rule("approve").groups(certificatesGroup).resources("signers").names(kubeletServingSignerName).build()),
		clusterRole("system:certificates.k8s.io:kube-apiserver-client-approver", nil,
			rule("approve").groups(certificatesGroup).resources("signers").names(kubeAPIServerClientSignerName).build()),
		clusterRole("system:certificates.k8s.io:kube-apiserver-client-kubelet-approver", nil,
			rule("approve").groups(certificatesGroup).resources("signers").names(kubeAPIServerClientKubeletSigner).build()),
		// The ServiceAccount issuer's OIDC discovery documents.
		clusterRole("system:service-account-issuer-discovery", nil,
			rule("get").urls("/.well-known/openid-configuration", "/.well-known/openid-configuration/",
				"/openid/v1/jwks", "/openid/v1/jwks/").build()),
		// kube-proxy: Services and their endpoints, its own Node.
		clusterRole("system:node-proxier", nil,
			rule("list", "watch").groups(legacyGroup).resources("services", "endpoints").build(),
			rule("get", "list", "watch").groups(legacyGroup).resources("nodes").build(),
			eventsRule(),
			rule("list", "watch").groups(discoveryGroup).resources("endpointslices").build()),
		// The scheduler: read what placement depends on, bind pods, record
		// why, hold its leader lease.
		clusterRole("system:kube-scheduler", nil,
			eventsRule(),
			rule("create").groups(coordinationGroup).resources("leases").build(),
			rule("get", "update").groups(coordinationGroup).resources("leases").names("kube-scheduler").build(),
			rule(Read...).groups(legacyGroup).resources("nodes").build(),
			rule("get", "list", "watch", "delete").groups(legacyGroup).resources("pods").build(),
			rule("create").groups(legacyGroup).resources("pods/binding", "bindings").build(),
			rule("patch", "update").groups(legacyGroup).resources("pods/status").build(),
			rule(Read...).groups(legacyGroup).resources("services", "replicationcontrollers").build(),
			rule(Read...).groups(appsGroup, extensionsGroup).resources("replicasets").build(),
			rule(Read...).groups(appsGroup).resources("statefulsets").build(),
			rule(Read...).groups(policyGroup).resources("poddisruptionbudgets").build(),
			rule(Read...).groups(legacyGroup).resources("persistentvolumeclaims", "persistentvolumes").build(),
			rule("create").groups(authenticationGroup).resources("tokenreviews").build(),
			rule("create").groups(authorizationGroup).resources("subjectaccessreviews").build(),
			rule(Read...).groups(storageGroup).resources("csinodes").build(),
			rule(Read...).groups(legacyGroup).resources("namespaces").build(),
			rule(Read...).groups(storageGroup).resources("csidrivers").build(),
			rule(Read...).groups(storageGroup).resources("csistoragecapacities").build()),
	}
}
