package validation

import (
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
)

// kindCase is one table entry: a manifest, a change to it, and the errors
// ValidateCreate must then report.
type kindCase struct {
	name   string
	doc    string
	mutate func(obj api.Object)
	want   []fieldErr
}

func runKindCases(t *testing.T, cases []kindCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			obj := decode[api.Object](t, tt.doc)
			if tt.mutate != nil {
				tt.mutate(obj)
			}
			expectFields(t, ValidateCreate(obj), tt.want...)
		})
	}
}

const (
	namespaceDoc = `{apiVersion: v1, kind: Namespace, metadata: {name: team-a}}`
	nodeDoc      = `{apiVersion: v1, kind: Node, metadata: {name: node1}, spec: {podCIDR: 10.244.1.0/24, taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]}}`
	configMapDoc = `{apiVersion: v1, kind: ConfigMap, metadata: {name: game}, data: {game.properties: "lives=3", ui_color: blue}}`
	secretDoc    = `{apiVersion: v1, kind: Secret, metadata: {name: creds}, type: Opaque, data: {password: cGFzcw==}}`
	pvDoc        = `{apiVersion: v1, kind: PersistentVolume, metadata: {name: pv001}, spec: {accessModes: [ReadWriteOnce], capacity: {storage: 1Gi}, hostPath: {path: /tmp/pv001}}}`
	pvcDoc       = `{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}`
	leaseDoc     = `{apiVersion: coordination.k8s.io/v1, kind: Lease, metadata: {name: kube-scheduler, namespace: kube-system}, spec: {holderIdentity: master_2e05, leaseDurationSeconds: 15, leaseTransitions: 20, acquireTime: "2024-10-23T01:09:42.290683Z", renewTime: "2024-10-23T07:11:53.457442Z"}}`
	hpaDoc       = `{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: web}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, minReplicas: 1, maxReplicas: 10, metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]}}`
	eventDoc     = `{apiVersion: v1, kind: Event, metadata: {name: web.17a8b5c1a2b3c4d5}, involvedObject: {kind: Pod, name: web, namespace: default}, reason: Scheduled, message: "Successfully assigned default/web to node1", type: Normal, source: {component: default-scheduler}}`
	roleDoc      = `{apiVersion: rbac.authorization.k8s.io/v1, kind: Role, metadata: {name: pod-reader}, rules: [{apiGroups: [""], resources: [pods], verbs: [get, list, watch]}]}`
	bindingDoc   = `{apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, metadata: {name: read-pods}, subjects: [{kind: User, name: jane}, {kind: ServiceAccount, name: default}], roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}}`
	crbDoc       = `{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRoleBinding, metadata: {name: "system:kube-scheduler"}, subjects: [{kind: User, name: "system:kube-scheduler"}], roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:kube-scheduler"}}`
	quotaDoc     = `{apiVersion: v1, kind: ResourceQuota, metadata: {name: compute}, spec: {hard: {pods: "10", requests.cpu: "4", limits.memory: 8Gi, count/deployments.apps: "5"}}}`
	limitsDoc    = `{apiVersion: v1, kind: LimitRange, metadata: {name: limits}, spec: {limits: [{type: Container, min: {cpu: 100m}, max: {cpu: "2"}, default: {cpu: 500m}, defaultRequest: {cpu: 200m}}]}}`
)

