package client

// Resource names a REST resource: the API group and version it is served
// under, its plural name in URLs, its Kind in bodies, and whether its
// objects live in a namespace.
type Resource struct {
	Group, Version, Resource, Kind string
	Namespaced                     bool
}

// GroupVersion is the resource's apiVersion as objects carry it: "v1" for
// the core group, "apps/v1" otherwise.
func (r Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// String is the resource as Kubernetes prints it in messages: "pods",
// "deployments.apps".
func (r Resource) String() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// The resources kplane serves, one per kind, by group and version.
var (
	// core/v1
	NamespacesResource             = Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"}
	NodesResource                  = Resource{Version: "v1", Resource: "nodes", Kind: "Node"}
	PodsResource                   = Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
	ServicesResource               = Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true}
	EndpointsResource              = Resource{Version: "v1", Resource: "endpoints", Kind: "Endpoints", Namespaced: true}
	ConfigMapsResource             = Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
	SecretsResource                = Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}
	ServiceAccountsResource        = Resource{Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount", Namespaced: true}
	PersistentVolumesResource      = Resource{Version: "v1", Resource: "persistentvolumes", Kind: "PersistentVolume"}
	PersistentVolumeClaimsResource = Resource{Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true}
	ResourceQuotasResource         = Resource{Version: "v1", Resource: "resourcequotas", Kind: "ResourceQuota", Namespaced: true}
	LimitRangesResource            = Resource{Version: "v1", Resource: "limitranges", Kind: "LimitRange", Namespaced: true}
	EventsResource                 = Resource{Version: "v1", Resource: "events", Kind: "Event", Namespaced: true}
	ReplicationControllersResource = Resource{Version: "v1", Resource: "replicationcontrollers", Kind: "ReplicationController", Namespaced: true}

	// apps/v1
	DeploymentsResource         = Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}
	ReplicaSetsResource         = Resource{Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespaced: true}
	StatefulSetsResource        = Resource{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true}
	DaemonSetsResource          = Resource{Group: "apps", Version: "v1", Resource: "daemonsets", Kind: "DaemonSet", Namespaced: true}
	ControllerRevisionsResource = Resource{Group: "apps", Version: "v1", Resource: "controllerrevisions", Kind: "ControllerRevision", Namespaced: true}

	// batch/v1
	JobsResource     = Resource{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true}
	CronJobsResource = Resource{Group: "batch", Version: "v1", Resource: "cronjobs", Kind: "CronJob", Namespaced: true}

	// autoscaling/v2
	HorizontalPodAutoscalersResource = Resource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler", Namespaced: true}

	// coordination.k8s.io/v1
	LeasesResource = Resource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Namespaced: true}

	// discovery.k8s.io/v1
	EndpointSlicesResource = Resource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices", Kind: "EndpointSlice", Namespaced: true}

	// events.k8s.io/v1: the core/v1 Events in their newer shape, from the
	// same storage. It is left out of BuiltinResources: everything that
	// walks every resource (the garbage collector, the namespace
	// controller) would otherwise see each Event twice.
	EventsV1EventsResource = Resource{Group: "events.k8s.io", Version: "v1", Resource: "events", Kind: "Event", Namespaced: true}

	// networking.k8s.io/v1
	IngressesResource       = Resource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses", Kind: "Ingress", Namespaced: true}
	IngressClassesResource  = Resource{Group: "networking.k8s.io", Version: "v1", Resource: "ingressclasses", Kind: "IngressClass"}
	NetworkPoliciesResource = Resource{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies", Kind: "NetworkPolicy", Namespaced: true}

	// policy/v1
	PodDisruptionBudgetsResource = Resource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets", Kind: "PodDisruptionBudget", Namespaced: true}

	// rbac.authorization.k8s.io/v1
	RolesResource               = Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles", Kind: "Role", Namespaced: true}
	ClusterRolesResource        = Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole"}
	RoleBindingsResource        = Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings", Kind: "RoleBinding", Namespaced: true}
	ClusterRoleBindingsResource = Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings", Kind: "ClusterRoleBinding"}

	// storage.k8s.io/v1
	StorageClassesResource = Resource{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses", Kind: "StorageClass"}

	// scheduling.k8s.io/v1
	PriorityClassesResource = Resource{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses", Kind: "PriorityClass"}

	// certificates.k8s.io/v1
	CertificateSigningRequestsResource = Resource{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests", Kind: "CertificateSigningRequest"}

	// apiregistration.k8s.io/v1: the aggregation layer's registrations.
	APIServicesResource = Resource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices", Kind: "APIService"}
)

// Resources served in a second version, or by another server through the
// aggregation layer. They are left out of BuiltinResources: nothing that
// walks every stored resource should see them.
var (
	// autoscaling/v1: the autoscaling/v2 HPAs in their older shape (CPU
	// utilisation only; the rest kept in annotations), from the same storage.
	HorizontalPodAutoscalersV1Resource = Resource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler", Namespaced: true}

	// metrics.k8s.io/v1beta1, served by metrics-server: usage computed on
	// request from the kubelets' figures, never stored.
	NodeMetricsResource = Resource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "nodes", Kind: "NodeMetrics"}
	PodMetricsResource  = Resource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods", Kind: "PodMetrics", Namespaced: true}
)

// BuiltinResources returns every resource kplane serves, in the order of
// the variables above. The slice is a fresh copy.
func BuiltinResources() []Resource {
	return []Resource{
		NamespacesResource, NodesResource, PodsResource, ServicesResource, EndpointsResource,
		ConfigMapsResource, SecretsResource, ServiceAccountsResource, PersistentVolumesResource,
		PersistentVolumeClaimsResource, ResourceQuotasResource, LimitRangesResource, EventsResource,
		ReplicationControllersResource,
		DeploymentsResource, ReplicaSetsResource, StatefulSetsResource, DaemonSetsResource, ControllerRevisionsResource,
		JobsResource, CronJobsResource,
		HorizontalPodAutoscalersResource,
		LeasesResource,
		EndpointSlicesResource,
		IngressesResource, IngressClassesResource, NetworkPoliciesResource,
		PodDisruptionBudgetsResource,
		RolesResource, ClusterRolesResource, RoleBindingsResource, ClusterRoleBindingsResource,
		StorageClassesResource,
		PriorityClassesResource,
		APIServicesResource,
		CertificateSigningRequestsResource,
	}
}

// ResourceForKind finds the built-in resource serving apiVersion and kind,
// e.g. ("apps/v1", "Deployment"), the way ctl maps a YAML document or an
// ownerReference to a URL.
func ResourceForKind(apiVersion, kind string) (Resource, bool) {
	for _, r := range BuiltinResources() {
		if r.GroupVersion() == apiVersion && r.Kind == kind {
			return r, true
		}
	}
	return Resource{}, false
}
