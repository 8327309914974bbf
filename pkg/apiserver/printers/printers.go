package printers

import (
	"slices"
	"time"

	"kplane/pkg/api"
)

// Columns returns the column definitions of the Table for a kind ("Pod",
// "Deployment", …), in the order Cells fills them. Kinds without a printer of
// their own (LimitRange, Role, ClusterRole, and any kind kplane does not
// know) get upstream's default table: NAME and CREATED AT.
//
// The slice is the caller's to keep or change.
func Columns(kind string) []api.TableColumnDefinition {
	columns, ok := columnsByKind[kind]
	if !ok {
		columns = defaultColumns
	}
	return slices.Clone(columns)
}

// Cells returns one object's cells, in the order of Columns for its kind,
// including the -o wide columns (the apiserver always sends them; kubectl
// hides those of priority above 0 unless asked). now is the time ages are
// measured against.
func Cells(obj api.Object, now time.Time) []any {
	switch o := obj.(type) {
	case *api.Pod:
		return podCells(o, now)
	case *api.Namespace:
		return namespaceCells(o, now)
	case *api.ComponentStatus:
		return componentStatusCells(o)
	case *api.Node:
		return nodeCells(o, now)
	case *api.Service:
		return serviceCells(o, now)
	case *api.Endpoints:
		return endpointsCells(o, now)
	case *api.ConfigMap:
		return configMapCells(o, now)
	case *api.Secret:
		return secretCells(o, now)
	case *api.ServiceAccount:
		return serviceAccountCells(o, now)
	case *api.PersistentVolume:
		return persistentVolumeCells(o, now)
	case *api.PersistentVolumeClaim:
		return persistentVolumeClaimCells(o, now)
	case *api.ResourceQuota:
		return resourceQuotaCells(o, now)
	case *api.Event:
		return eventCells(o, now)
	case *api.ReplicationController:
		return replicationControllerCells(o, now)
	case *api.Deployment:
		return deploymentCells(o, now)
	case *api.ReplicaSet:
		return replicaSetCells(o, now)
	case *api.StatefulSet:
		return statefulSetCells(o, now)
	case *api.DaemonSet:
		return daemonSetCells(o, now)
	case *api.ControllerRevision:
		return controllerRevisionCells(o, now)
	case *api.Job:
		return jobCells(o, now)
	case *api.CronJob:
		return cronJobCells(o, now)
	case *api.HorizontalPodAutoscaler:
		return horizontalPodAutoscalerCells(o, now)
	case *api.HorizontalPodAutoscalerV1:
		// The same columns from the v2 form, as upstream prints both.
		return horizontalPodAutoscalerCells(o.ToV2(), now)
	case *api.Lease:
		return leaseCells(o, now)
	case *api.EndpointSlice:
		return endpointSliceCells(o, now)
	case *api.EventsV1Event:
		// The same columns as core/v1's: upstream prints both from the
		// one stored form.
		return eventCells(o.ToCore(), now)
	case *api.Ingress:
		return ingressCells(o, now)
	case *api.IngressClass:
		return ingressClassCells(o, now)
	case *api.NetworkPolicy:
		return networkPolicyCells(o, now)
	case *api.PodDisruptionBudget:
		return podDisruptionBudgetCells(o, now)
	case *api.RoleBinding:
		return roleBindingCells(&o.ObjectMeta, o.RoleRef, o.Subjects, now)
	case *api.ClusterRoleBinding:
		return roleBindingCells(&o.ObjectMeta, o.RoleRef, o.Subjects, now)
	case *api.StorageClass:
		return storageClassCells(o, now)
	case *api.PriorityClass:
		return priorityClassCells(o, now)
	case *api.APIService:
		return apiServiceCells(o, now)
	case *api.CertificateSigningRequest:
		return certificateSigningRequestCells(o, now)
	}
	return defaultCells(obj)
}

