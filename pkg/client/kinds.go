package client

import "kplane/pkg/api"

// One accessor per kind, as client-go's clientset has (CoreV1().Pods(ns), …),
// flattened: kplane serves one version of each kind. Namespaced kinds take
// the namespace ("" = all namespaces for List and Watch).

// Namespaces returns a typed client for Namespace objects (cluster-scoped).
func (c *Client) Namespaces() *TypedClient[*api.Namespace] {
	return For[*api.Namespace](c, NamespacesResource)
}

// Nodes returns a typed client for Node objects (cluster-scoped).
func (c *Client) Nodes() *TypedClient[*api.Node] {
	return For[*api.Node](c, NodesResource)
}

// Pods returns a typed client for Pod objects in namespace.
func (c *Client) Pods(namespace string) *TypedClient[*api.Pod] {
	return For[*api.Pod](c, PodsResource).Namespace(namespace)
}

// Services returns a typed client for Service objects in namespace.
func (c *Client) Services(namespace string) *TypedClient[*api.Service] {
	return For[*api.Service](c, ServicesResource).Namespace(namespace)
}

// Endpoints returns a typed client for Endpoints objects in namespace.
func (c *Client) Endpoints(namespace string) *TypedClient[*api.Endpoints] {
	return For[*api.Endpoints](c, EndpointsResource).Namespace(namespace)
}

// ConfigMaps returns a typed client for ConfigMap objects in namespace.
func (c *Client) ConfigMaps(namespace string) *TypedClient[*api.ConfigMap] {
	return For[*api.ConfigMap](c, ConfigMapsResource).Namespace(namespace)
}

// Secrets returns a typed client for Secret objects in namespace.
func (c *Client) Secrets(namespace string) *TypedClient[*api.Secret] {
	return For[*api.Secret](c, SecretsResource).Namespace(namespace)
}

// ServiceAccounts returns a typed client for ServiceAccount objects in namespace.
func (c *Client) ServiceAccounts(namespace string) *TypedClient[*api.ServiceAccount] {
	return For[*api.ServiceAccount](c, ServiceAccountsResource).Namespace(namespace)
}

// PersistentVolumes returns a typed client for PersistentVolume objects (cluster-scoped).
func (c *Client) PersistentVolumes() *TypedClient[*api.PersistentVolume] {
	return For[*api.PersistentVolume](c, PersistentVolumesResource)
}

// PersistentVolumeClaims returns a typed client for PersistentVolumeClaim objects in namespace.
func (c *Client) PersistentVolumeClaims(namespace string) *TypedClient[*api.PersistentVolumeClaim] {
	return For[*api.PersistentVolumeClaim](c, PersistentVolumeClaimsResource).Namespace(namespace)
}

// ResourceQuotas returns a typed client for ResourceQuota objects in namespace.
func (c *Client) ResourceQuotas(namespace string) *TypedClient[*api.ResourceQuota] {
	return For[*api.ResourceQuota](c, ResourceQuotasResource).Namespace(namespace)
}

// LimitRanges returns a typed client for LimitRange objects in namespace.
func (c *Client) LimitRanges(namespace string) *TypedClient[*api.LimitRange] {
	return For[*api.LimitRange](c, LimitRangesResource).Namespace(namespace)
}

// Events returns a typed client for Event objects in namespace.
func (c *Client) Events(namespace string) *TypedClient[*api.Event] {
	return For[*api.Event](c, EventsResource).Namespace(namespace)
}

// ReplicationControllers returns a typed client for ReplicationController objects in namespace.
func (c *Client) ReplicationControllers(namespace string) *TypedClient[*api.ReplicationController] {
	return For[*api.ReplicationController](c, ReplicationControllersResource).Namespace(namespace)
}

// Deployments returns a typed client for Deployment objects in namespace.
func (c *Client) Deployments(namespace string) *TypedClient[*api.Deployment] {
	return For[*api.Deployment](c, DeploymentsResource).Namespace(namespace)
}

// ReplicaSets returns a typed client for ReplicaSet objects in namespace.
func (c *Client) ReplicaSets(namespace string) *TypedClient[*api.ReplicaSet] {
	return For[*api.ReplicaSet](c, ReplicaSetsResource).Namespace(namespace)
}

// StatefulSets returns a typed client for StatefulSet objects in namespace.
func (c *Client) StatefulSets(namespace string) *TypedClient[*api.StatefulSet] {
	return For[*api.StatefulSet](c, StatefulSetsResource).Namespace(namespace)
}

// DaemonSets returns a typed client for DaemonSet objects in namespace.
func (c *Client) DaemonSets(namespace string) *TypedClient[*api.DaemonSet] {
	return For[*api.DaemonSet](c, DaemonSetsResource).Namespace(namespace)
}