func TestValidateClusterScopedKinds(t *testing.T) {
	runKindCases(t, []kindCase{
		{"namespace", namespaceDoc, nil, nil},
		{"namespace name with dots", namespaceDoc, func(o api.Object) { o.GetObjectMeta().Name = "team.a" }, []fieldErr{{invalid, "metadata.name"}}},
		{"namespace with a namespace", namespaceDoc, func(o api.Object) { o.GetObjectMeta().Namespace = "default" }, []fieldErr{{forbidden, "metadata.namespace"}}},
		{"namespace bad finalizer", namespaceDoc, func(o api.Object) { o.(*api.Namespace).Spec.Finalizers = []string{"cleanup"} },
			[]fieldErr{{invalid, "spec.finalizers"}}},
		{"node", nodeDoc, nil, nil},
		{"node bad CIDR", nodeDoc, func(o api.Object) { o.(*api.Node).Spec.PodCIDR = "10.244.1.0" }, []fieldErr{{invalid, "spec.podCIDR"}}},
		{"node taint without effect", nodeDoc, func(o api.Object) { o.(*api.Node).Spec.Taints[0].Effect = "" }, []fieldErr{{required, "spec.taints[0].effect"}}},
		{"node duplicate taint", nodeDoc, func(o api.Object) {
			n := o.(*api.Node)
			n.Spec.Taints = append(n.Spec.Taints, n.Spec.Taints[0])
		}, []fieldErr{{duplicate, "spec.taints[1]"}}},
		{"pv", pvDoc, nil, nil},
		{"pv without capacity", pvDoc, func(o api.Object) { o.(*api.PersistentVolume).Spec.Capacity = nil }, []fieldErr{{required, "spec.capacity"}}},
		{"pv with cpu capacity", pvDoc, func(o api.Object) {
			o.(*api.PersistentVolume).Spec.Capacity["cpu"] = api.MustParseQuantity("1")
		}, []fieldErr{{notSupported, "spec.capacity"}}},
		{"pv zero capacity", pvDoc, func(o api.Object) { o.(*api.PersistentVolume).Spec.Capacity["storage"] = api.MustParseQuantity("0") },
			[]fieldErr{{invalid, "spec.capacity[storage]"}}},
		{"pv without access modes", pvDoc, func(o api.Object) { o.(*api.PersistentVolume).Spec.AccessModes = nil }, []fieldErr{{required, "spec.accessModes"}}},
		{"pv bad access mode", pvDoc, func(o api.Object) {
			o.(*api.PersistentVolume).Spec.AccessModes = []api.PersistentVolumeAccessMode{"ReadWriteAll"}
		},
			[]fieldErr{{notSupported, "spec.accessModes"}}},
		{"pv without source", pvDoc, func(o api.Object) { o.(*api.PersistentVolume).Spec.HostPath = nil }, []fieldErr{{required, "spec"}}},
		{"pv with two sources", pvDoc, func(o api.Object) {
			o.(*api.PersistentVolume).Spec.NFS = &api.NFSVolumeSource{Server: "nfs", Path: "/export"}
		}, []fieldErr{{forbidden, "spec.nfs"}}},
		{"pv hostPath without path", pvDoc, func(o api.Object) { o.(*api.PersistentVolume).Spec.HostPath.Path = "" }, []fieldErr{{required, "spec.hostPath.path"}}},
		{"cluster role binding", crbDoc, nil, nil},
		{"cluster role binding to a Role", crbDoc, func(o api.Object) { o.(*api.ClusterRoleBinding).RoleRef.Kind = "Role" },
			[]fieldErr{{notSupported, "roleRef.kind"}}},
		{"cluster role binding SA without namespace", crbDoc, func(o api.Object) {
			o.(*api.ClusterRoleBinding).Subjects = []api.Subject{{Kind: "ServiceAccount", Name: "default"}}
		}, []fieldErr{{required, "subjects[0].namespace"}}},
	})
}

