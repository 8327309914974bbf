package informer

// This file has one accessor per built-in kind, so a controller reads
// factory.Pods().Lister() rather than spelling out the resource and type.
// Each is a one-line call of ForResource.

import (
	"kplane/pkg/api"
	"kplane/pkg/client"
)

// Namespaces returns the shared informer and lister for Namespace objects.
func (f *SharedInformerFactory) Namespaces() TypedInformer[*api.Namespace] {
	return ForResource[*api.Namespace](f, client.NamespacesResource)
}

// Nodes returns the shared informer and lister for Node objects.
func (f *SharedInformerFactory) Nodes() TypedInformer[*api.Node] {
	return ForResource[*api.Node](f, client.NodesResource)
}

// Pods returns the shared informer and lister for Pod objects.
func (f *SharedInformerFactory) Pods() TypedInformer[*api.Pod] {
	return ForResource[*api.Pod](f, client.PodsResource)
}

// Services returns the shared informer and lister for Service objects.
func (f *SharedInformerFactory) Services() TypedInformer[*api.Service] {
	return ForResource[*api.Service](f, client.ServicesResource)
}

// Endpoints returns the shared informer and lister for Endpoints objects.
func (f *SharedInformerFactory) Endpoints() TypedInformer[*api.Endpoints] {
	return ForResource[*api.Endpoints](f, client.EndpointsResource)
}

// ConfigMaps returns the shared informer and lister for ConfigMap objects.
func (f *SharedInformerFactory) ConfigMaps() TypedInformer[*api.ConfigMap] {
	return ForResource[*api.ConfigMap](f, client.ConfigMapsResource)
}

// Secrets returns the shared informer and lister for Secret objects.
func (f *SharedInformerFactory) Secrets() TypedInformer[*api.Secret] {
	return ForResource[*api.Secret](f, client.SecretsResource)
}

// ServiceAccounts returns the shared informer and lister for ServiceAccount objects.
func (f *SharedInformerFactory) ServiceAccounts() TypedInformer[*api.ServiceAccount] {
	return ForResource[*api.ServiceAccount](f, client.ServiceAccountsResource)
}

// PersistentVolumes returns the shared informer and lister for PersistentVolume objects.
func (f *SharedInformerFactory) PersistentVolumes() TypedInformer[*api.PersistentVolume] {
	return ForResource[*api.PersistentVolume](f, client.PersistentVolumesResource)
}

// PersistentVolumeClaims returns the shared informer and lister for PersistentVolumeClaim objects.
func (f *SharedInformerFactory) PersistentVolumeClaims() TypedInformer[*api.PersistentVolumeClaim] {
	return ForResource[*api.PersistentVolumeClaim](f, client.PersistentVolumeClaimsResource)
}

// ResourceQuotas returns the shared informer and lister for ResourceQuota objects.
func (f *SharedInformerFactory) ResourceQuotas() TypedInformer[*api.ResourceQuota] {
	return ForResource[*api.ResourceQuota](f, client.ResourceQuotasResource)
}

// LimitRanges returns the shared informer and lister for LimitRange objects.
func (f *SharedInformerFactory) LimitRanges() TypedInformer[*api.LimitRange] {
	return ForResource[*api.LimitRange](f, client.LimitRangesResource)
}

// Events returns the shared informer and lister for Event objects.
func (f *SharedInformerFactory) Events() TypedInformer[*api.Event] {
	return ForResource[*api.Event](f, client.EventsResource)
}

// ReplicationControllers returns the shared informer and lister for ReplicationController objects.
func (f *SharedInformerFactory) ReplicationControllers() TypedInformer[*api.ReplicationController] {
	return ForResource[*api.ReplicationController](f, client.ReplicationControllersResource)
}

// Deployments returns the shared informer and lister for Deployment objects.
func (f *SharedInformerFactory) Deployments() TypedInformer[*api.Deployment] {
	return ForResource[*api.Deployment](f, client.DeploymentsResource)
}

// ReplicaSets returns the shared informer and lister for ReplicaSet objects.
func (f *SharedInformerFactory) ReplicaSets() TypedInformer[*api.ReplicaSet] {
	return ForResource[*api.ReplicaSet](f, client.ReplicaSetsResource)
}