// ControllerRevisions returns a typed client for ControllerRevision objects in namespace.
func (c *Client) ControllerRevisions(namespace string) *TypedClient[*api.ControllerRevision] {
	return For[*api.ControllerRevision](c, ControllerRevisionsResource).Namespace(namespace)
}

// Jobs returns a typed client for Job objects in namespace.
func (c *Client) Jobs(namespace string) *TypedClient[*api.Job] {
	return For[*api.Job](c, JobsResource).Namespace(namespace)
}

// CronJobs returns a typed client for CronJob objects in namespace.
func (c *Client) CronJobs(namespace string) *TypedClient[*api.CronJob] {
	return For[*api.CronJob](c, CronJobsResource).Namespace(namespace)
}

// HorizontalPodAutoscalers returns a typed client for HorizontalPodAutoscaler objects in namespace.
func (c *Client) HorizontalPodAutoscalers(namespace string) *TypedClient[*api.HorizontalPodAutoscaler] {
	return For[*api.HorizontalPodAutoscaler](c, HorizontalPodAutoscalersResource).Namespace(namespace)
}

// Leases returns a typed client for Lease objects in namespace.
func (c *Client) Leases(namespace string) *TypedClient[*api.Lease] {
	return For[*api.Lease](c, LeasesResource).Namespace(namespace)
}

// EndpointSlices returns a typed client for EndpointSlice objects in namespace.
func (c *Client) EndpointSlices(namespace string) *TypedClient[*api.EndpointSlice] {
	return For[*api.EndpointSlice](c, EndpointSlicesResource).Namespace(namespace)
}

// EventsV1Events returns a typed client for events.k8s.io/v1 Event objects
// in namespace: the core Events, with the newer field names.
func (c *Client) EventsV1Events(namespace string) *TypedClient[*api.EventsV1Event] {
	return For[*api.EventsV1Event](c, EventsV1EventsResource).Namespace(namespace)
}

// Ingresses returns a typed client for Ingress objects in namespace.
func (c *Client) Ingresses(namespace string) *TypedClient[*api.Ingress] {
	return For[*api.Ingress](c, IngressesResource).Namespace(namespace)
}

// IngressClasses returns a typed client for IngressClass objects.
func (c *Client) IngressClasses() *TypedClient[*api.IngressClass] {
	return For[*api.IngressClass](c, IngressClassesResource)
}

// NetworkPolicies returns a typed client for NetworkPolicy objects in namespace.
func (c *Client) NetworkPolicies(namespace string) *TypedClient[*api.NetworkPolicy] {
	return For[*api.NetworkPolicy](c, NetworkPoliciesResource).Namespace(namespace)
}

// PodDisruptionBudgets returns a typed client for PodDisruptionBudget objects in namespace.
func (c *Client) PodDisruptionBudgets(namespace string) *TypedClient[*api.PodDisruptionBudget] {
	return For[*api.PodDisruptionBudget](c, PodDisruptionBudgetsResource).Namespace(namespace)
}

// Roles returns a typed client for Role objects in namespace.
func (c *Client) Roles(namespace string) *TypedClient[*api.Role] {
	return For[*api.Role](c, RolesResource).Namespace(namespace)
}

// ClusterRoles returns a typed client for ClusterRole objects (cluster-scoped).
func (c *Client) ClusterRoles() *TypedClient[*api.ClusterRole] {
	return For[*api.ClusterRole](c, ClusterRolesResource)
}

// RoleBindings returns a typed client for RoleBinding objects in namespace.
func (c *Client) RoleBindings(namespace string) *TypedClient[*api.RoleBinding] {
	return For[*api.RoleBinding](c, RoleBindingsResource).Namespace(namespace)
}

// ClusterRoleBindings returns a typed client for ClusterRoleBinding objects (cluster-scoped).
func (c *Client) ClusterRoleBindings() *TypedClient[*api.ClusterRoleBinding] {
	return For[*api.ClusterRoleBinding](c, ClusterRoleBindingsResource)
}

// StorageClasses returns a typed client for StorageClass objects (cluster-scoped).
func (c *Client) StorageClasses() *TypedClient[*api.StorageClass] {
	return For[*api.StorageClass](c, StorageClassesResource)
}

// PriorityClasses returns a typed client for PriorityClass objects (cluster-scoped).
func (c *Client) PriorityClasses() *TypedClient[*api.PriorityClass] {
	return For[*api.PriorityClass](c, PriorityClassesResource)
}

// CertificateSigningRequests returns a typed client for
// CertificateSigningRequest objects (cluster-scoped).
func (c *Client) CertificateSigningRequests() *TypedClient[*api.CertificateSigningRequest] {
	return For[*api.CertificateSigningRequest](c, CertificateSigningRequestsResource)
}