func TestValidateNamespacedKinds(t *testing.T) {
	runKindCases(t, []kindCase{
		{"configmap", configMapDoc, nil, nil},
		{"configmap bad key", configMapDoc, func(o api.Object) { o.(*api.ConfigMap).Data["a/b"] = "x" }, []fieldErr{{invalid, "data[a/b]"}}},
		{"configmap key in both maps", configMapDoc, func(o api.Object) { o.(*api.ConfigMap).BinaryData = map[string][]byte{"ui_color": {1}} },
			[]fieldErr{{invalid, "binaryData[ui_color]"}}},
		{"configmap over 1MiB", configMapDoc, func(o api.Object) { o.(*api.ConfigMap).Data["big"] = strings.Repeat("x", MaxConfigSize) },
			[]fieldErr{{tooLongType, "data"}}},
		{"secret", secretDoc, nil, nil},
		{"secret bad key", secretDoc, func(o api.Object) { o.(*api.Secret).Data[".."] = nil }, []fieldErr{{invalid, "data[..]"}}},
		{"tls secret without key", secretDoc, func(o api.Object) {
			s := o.(*api.Secret)
			s.Type = api.SecretTypeTLS
			s.Data = map[string][]byte{"tls.crt": []byte("cert")}
		}, []fieldErr{{required, "data[tls.key]"}}},
		{"pvc", pvcDoc, nil, nil},
		{"pvc without access modes", pvcDoc, func(o api.Object) { o.(*api.PersistentVolumeClaim).Spec.AccessModes = nil },
			[]fieldErr{{required, "spec.accessModes"}}},
		{"pvc without storage", pvcDoc, func(o api.Object) { o.(*api.PersistentVolumeClaim).Spec.Resources.Requests = nil },
			[]fieldErr{{required, "spec.resources.requests[storage]"}}},
		{"lease", leaseDoc, nil, nil},
		{"lease zero duration", leaseDoc, func(o api.Object) { o.(*api.Lease).Spec.LeaseDurationSeconds = int32Ptr(0) },
			[]fieldErr{{invalid, "spec.leaseDurationSeconds"}}},
		{"lease negative transitions", leaseDoc, func(o api.Object) { o.(*api.Lease).Spec.LeaseTransitions = int32Ptr(-1) },
			[]fieldErr{{invalid, "spec.leaseTransitions"}}},
		{"hpa", hpaDoc, nil, nil},
		{"hpa without target name", hpaDoc, func(o api.Object) { o.(*api.HorizontalPodAutoscaler).Spec.ScaleTargetRef.Name = "" },
			[]fieldErr{{required, "spec.scaleTargetRef.name"}}},
		{"hpa without target kind", hpaDoc, func(o api.Object) { o.(*api.HorizontalPodAutoscaler).Spec.ScaleTargetRef.Kind = "" },
			[]fieldErr{{required, "spec.scaleTargetRef.kind"}}},
		{"hpa minReplicas 0", hpaDoc, func(o api.Object) { o.(*api.HorizontalPodAutoscaler).Spec.MinReplicas = int32Ptr(0) },
			[]fieldErr{{invalid, "spec.minReplicas"}}},
		{"hpa max below min", hpaDoc, func(o api.Object) { o.(*api.HorizontalPodAutoscaler).Spec.MinReplicas = int32Ptr(11) },
			[]fieldErr{{invalid, "spec.maxReplicas"}}},
		{"hpa max 0", hpaDoc, func(o api.Object) {
			h := o.(*api.HorizontalPodAutoscaler)
			h.Spec.MaxReplicas = 0
			h.Spec.MinReplicas = nil
		}, []fieldErr{{invalid, "spec.maxReplicas"}}},
		{"hpa utilization 0", hpaDoc, func(o api.Object) {
			o.(*api.HorizontalPodAutoscaler).Spec.Metrics[0].Resource.Target.AverageUtilization = int32Ptr(0)
		}, []fieldErr{{invalid, "spec.metrics[0].resource.target.averageUtilization"}}},
		{"hpa metric of the wrong member", hpaDoc, func(o api.Object) { o.(*api.HorizontalPodAutoscaler).Spec.Metrics[0].Type = api.PodsMetricSourceType },
			[]fieldErr{{required, "spec.metrics[0].pods"}, {forbidden, "spec.metrics[0].resource"}}},
		{"hpa scale-down rules without policies", hpaDoc, func(o api.Object) {
			o.(*api.HorizontalPodAutoscaler).Spec.Behavior = &api.HorizontalPodAutoscalerBehavior{
				ScaleDown: &api.HPAScalingRules{Policies: []api.HPAScalingPolicy{}}}
		}, []fieldErr{{required, "spec.behavior.scaleDown.policies"}}},
		{"event", eventDoc, nil, nil},
		{"event about a node in default", eventDoc, func(o api.Object) {
			o.(*api.Event).InvolvedObject = api.ObjectReference{Kind: "Node", Name: "node1"}
		}, nil},
		{"event namespace mismatch", eventDoc, func(o api.Object) { o.(*api.Event).InvolvedObject.Namespace = "kube-system" },
			[]fieldErr{{invalid, "involvedObject.namespace"}}},
		{"new-style event without reporter", eventDoc, func(o api.Object) {
			o.(*api.Event).EventTime = api.MicroTime{Time: time.Date(2024, 10, 23, 1, 9, 42, 0, time.UTC)}
		}, []fieldErr{{required, "reportingComponent"}, {required, "reportingInstance"}, {required, "action"}}},
		{"role", roleDoc, nil, nil},
		{"role rule without verbs", roleDoc, func(o api.Object) { o.(*api.Role).Rules[0].Verbs = nil }, []fieldErr{{required, "rules[0].verbs"}}},
		{"role with non-resource URL", roleDoc, func(o api.Object) {
			o.(*api.Role).Rules = []api.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}}
		}, []fieldErr{{invalid, "rules[0].nonResourceURLs"}}},
		{"role name with slash", roleDoc, func(o api.Object) { o.GetObjectMeta().Name = "pod/reader" }, []fieldErr{{invalid, "metadata.name"}}},
		{"rolebinding", bindingDoc, nil, nil},
		{"rolebinding without roleRef name", bindingDoc, func(o api.Object) { o.(*api.RoleBinding).RoleRef.Name = "" },
			[]fieldErr{{required, "roleRef.name"}}},
		{"rolebinding bad subject kind", bindingDoc, func(o api.Object) { o.(*api.RoleBinding).Subjects[0].Kind = "Robot" },
			[]fieldErr{{notSupported, "subjects[0].kind"}}},
		{"quota", quotaDoc, nil, nil},
		{"quota unknown resource", quotaDoc, func(o api.Object) { o.(*api.ResourceQuota).Spec.Hard["gpus"] = api.MustParseQuantity("1") },
			[]fieldErr{{invalid, "spec.hard[gpus]"}}},
		{"quota negative", quotaDoc, func(o api.Object) { o.(*api.ResourceQuota).Spec.Hard["pods"] = api.MustParseQuantity("-1") },
			[]fieldErr{{invalid, "spec.hard[pods]"}}},
		{"quota fractional pods", quotaDoc, func(o api.Object) { o.(*api.ResourceQuota).Spec.Hard["pods"] = api.MustParseQuantity("1500m") },
			[]fieldErr{{invalid, "spec.hard[pods]"}}},
		{"quota BestEffort scope on cpu", quotaDoc, func(o api.Object) {
			o.(*api.ResourceQuota).Spec.Scopes = []api.ResourceQuotaScope{api.ResourceQuotaScopeBestEffort}
		}, []fieldErr{{invalid, "spec.scopes"}}},
		{"quota NotTerminating scope on pods and compute", quotaDoc, func(o api.Object) {
			delete(o.(*api.ResourceQuota).Spec.Hard, "count/deployments.apps")
			o.(*api.ResourceQuota).Spec.Scopes = []api.ResourceQuotaScope{api.ResourceQuotaScopeNotTerminating}
		}, nil},
		{"limitrange", limitsDoc, nil, nil},
		{"limitrange min above max", limitsDoc, func(o api.Object) { o.(*api.LimitRange).Spec.Limits[0].Min["cpu"] = api.MustParseQuantity("3") },
			[]fieldErr{{invalid, "spec.limits[0].min[cpu]"}, {invalid, "spec.limits[0].defaultRequest[cpu]"}, {invalid, "spec.limits[0].default[cpu]"}}},
		{"limitrange default above max", limitsDoc, func(o api.Object) { o.(*api.LimitRange).Spec.Limits[0].Default["cpu"] = api.MustParseQuantity("4") },
			[]fieldErr{{invalid, "spec.limits[0].default[cpu]"}}},
		{"limitrange duplicate type", limitsDoc, func(o api.Object) {
			lr := o.(*api.LimitRange)
			lr.Spec.Limits = append(lr.Spec.Limits, api.LimitRangeItem{Type: api.LimitTypeContainer})
		}, []fieldErr{{duplicate, "spec.limits[1].type"}}},
		{"limitrange pod default", limitsDoc, func(o api.Object) {
			lr := o.(*api.LimitRange)
			lr.Spec.Limits = append(lr.Spec.Limits, api.LimitRangeItem{Type: api.LimitTypePod, Default: api.ResourceList{"cpu": api.MustParseQuantity("1")}})
		}, []fieldErr{{forbidden, "spec.limits[1].default"}}},
		{"limitrange ratio above max/min", limitsDoc, func(o api.Object) {
			o.(*api.LimitRange).Spec.Limits[0].MaxLimitRequestRatio = api.ResourceList{"cpu": api.MustParseQuantity("30")}
		}, []fieldErr{{invalid, "spec.limits[0].maxLimitRequestRatio[cpu]"}}},
		{"limitrange ratio within max/min", limitsDoc, func(o api.Object) {
			o.(*api.LimitRange).Spec.Limits[0].MaxLimitRequestRatio = api.ResourceList{"cpu": api.MustParseQuantity("20")}
		}, nil},
		{"limitrange extended resource overcommitted by default", limitsDoc, func(o api.Object) {
			item := &o.(*api.LimitRange).Spec.Limits[0]
			item.Default["example.com/gpu"] = api.MustParseQuantity("2")
			item.DefaultRequest["example.com/gpu"] = api.MustParseQuantity("1")
		}, []fieldErr{{invalid, "spec.limits[0].defaultRequest[example.com/gpu]"}}},
	})
}

