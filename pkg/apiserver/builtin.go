package apiserver

import (
	"strconv"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
)

// builtinResources is every kind kplane serves, with the names, short names
// and scopes `kubectl api-resources` shows on a real cluster.
func builtinResources() []*resource {
	workload := func(r *resource) *resource {
		r.hasStatus, r.tracksGeneration, r.clearStatusOnCreate = true, true, true
		r.categories = []string{"all"}
		return r
	}
	return []*resource{
		// core/v1
		{version: "v1", kind: "Namespace", plural: "namespaces", singular: "namespace", shortNames: []string{"ns"},
			newObject: func() api.Object { return &api.Namespace{} }, hasStatus: true,
			selectableFields: []string{"status.phase"},
			fieldsOf: func(o api.Object) map[string]string {
				return map[string]string{"status.phase": string(o.(*api.Namespace).Status.Phase)}
			}},
		{version: "v1", kind: "Node", plural: "nodes", singular: "node", shortNames: []string{"no"},
			newObject: func() api.Object { return &api.Node{} }, hasStatus: true,
			selectableFields: []string{"spec.unschedulable"},
			fieldsOf: func(o api.Object) map[string]string {
				return map[string]string{"spec.unschedulable": strconv.FormatBool(o.(*api.Node).Spec.Unschedulable)}
			}},
		{version: "v1", kind: "Pod", plural: "pods", singular: "pod", shortNames: []string{"po"}, namespaced: true,
			categories: []string{"all"}, newObject: func() api.Object { return &api.Pod{} }, hasStatus: true,
			returnDeletedObject: true,
			selectableFields: []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
				"spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"},
			fieldsOf: podFields},
		{version: "v1", kind: "Service", plural: "services", singular: "service", shortNames: []string{"svc"}, namespaced: true,
			categories: []string{"all"}, newObject: func() api.Object { return &api.Service{} }, hasStatus: true,
			clearStatusOnCreate: true,
			selectableFields:    []string{"spec.clusterIP", "spec.type"},
			fieldsOf: func(o api.Object) map[string]string {
				s := o.(*api.Service)
				return map[string]string{"spec.clusterIP": s.Spec.ClusterIP, "spec.type": string(s.Spec.Type)}
			}},
		{version: "v1", kind: "Endpoints", plural: "endpoints", singular: "endpoints", shortNames: []string{"ep"}, namespaced: true,
			newObject: func() api.Object { return &api.Endpoints{} }, allowCreateOnUpdate: true},
		{version: "v1", kind: "ConfigMap", plural: "configmaps", singular: "configmap", shortNames: []string{"cm"}, namespaced: true,
			newObject: func() api.Object { return &api.ConfigMap{} }},
		{version: "v1", kind: "Secret", plural: "secrets", singular: "secret", namespaced: true,
			newObject: func() api.Object { return &api.Secret{} }, selectableFields: []string{"type"},
			fieldsOf: func(o api.Object) map[string]string {
				return map[string]string{"type": string(o.(*api.Secret).Type)}
			}},
		{version: "v1", kind: "ServiceAccount", plural: "serviceaccounts", singular: "serviceaccount", shortNames: []string{"sa"}, namespaced: true,
			newObject: func() api.Object { return &api.ServiceAccount{} }},
		{version: "v1", kind: "PersistentVolume", plural: "persistentvolumes", singular: "persistentvolume", shortNames: []string{"pv"},
			newObject: func() api.Object { return &api.PersistentVolume{} }, hasStatus: true, clearStatusOnCreate: true},
		{version: "v1", kind: "PersistentVolumeClaim", plural: "persistentvolumeclaims", singular: "persistentvolumeclaim", shortNames: []string{"pvc"}, namespaced: true,
			newObject: func() api.Object { return &api.PersistentVolumeClaim{} }, hasStatus: true, clearStatusOnCreate: true},
		{version: "v1", kind: "ResourceQuota", plural: "resourcequotas", singular: "resourcequota", shortNames: []string{"quota"}, namespaced: true,
			newObject: func() api.Object { return &api.ResourceQuota{} }, hasStatus: true, clearStatusOnCreate: true},
		{version: "v1", kind: "LimitRange", plural: "limitranges", singular: "limitrange", shortNames: []string{"limits"}, namespaced: true,
			newObject: func() api.Object { return &api.LimitRange{} }},
		{version: "v1", kind: "Event", plural: "events", singular: "event", shortNames: []string{"ev"}, namespaced: true,
			newObject: func() api.Object { return &api.Event{} }, allowCreateOnUpdate: true,
			selectableFields: []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
				"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
				"involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"},
			fieldsOf: eventFields},
		workload(&resource{version: "v1", kind: "ReplicationController", plural: "replicationcontrollers", singular: "replicationcontroller",
			shortNames: []string{"rc"}, namespaced: true, newObject: func() api.Object { return &api.ReplicationController{} },
			scale: replicationControllerScale, selectableFields: []string{"status.replicas"},
			fieldsOf: func(o api.Object) map[string]string {
				return map[string]string{"status.replicas": strconv.Itoa(int(o.(*api.ReplicationController).Status.Replicas))}
			}}),

		// apps/v1
		workload(&resource{group: "apps", version: "v1", kind: "Deployment", plural: "deployments", singular: "deployment",
			shortNames: []string{"deploy"}, namespaced: true, newObject: func() api.Object { return &api.Deployment{} },
			scale: deploymentScale}),
		workload(&resource{group: "apps", version: "v1", kind: "ReplicaSet", plural: "replicasets", singular: "replicaset",
			shortNames: []string{"rs"}, namespaced: true, newObject: func() api.Object { return &api.ReplicaSet{} },
			scale: replicaSetScale, selectableFields: []string{"status.replicas"},
			fieldsOf: func(o api.Object) map[string]string {
				return map[string]string{"status.replicas": strconv.Itoa(int(o.(*api.ReplicaSet).Status.Replicas))}
			}}),
		workload(&resource{group: "apps", version: "v1", kind: "StatefulSet", plural: "statefulsets", singular: "statefulset",
			shortNames: []string{"sts"}, namespaced: true, newObject: func() api.Object { return &api.StatefulSet{} },
			scale: statefulSetScale}),
		workload(&resource{group: "apps", version: "v1", kind: "DaemonSet", plural: "daemonsets", singular: "daemonset",
			shortNames: []string{"ds"}, namespaced: true, newObject: func() api.Object { return &api.DaemonSet{} }}),
		{group: "apps", version: "v1", kind: "ControllerRevision", plural: "controllerrevisions", singular: "controllerrevision",
			namespaced: true, newObject: func() api.Object { return &api.ControllerRevision{} }},

		// events.k8s.io/v1: the core/v1 Events above, read and written in
		// their newer shape (conversion.go). Field selectors take the new
		// field names, as upstream's.
		{group: "events.k8s.io", version: "v1", kind: "Event", plural: "events", singular: "event", shortNames: []string{"ev"},
			namespaced: true, newObject: func() api.Object { return &api.EventsV1Event{} }, allowCreateOnUpdate: true,
			conversion: eventsV1Conversion,
			selectableFields: []string{"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid",
				"regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath", "reason",
				"reportingController", "source", "type"},
			fieldsOf: eventsV1Fields},

		// autoscaling/v2
		{group: "autoscaling", version: "v2", kind: "HorizontalPodAutoscaler", plural: "horizontalpodautoscalers",
			singular: "horizontalpodautoscaler", shortNames: []string{"hpa"}, namespaced: true, categories: []string{"all"},
			newObject: func() api.Object { return &api.HorizontalPodAutoscaler{} }, hasStatus: true, clearStatusOnCreate: true},
		// autoscaling/v1: the v2 HPAs above in their older shape, the CPU
		// target in a field and the rest in annotations (conversion.go).
		// Listed after v2, so discovery prefers v2 as upstream's does.
		{group: "autoscaling", version: "v1", kind: "HorizontalPodAutoscaler", plural: "horizontalpodautoscalers",
			singular: "horizontalpodautoscaler", shortNames: []string{"hpa"}, namespaced: true, categories: []string{"all"},
			newObject: func() api.Object { return &api.HorizontalPodAutoscalerV1{} }, hasStatus: true, clearStatusOnCreate: true,
			conversion: hpaV1Conversion},

		// batch/v1
		workload(&resource{group: "batch", version: "v1", kind: "Job", plural: "jobs", singular: "job", namespaced: true,
			newObject: func() api.Object { return &api.Job{} }, selectableFields: []string{"status.successful"},
			fieldsOf: func(o api.Object) map[string]string {
				return map[string]string{"status.successful": strconv.Itoa(int(o.(*api.Job).Status.Succeeded))}
			}}),
		workload(&resource{group: "batch", version: "v1", kind: "CronJob", plural: "cronjobs", singular: "cronjob",
			shortNames: []string{"cj"}, namespaced: true, newObject: func() api.Object { return &api.CronJob{} }}),

		// certificates.k8s.io/v1: requests for certificates, approved
		// through /approval and signed through /status (certificates.go).
		{group: "certificates.k8s.io", version: "v1", kind: "CertificateSigningRequest", plural: "certificatesigningrequests",
			singular: "certificatesigningrequest", shortNames: []string{"csr"},
			newObject: func() api.Object { return &api.CertificateSigningRequest{} }, hasStatus: true, clearStatusOnCreate: true},

		// coordination.k8s.io/v1
		{group: "coordination.k8s.io", version: "v1", kind: "Lease", plural: "leases", singular: "lease", namespaced: true,
			newObject: func() api.Object { return &api.Lease{} }, allowCreateOnUpdate: true},

		// discovery.k8s.io/v1. Generation counts changes to anything but
		// metadata (and to the labels), as upstream's strategy does: the
		// endpointslice controller compares it to spot a stale cache.
		{group: "discovery.k8s.io", version: "v1", kind: "EndpointSlice", plural: "endpointslices", singular: "endpointslice",
			namespaced: true, newObject: func() api.Object { return &api.EndpointSlice{} }, tracksGeneration: true},

		// networking.k8s.io/v1. Stored, defaulted and validated; no ingress
		// controller or network plugin acts on them yet.
		{group: "networking.k8s.io", version: "v1", kind: "Ingress", plural: "ingresses", singular: "ingress",
			shortNames: []string{"ing"}, namespaced: true, newObject: func() api.Object { return &api.Ingress{} },
			hasStatus: true, tracksGeneration: true, clearStatusOnCreate: true},
		{group: "networking.k8s.io", version: "v1", kind: "IngressClass", plural: "ingressclasses", singular: "ingressclass",
			newObject: func() api.Object { return &api.IngressClass{} }, tracksGeneration: true},
		{group: "networking.k8s.io", version: "v1", kind: "NetworkPolicy", plural: "networkpolicies", singular: "networkpolicy",
			shortNames: []string{"netpol"}, namespaced: true, newObject: func() api.Object { return &api.NetworkPolicy{} },
			tracksGeneration: true},

		// policy/v1. The disruption controller keeps the budget's status;
		// pods/eviction (eviction.go) honours it.
		{group: "policy", version: "v1", kind: "PodDisruptionBudget", plural: "poddisruptionbudgets", singular: "poddisruptionbudget",
			shortNames: []string{"pdb"}, namespaced: true, newObject: func() api.Object { return &api.PodDisruptionBudget{} },
			hasStatus: true, tracksGeneration: true, clearStatusOnCreate: true},

		// core/v1 ComponentStatus: read-only, probed on every read, never
		// stored (componentstatus.go).
		{version: "v1", kind: "ComponentStatus", plural: "componentstatuses", singular: "componentstatus", shortNames: []string{"cs"},
			newObject: func() api.Object { return &api.ComponentStatus{} }, probed: true},

		// authentication.k8s.io/v1 and authorization.k8s.io/v1: the reviews,
		// questions answered at once and never stored (tokenreview.go,
		// accessreview.go).
		{group: "authentication.k8s.io", version: "v1", kind: "SelfSubjectReview", newObject: func() api.Object { return &api.SelfSubjectReview{} }, plural: "selfsubjectreviews", singular: "selfsubjectreview", createOnly: true},
		{group: "authentication.k8s.io", version: "v1", kind: "TokenReview", newObject: func() api.Object { return &api.TokenReview{} }, plural: "tokenreviews", singular: "tokenreview", createOnly: true},
		{group: "authorization.k8s.io", version: "v1", kind: "LocalSubjectAccessReview", newObject: func() api.Object { return &api.LocalSubjectAccessReview{} }, plural: "localsubjectaccessreviews", singular: "localsubjectaccessreview", namespaced: true, createOnly: true},
		{group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectAccessReview", newObject: func() api.Object { return &api.SelfSubjectAccessReview{} }, plural: "selfsubjectaccessreviews", singular: "selfsubjectaccessreview", createOnly: true},
		{group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectRulesReview", newObject: func() api.Object { return &api.SelfSubjectRulesReview{} }, plural: "selfsubjectrulesreviews", singular: "selfsubjectrulesreview", createOnly: true},
		{group: "authorization.k8s.io", version: "v1", kind: "SubjectAccessReview", newObject: func() api.Object { return &api.SubjectAccessReview{} }, plural: "subjectaccessreviews", singular: "subjectaccessreview", createOnly: true},

		// rbac.authorization.k8s.io/v1
		{group: "rbac.authorization.k8s.io", version: "v1", kind: "Role", plural: "roles", singular: "role", namespaced: true,
			newObject: func() api.Object { return &api.Role{} }},
		{group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", plural: "clusterroles", singular: "clusterrole",
			newObject: func() api.Object { return &api.ClusterRole{} }},
		{group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBinding", plural: "rolebindings", singular: "rolebinding", namespaced: true,
			newObject: func() api.Object { return &api.RoleBinding{} }},
		{group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", singular: "clusterrolebinding",
			newObject: func() api.Object { return &api.ClusterRoleBinding{} }},

		// storage.k8s.io/v1
		{group: "storage.k8s.io", version: "v1", kind: "StorageClass", plural: "storageclasses", singular: "storageclass",
			shortNames: []string{"sc"}, newObject: func() api.Object { return &api.StorageClass{} }},

		// scheduling.k8s.io/v1. The apiserver creates the system classes at
		// start and refuses to delete them (priorityclass.go); the Priority
		// admission plugin resolves pods' classes (admission_priority.go).
		{group: "scheduling.k8s.io", version: "v1", kind: "PriorityClass", plural: "priorityclasses", singular: "priorityclass",
			shortNames: []string{"pc"}, newObject: func() api.Object { return &api.PriorityClass{} }},

		// apiregistration.k8s.io/v1: the aggregation layer's registrations
		// (aggregator.go).
		{group: "apiregistration.k8s.io", version: "v1", kind: "APIService", plural: "apiservices", singular: "apiservice",
			newObject: func() api.Object { return &api.APIService{} }, hasStatus: true},

		// apiextensions.k8s.io/v1: CustomResourceDefinitions, stored under
		// upstream's keys; the resources they define are added while the
		// server runs (crd_*.go).
		{group: api.APIExtensionsGroupName, version: "v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions",
			singular: "customresourcedefinition", shortNames: []string{"crd", "crds"}, categories: []string{"api-extensions"},
			etcdResource: api.APIExtensionsGroupName + "/customresourcedefinitions",
			newObject:    func() api.Object { return &api.CustomResourceDefinition{} },
			hasStatus:    true, tracksGeneration: true, clearStatusOnCreate: true},
	}
}

