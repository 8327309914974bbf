package validation

import (
	"fmt"
	"reflect"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// ValidateCreate checks an object about to be created and returns every
// problem found; an empty list means the object may be stored. It expects
// defaulting to have run (as the apiserver's admission chain does) but
// accepts fields that defaulting would fill. For kinds it does not know it
// checks the metadata only.
func ValidateCreate(obj api.Object) errors.FieldErrorList {
	switch o := obj.(type) {
	case *api.Pod:
		return validatePod(o)
	case *api.Service:
		return validateService(o)
	case *api.Endpoints:
		return validateEndpoints(o)
	case *api.Namespace:
		return validateNamespace(o)
	case *api.Node:
		return validateNode(o)
	case *api.ConfigMap:
		return validateConfigMap(o)
	case *api.Secret:
		return validateSecret(o)
	case *api.ServiceAccount:
		return validateServiceAccount(o)
	case *api.PersistentVolume:
		return validatePersistentVolume(o)
	case *api.PersistentVolumeClaim:
		return validatePersistentVolumeClaim(o)
	case *api.ResourceQuota:
		return validateResourceQuota(o)
	case *api.LimitRange:
		return validateLimitRange(o)
	case *api.Event:
		return validateEvent(o)
	case *api.EventsV1Event:
		return validateEventsV1Event(o)
	case *api.HorizontalPodAutoscalerV1:
		return validateHorizontalPodAutoscalerV1(o)
	case *api.ReplicationController:
		return validateReplicationController(o)
	case *api.Deployment:
		return validateDeployment(o)
	case *api.ReplicaSet:
		return validateReplicaSet(o)
	case *api.StatefulSet:
		return validateStatefulSet(o)
	case *api.DaemonSet:
		return validateDaemonSet(o)
	case *api.ControllerRevision:
		return validateControllerRevision(o)
	case *api.Job:
		return validateJob(o)
	case *api.CronJob:
		return validateCronJob(o)
	case *api.HorizontalPodAutoscaler:
		return validateHorizontalPodAutoscaler(o)
	case *api.Lease:
		return validateLease(o)
	case *api.StorageClass:
		return validateStorageClass(o)
	case *api.PriorityClass:
		return validatePriorityClass(o)
	case *api.EndpointSlice:
		return validateEndpointSlice(o)
	case *api.Ingress:
		return validateIngress(o)
	case *api.IngressClass:
		return validateIngressClass(o)
	case *api.NetworkPolicy:
		return validateNetworkPolicy(o)
	case *api.PodDisruptionBudget:
		return validatePodDisruptionBudget(o)
	case *api.Role:
		return validateRole(o)
	case *api.ClusterRole:
		return validateClusterRole(o)
	case *api.RoleBinding:
		return validateRoleBinding(o)
	case *api.ClusterRoleBinding:
		return validateClusterRoleBinding(o)
	case *api.APIService:
		return validateAPIService(o)
	case *api.CustomResourceDefinition:
		return validateCustomResourceDefinition(o)
	}
	meta := obj.GetObjectMeta()
	// Without knowing the kind's scope, a namespace is checked if present
	// and not demanded if absent.
	return ValidateObjectMeta(meta, meta.Namespace != "", NameIsDNSSubdomain, "metadata")
}

// ValidateUpdate checks obj as a replacement for the stored old: everything
// ValidateCreate checks except the name (fixed at creation), plus each
// kind's rules about what may change. obj and old must be the same kind.
//
// The caller (the registry) is expected to have done what upstream's
// rest.BeforeUpdate does first: carry over uid, creationTimestamp,
// deletionTimestamp and generation from old, and the allocated clusterIP of
// a Service.
func ValidateUpdate(obj, old api.Object) errors.FieldErrorList {
	if reflect.TypeOf(obj) != reflect.TypeOf(old) {
		return errors.FieldErrorList{errors.Invalid("kind", kindOf(obj), fmt.Sprintf("may not change from %s", kindOf(old)))}
	}
	switch o := obj.(type) {
	case *api.Pod:
		return validatePodUpdate(o, old.(*api.Pod))
	case *api.Service:
		return validateServiceUpdate(o, old.(*api.Service))
	case *api.Endpoints:
		allErrs := ValidateObjectMetaUpdate(&o.ObjectMeta, &old.(*api.Endpoints).ObjectMeta, "metadata")
		return append(allErrs, validateEndpointSubsets(o.Subsets)...)
	case *api.Namespace:
		return validateNamespaceUpdate(o, old.(*api.Namespace))
	case *api.Node:
		return validateNodeUpdate(o, old.(*api.Node))
	case *api.ConfigMap:
		return validateConfigMapUpdate(o, old.(*api.ConfigMap))
	case *api.Secret:
		return validateSecretUpdate(o, old.(*api.Secret))
	case *api.PersistentVolume:
		return validatePersistentVolumeUpdate(o, old.(*api.PersistentVolume))
	case *api.PersistentVolumeClaim:
		return validatePersistentVolumeClaimUpdate(o, old.(*api.PersistentVolumeClaim))
	case *api.ResourceQuota:
		return validateResourceQuotaUpdate(o, old.(*api.ResourceQuota))
	case *api.LimitRange:
		return validateLimitRangeUpdate(o, old.(*api.LimitRange))
	case *api.Event:
		return validateEventUpdate(o, old.(*api.Event))
	case *api.EventsV1Event:
		return validateEventsV1EventUpdate(o, old.(*api.EventsV1Event))
	case *api.HorizontalPodAutoscalerV1:
		return validateHorizontalPodAutoscalerV1Update(o, old.(*api.HorizontalPodAutoscalerV1))
	case *api.ReplicationController:
		return validateReplicationControllerUpdate(o, old.(*api.ReplicationController))
	case *api.Deployment:
		return validateDeploymentUpdate(o, old.(*api.Deployment))
	case *api.ReplicaSet:
		return validateReplicaSetUpdate(o, old.(*api.ReplicaSet))
	case *api.StatefulSet:
		return validateStatefulSetUpdate(o, old.(*api.StatefulSet))
	case *api.DaemonSet:
		return validateDaemonSetUpdate(o, old.(*api.DaemonSet))
	case *api.ControllerRevision:
		return validateControllerRevisionUpdate(o, old.(*api.ControllerRevision))
	case *api.Job:
		return validateJobUpdate(o, old.(*api.Job))
	case *api.CronJob:
		return validateCronJobUpdate(o, old.(*api.CronJob))
	case *api.HorizontalPodAutoscaler:
		return validateHorizontalPodAutoscalerUpdate(o, old.(*api.HorizontalPodAutoscaler))
	case *api.Lease:
		return validateLeaseUpdate(o, old.(*api.Lease))
	case *api.StorageClass:
		return validateStorageClassUpdate(o, old.(*api.StorageClass))
	case *api.PriorityClass:
		return validatePriorityClassUpdate(o, old.(*api.PriorityClass))
	case *api.EndpointSlice:
		return validateEndpointSliceUpdate(o, old.(*api.EndpointSlice))
	case *api.Ingress:
		return validateIngressUpdate(o, old.(*api.Ingress))
	case *api.IngressClass:
		return validateIngressClassUpdate(o, old.(*api.IngressClass))
	case *api.NetworkPolicy:
		return validateNetworkPolicyUpdate(o, old.(*api.NetworkPolicy))
	case *api.PodDisruptionBudget:
		return validatePodDisruptionBudgetUpdate(o, old.(*api.PodDisruptionBudget))
	case *api.Role:
		return validateRoleUpdate(o, old.(*api.Role))
	case *api.ClusterRole:
		return validateClusterRoleUpdate(o, old.(*api.ClusterRole))
	case *api.RoleBinding:
		return validateRoleBindingUpdate(o, old.(*api.RoleBinding))
	case *api.ClusterRoleBinding:
		return validateClusterRoleBindingUpdate(o, old.(*api.ClusterRoleBinding))
	case *api.APIService:
		return validateAPIServiceUpdate(o, old.(*api.APIService))
	case *api.CustomResourceDefinition:
		return validateCustomResourceDefinitionUpdate(o, old.(*api.CustomResourceDefinition))
	}
	return ValidateObjectMetaUpdate(obj.GetObjectMeta(), old.GetObjectMeta(), "metadata")
}

// kindOf names an object's kind for messages: its TypeMeta kind, or its Go
// type when that is empty.
func kindOf(obj api.Object) string {
	if kind := obj.GetTypeMeta().Kind; kind != "" {
		return kind
	}
	return reflect.TypeOf(obj).Elem().Name()
}