func TestValidateUpdatesOfOtherKinds(t *testing.T) {
	yes := true
	tests := []struct {
		name   string
		doc    string
		mutate func(obj, old api.Object)
		want   []fieldErr
	}{
		{"immutable configmap data", configMapDoc, func(obj, old api.Object) {
			old.(*api.ConfigMap).Immutable = &yes
			obj.(*api.ConfigMap).Immutable = &yes
			obj.(*api.ConfigMap).Data["ui_color"] = "red"
		}, []fieldErr{{forbidden, "data"}}},
		{"configmap immutability removed", configMapDoc, func(obj, old api.Object) { old.(*api.ConfigMap).Immutable = &yes },
			[]fieldErr{{forbidden, "immutable"}}},
		{"mutable configmap data", configMapDoc, func(obj, old api.Object) { obj.(*api.ConfigMap).Data["ui_color"] = "red" }, nil},
		{"secret type", secretDoc, func(obj, old api.Object) {
			obj.(*api.Secret).Type = api.SecretTypeBasicAuth
			obj.(*api.Secret).Data["username"] = []byte("u")
		}, []fieldErr{{invalid, "type"}}},
		{"pv claimRef set by the binder", pvDoc, func(obj, old api.Object) {
			obj.(*api.PersistentVolume).Spec.ClaimRef = &api.ObjectReference{Namespace: "default", Name: "vol-ng-headless-0"}
		}, nil},
		{"pv source changed", pvDoc, func(obj, old api.Object) { obj.(*api.PersistentVolume).Spec.HostPath.Path = "/tmp/other" },
			[]fieldErr{{forbidden, "spec.persistentvolumesource"}}},
		{"pvc volumeName set by the binder", pvcDoc, func(obj, old api.Object) { obj.(*api.PersistentVolumeClaim).Spec.VolumeName = "pv001" }, nil},
		{"pvc volumeName changed", pvcDoc, func(obj, old api.Object) {
			old.(*api.PersistentVolumeClaim).Spec.VolumeName = "pv001"
			obj.(*api.PersistentVolumeClaim).Spec.VolumeName = "pv002"
		}, []fieldErr{{forbidden, "spec"}}},
		{"pvc access modes changed", pvcDoc, func(obj, old api.Object) {
			obj.(*api.PersistentVolumeClaim).Spec.AccessModes = []api.PersistentVolumeAccessMode{api.ReadWriteMany}
		}, []fieldErr{{forbidden, "spec"}}},
		{"bound pvc grows", pvcDoc, func(obj, old api.Object) {
			old.(*api.PersistentVolumeClaim).Status.Phase = api.ClaimBound
			obj.(*api.PersistentVolumeClaim).Spec.Resources.Requests["storage"] = api.MustParseQuantity("2Gi")
		}, nil},
		{"bound pvc shrinks", pvcDoc, func(obj, old api.Object) {
			old.(*api.PersistentVolumeClaim).Status.Phase = api.ClaimBound
			obj.(*api.PersistentVolumeClaim).Spec.Resources.Requests["storage"] = api.MustParseQuantity("512Mi")
		}, []fieldErr{{forbidden, "spec.resources.requests.storage"}}},
		{"rolebinding roleRef changed", bindingDoc, func(obj, old api.Object) { obj.(*api.RoleBinding).RoleRef.Name = "admin" },
			[]fieldErr{{invalid, "roleRef"}}},
		{"rolebinding subjects changed", bindingDoc, func(obj, old api.Object) {
			b := obj.(*api.RoleBinding)
			b.Subjects = b.Subjects[:1]
		}, nil},
		{"node podCIDR changed", nodeDoc, func(obj, old api.Object) { obj.(*api.Node).Spec.PodCIDR = "10.244.2.0/24" },
			[]fieldErr{{forbidden, "spec.podCIDR"}}},
		{"node cordoned", nodeDoc, func(obj, old api.Object) { obj.(*api.Node).Spec.Unschedulable = true }, nil},
		{"lease renewed", leaseDoc, func(obj, old api.Object) {
			obj.(*api.Lease).Spec.RenewTime = &api.MicroTime{Time: time.Now()}
		}, nil},
		{"service account keeps its name", `{apiVersion: v1, kind: ServiceAccount, metadata: {name: default}}`,
			func(obj, old api.Object) { obj.GetObjectMeta().Name = "other" }, []fieldErr{{invalid, "metadata.name"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := asStored(decode[api.Object](t, tt.doc))
			obj := asStored(old)
			tt.mutate(obj, old)
			expectFields(t, ValidateUpdate(obj, old), tt.want...)
		})
	}
}

func TestValidateUpdateRejectsKindChange(t *testing.T) {
	pod := asStored(decode[*api.Pod](t, basePod))
	svc := asStored(decode[*api.Service](t, baseService))
	expectMessages(t, ValidateUpdate(pod, svc), `kind: Invalid value: "Pod": may not change from Service`)
}

// unknownKind is an Object that ValidateCreate has no rules for.
type unknownKind struct {
	api.TypeMeta
	api.ObjectMeta
}

func TestValidateCreateUnknownKindChecksMetadataOnly(t *testing.T) {
	obj := &unknownKind{ObjectMeta: api.ObjectMeta{Name: "Bad_Name", Namespace: "default", Labels: map[string]string{"ok": "yes"}}}
	expectFields(t, ValidateCreate(obj), fieldErr{invalid, "metadata.name"})
	obj.Namespace = ""
	obj.Name = "fine"
	expectFields(t, ValidateCreate(obj))
}