func podFields(o api.Object) map[string]string {
	p := o.(*api.Pod)
	return map[string]string{
		"spec.nodeName":            p.Spec.NodeName,
		"spec.restartPolicy":       string(p.Spec.RestartPolicy),
		"spec.schedulerName":       p.Spec.SchedulerName,
		"spec.serviceAccountName":  p.Spec.ServiceAccountName,
		"spec.hostNetwork":         strconv.FormatBool(p.Spec.HostNetwork),
		"status.phase":             string(p.Status.Phase),
		"status.podIP":             p.Status.PodIP,
		"status.nominatedNodeName": p.Status.NominatedNodeName,
	}
}

func eventFields(o api.Object) map[string]string {
	e := o.(*api.Event)
	return map[string]string{
		"involvedObject.kind":            e.InvolvedObject.Kind,
		"involvedObject.namespace":       e.InvolvedObject.Namespace,
		"involvedObject.name":            e.InvolvedObject.Name,
		"involvedObject.uid":             e.InvolvedObject.UID,
		"involvedObject.apiVersion":      e.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       e.InvolvedObject.FieldPath,
		"reason":                         e.Reason,
		"reportingComponent":             e.ReportingController,
		"source":                         e.Source.Component,
		"type":                           e.Type,
	}
}

// eventsV1Fields are the selectable fields of an events.k8s.io/v1 Event.
// "source" is the deprecated source's component, or the reporting
// controller when the event has none, as upstream.
func eventsV1Fields(o api.Object) map[string]string {
	e := o.(*api.EventsV1Event)
	source := e.DeprecatedSource.Component
	if source == "" {
		source = e.ReportingController
	}
	return map[string]string{
		"regarding.kind":            e.Regarding.Kind,
		"regarding.namespace":       e.Regarding.Namespace,
		"regarding.name":            e.Regarding.Name,
		"regarding.uid":             e.Regarding.UID,
		"regarding.apiVersion":      e.Regarding.APIVersion,
		"regarding.resourceVersion": e.Regarding.ResourceVersion,
		"regarding.fieldPath":       e.Regarding.FieldPath,
		"reason":                    e.Reason,
		"reportingController":       e.ReportingController,
		"source":                    source,
		"type":                      e.Type,
	}
}