// StatefulSets returns the shared informer and lister for StatefulSet objects.
func (f *SharedInformerFactory) StatefulSets() TypedInformer[*api.StatefulSet] {
	return ForResource[*api.StatefulSet](f, client.StatefulSetsResource)
}

// DaemonSets returns the shared informer and lister for DaemonSet objects.
func (f *SharedInformerFactory) DaemonSets() TypedInformer[*api.DaemonSet] {
	return ForResource[*api.DaemonSet](f, client.DaemonSetsResource)
}

// ControllerRevisions returns the shared informer and lister for ControllerRevision objects.
func (f *SharedInformerFactory) ControllerRevisions() TypedInformer[*api.ControllerRevision] {
	return ForResource[*api.ControllerRevision](f, client.ControllerRevisionsResource)
}

// Jobs returns the shared informer and lister for Job objects.
func (f *SharedInformerFactory) Jobs() TypedInformer[*api.Job] {
	return ForResource[*api.Job](f, client.JobsResource)
}

// CronJobs returns the shared informer and lister for CronJob objects.
func (f *SharedInformerFactory) CronJobs() TypedInformer[*api.CronJob] {
	return ForResource[*api.CronJob](f, client.CronJobsResource)
}

// HorizontalPodAutoscalers returns the shared informer and lister for HorizontalPodAutoscaler objects.
func (f *SharedInformerFactory) HorizontalPodAutoscalers() TypedInformer[*api.HorizontalPodAutoscaler] {
	return ForResource[*api.HorizontalPodAutoscaler](f, client.HorizontalPodAutoscalersResource)
}

// Leases returns the shared informer and lister for Lease objects.
func (f *SharedInformerFactory) Leases() TypedInformer[*api.Lease] {
	return ForResource[*api.Lease](f, client.LeasesResource)
}

// EndpointSlices returns the shared informer and lister for EndpointSlice objects.
func (f *SharedInformerFactory) EndpointSlices() TypedInformer[*api.EndpointSlice] {
	return ForResource[*api.EndpointSlice](f, client.EndpointSlicesResource)
}

// EventsV1Events returns the shared informer and lister for events.k8s.io/v1 Event objects.
func (f *SharedInformerFactory) EventsV1Events() TypedInformer[*api.EventsV1Event] {
	return ForResource[*api.EventsV1Event](f, client.EventsV1EventsResource)
}

// Ingresses returns the shared informer and lister for Ingress objects.
func (f *SharedInformerFactory) Ingresses() TypedInformer[*api.Ingress] {
	return ForResource[*api.Ingress](f, client.IngressesResource)
}

// IngressClasses returns the shared informer and lister for IngressClass objects.
func (f *SharedInformerFactory) IngressClasses() TypedInformer[*api.IngressClass] {
	return ForResource[*api.IngressClass](f, client.IngressClassesResource)
}

// NetworkPolicies returns the shared informer and lister for NetworkPolicy objects.
func (f *SharedInformerFactory) NetworkPolicies() TypedInformer[*api.NetworkPolicy] {
	return ForResource[*api.NetworkPolicy](f, client.NetworkPoliciesResource)
}

// PodDisruptionBudgets returns the shared informer and lister for PodDisruptionBudget objects.
func (f *SharedInformerFactory) PodDisruptionBudgets() TypedInformer[*api.PodDisruptionBudget] {
	return ForResource[*api.PodDisruptionBudget](f, client.PodDisruptionBudgetsResource)
}

// Roles returns the shared informer and lister for Role objects.
func (f *SharedInformerFactory) Roles() TypedInformer[*api.Role] {
	return ForResource[*api.Role](f, client.RolesResource)
}

// ClusterRoles returns the shared informer and lister for ClusterRole objects.
func (f *SharedInformerFactory) ClusterRoles() TypedInformer[*api.ClusterRole] {
	return ForResource[*api.ClusterRole](f, client.ClusterRolesResource)
}

// RoleBindings returns the shared informer and lister for RoleBinding objects.
func (f *SharedInformerFactory) RoleBindings() TypedInformer[*api.RoleBinding] {
	return ForResource[*api.RoleBinding](f, client.RoleBindingsResource)
}

// ClusterRoleBindings returns the shared informer and lister for ClusterRoleBinding objects.
func (f *SharedInformerFactory) ClusterRoleBindings() TypedInformer[*api.ClusterRoleBinding] {
	return ForResource[*api.ClusterRoleBinding](f, client.ClusterRoleBindingsResource)
}