// Row returns one object's row of a Table as the apiserver sends it by
// default (includeObject=Metadata, as upstream): its cells, and its
// metadata as a PartialObjectMetadata, from which kubectl takes the
// NAMESPACE column of -A and the LABELS of --show-labels.
func Row(obj api.Object, now time.Time) api.TableRow {
	return api.TableRow{
		Cells: Cells(obj, now),
		Object: &api.PartialObjectMetadata{
			TypeMeta:   api.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
			ObjectMeta: *obj.GetObjectMeta(),
		},
	}
}

// columnsByKind holds the columns of every kind with a printer of its own.
// Cells must have a case for each of them; a test checks the two agree.
var columnsByKind = map[string][]api.TableColumnDefinition{
	"Pod":                       podColumns,
	"CertificateSigningRequest": certificateSigningRequestColumns,
	"Namespace":                 namespaceColumns,
	"ComponentStatus":           componentStatusColumns,
	"Node":                      nodeColumns,
	"Service":                   serviceColumns,
	"Endpoints":                 endpointsColumns,
	"ConfigMap":                 configMapColumns,
	"Secret":                    secretColumns,
	"ServiceAccount":            serviceAccountColumns,
	"PersistentVolume":          persistentVolumeColumns,
	"PersistentVolumeClaim":     persistentVolumeClaimColumns,
	"ResourceQuota":             resourceQuotaColumns,
	"Event":                     eventColumns,
	"ReplicationController":     replicationControllerColumns,
	"Deployment":                deploymentColumns,
	"ReplicaSet":                replicaSetColumns,
	"StatefulSet":               statefulSetColumns,
	"DaemonSet":                 daemonSetColumns,
	"ControllerRevision":        controllerRevisionColumns,
	"Job":                       jobColumns,
	"CronJob":                   cronJobColumns,
	"HorizontalPodAutoscaler":   horizontalPodAutoscalerColumns,
	"Lease":                     leaseColumns,
	"EndpointSlice":             endpointSliceColumns,
	"Ingress":                   ingressColumns,
	"IngressClass":              ingressClassColumns,
	"NetworkPolicy":             networkPolicyColumns,
	"APIService":                apiServiceColumns,
	"PodDisruptionBudget":       podDisruptionBudgetColumns,
	"RoleBinding":               roleBindingColumns,
	"ClusterRoleBinding":        roleBindingColumns,
	"StorageClass":              storageClassColumns,
	"PriorityClass":             priorityClassColumns,
}

// defaultColumns is upstream's default table (rest.NewDefaultTableConvertor),
// which the apiserver uses for kinds without a printer.
var defaultColumns = []api.TableColumnDefinition{
	nameColumn,
	{Name: "Created At", Type: "date", Description: "When the object was created."},
}

// defaultCells fills the default table: the name and the creation time in
// UTC, RFC 3339 (not an age: this is what `kubectl get role` shows).
func defaultCells(obj api.Object) []any {
	meta := obj.GetObjectMeta()
	return []any{meta.Name, meta.CreationTimestamp.UTC().Format(time.RFC3339)}
}

// The columns nearly every kind has. Column names are written as upstream
// writes them ("Up-to-date", "Nominated Node"); kubectl upper-cases them.
var (
	nameColumn = api.TableColumnDefinition{Name: "Name", Type: "string", Format: "name",
		Description: "The object's name, unique within its namespace (or the cluster)."}
	ageColumn = api.TableColumnDefinition{Name: "Age", Type: "string",
		Description: "How long ago the object was created."}
)

// text defines a column of string cells.
func text(name, description string) api.TableColumnDefinition {
	return api.TableColumnDefinition{Name: name, Type: "string", Description: description}
}

// integer defines a column of integer cells.
func integer(name, description string) api.TableColumnDefinition {
	return api.TableColumnDefinition{Name: name, Type: "integer", Description: description}
}

// wide marks a column as shown only with `kubectl get -o wide` (priority 1).
func wide(c api.TableColumnDefinition) api.TableColumnDefinition {
	c.Priority = 1
	return c
}