// scaleAccess reads and writes the replica count and selector of a kind that
// serves the scale subresource, so one handler serves them all.
type scaleAccess struct {
	get func(obj api.Object) (specReplicas, statusReplicas int32, selector *api.LabelSelector)
	set func(obj api.Object, replicas int32)
	// selectorText, when set, reads status.selector as the string the
	// object holds (a custom resource's labelSelectorPath) instead of
	// formatting get's LabelSelector.
	selectorText func(obj api.Object) string
}

func replicasOrOne(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

var deploymentScale = &scaleAccess{
	get: func(o api.Object) (int32, int32, *api.LabelSelector) {
		d := o.(*api.Deployment)
		return replicasOrOne(d.Spec.Replicas), d.Status.Replicas, d.Spec.Selector
	},
	set: func(o api.Object, n int32) { o.(*api.Deployment).Spec.Replicas = &n },
}

var replicaSetScale = &scaleAccess{
	get: func(o api.Object) (int32, int32, *api.LabelSelector) {
		r := o.(*api.ReplicaSet)
		return replicasOrOne(r.Spec.Replicas), r.Status.Replicas, r.Spec.Selector
	},
	set: func(o api.Object, n int32) { o.(*api.ReplicaSet).Spec.Replicas = &n },
}

var statefulSetScale = &scaleAccess{
	get: func(o api.Object) (int32, int32, *api.LabelSelector) {
		s := o.(*api.StatefulSet)
		return replicasOrOne(s.Spec.Replicas), s.Status.Replicas, s.Spec.Selector
	},
	set: func(o api.Object, n int32) { o.(*api.StatefulSet).Spec.Replicas = &n },
}

var replicationControllerScale = &scaleAccess{
	get: func(o api.Object) (int32, int32, *api.LabelSelector) {
		r := o.(*api.ReplicationController)
		return replicasOrOne(r.Spec.Replicas), r.Status.Replicas, &api.LabelSelector{MatchLabels: r.Spec.Selector}
	},
	set: func(o api.Object, n int32) { o.(*api.ReplicationController).Spec.Replicas = &n },
}

// selectorString renders a label selector the way the Scale status carries it.
func selectorString(ls *api.LabelSelector) string {
	if ls == nil {
		return ""
	}
	sel, err := labels.FromLabelSelector(ls)
	if err != nil {
		return ""
	}
	return sel.String()
}