// StorageClasses returns the shared informer and lister for StorageClass objects.
func (f *SharedInformerFactory) StorageClasses() TypedInformer[*api.StorageClass] {
	return ForResource[*api.StorageClass](f, client.StorageClassesResource)
}

// PriorityClasses returns the shared informer and lister for PriorityClass objects.
func (f *SharedInformerFactory) PriorityClasses() TypedInformer[*api.PriorityClass] {
	return ForResource[*api.PriorityClass](f, client.PriorityClassesResource)
}

// CertificateSigningRequests returns the shared informer and lister for
// CertificateSigningRequest objects.
func (f *SharedInformerFactory) CertificateSigningRequests() TypedInformer[*api.CertificateSigningRequest] {
	return ForResource[*api.CertificateSigningRequest](f, client.CertificateSigningRequestsResource)
}

// BuiltinInformer returns f's shared typed informer for res when res is a
// built-in kind with an accessor above, the informer f.Pods().Informer()
// returns for pods. A component that discovers resources at run time (the
// garbage collector) asks here first and takes a dynamic informer only for
// the rest, so a resource never has two informers of two Go types.
func (f *SharedInformerFactory) BuiltinInformer(res client.Resource) (SharedIndexInformer, bool) {
	switch res {
	case client.NamespacesResource:
		return f.Namespaces().Informer(), true
	case client.NodesResource:
		return f.Nodes().Informer(), true
	case client.PodsResource:
		return f.Pods().Informer(), true
	case client.ServicesResource:
		return f.Services().Informer(), true
	case client.EndpointsResource:
		return f.Endpoints().Informer(), true
	case client.ConfigMapsResource:
		return f.ConfigMaps().Informer(), true
	case client.SecretsResource:
		return f.Secrets().Informer(), true
	case client.ServiceAccountsResource:
		return f.ServiceAccounts().Informer(), true
	case client.PersistentVolumesResource:
		return f.PersistentVolumes().Informer(), true
	case client.PersistentVolumeClaimsResource:
		return f.PersistentVolumeClaims().Informer(), true
	case client.ResourceQuotasResource:
		return f.ResourceQuotas().Informer(), true
	case client.LimitRangesResource:
		return f.LimitRanges().Informer(), true
	case client.EventsResource:
		return f.Events().Informer(), true
	case client.ReplicationControllersResource:
		return f.ReplicationControllers().Informer(), true
	case client.DeploymentsResource:
		return f.Deployments().Informer(), true
	case client.ReplicaSetsResource:
		return f.ReplicaSets().Informer(), true
	case client.StatefulSetsResource:
		return f.StatefulSets().Informer(), true
	case client.DaemonSetsResource:
		return f.DaemonSets().Informer(), true
	case client.ControllerRevisionsResource:
		return f.ControllerRevisions().Informer(), true
	case client.JobsResource:
		return f.Jobs().Informer(), true
	case client.CronJobsResource:
		return f.CronJobs().Informer(), true
	case client.HorizontalPodAutoscalersResource:
		return f.HorizontalPodAutoscalers().Informer(), true
	case client.LeasesResource:
		return f.Leases().Informer(), true
	case client.EndpointSlicesResource:
		return f.EndpointSlices().Informer(), true
	case client.EventsV1EventsResource:
		return f.EventsV1Events().Informer(), true
	case client.IngressesResource:
		return f.Ingresses().Informer(), true
	case client.IngressClassesResource:
		return f.IngressClasses().Informer(), true
	case client.NetworkPoliciesResource:
		return f.NetworkPolicies().Informer(), true
	case client.PodDisruptionBudgetsResource:
		return f.PodDisruptionBudgets().Informer(), true
	case client.RolesResource:
		return f.Roles().Informer(), true
	case client.ClusterRolesResource:
		return f.ClusterRoles().Informer(), true
	case client.RoleBindingsResource:
		return f.RoleBindings().Informer(), true
	case client.ClusterRoleBindingsResource:
		return f.ClusterRoleBindings().Informer(), true
	case client.StorageClassesResource:
		return f.StorageClasses().Informer(), true
	case client.PriorityClassesResource:
		return f.PriorityClasses().Informer(), true
	case client.CertificateSigningRequestsResource:
		return f.CertificateSigningRequests().Informer(), true
	}
	return nil, false
}
