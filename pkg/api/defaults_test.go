package api

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// decodeJSON builds an object from a JSON literal, failing the test on error.
func decodeJSON[T any](t *testing.T, s string) *T {
	t.Helper()
	obj := new(T)
	if err := json.Unmarshal([]byte(s), obj); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return obj
}

// assertJSON compares obj's JSON encoding with want, both normalised.
func assertJSON(t *testing.T, what string, obj any, want string) {
	t.Helper()
	got, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	_ = json.Unmarshal(got, &g)
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation for %s: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got  %s\n want %s", what, got, want)
	}
}

// assertIdempotent checks that defaulting an already-defaulted object changes nothing.
func assertIdempotent(t *testing.T, obj Object) {
	t.Helper()
	once, _ := json.Marshal(obj)
	SetDefaults(obj)
	twice, _ := json.Marshal(obj)
	if string(once) != string(twice) {
		t.Errorf("defaulting twice changed the object:\n once  %s\n twice %s", once, twice)
	}
}

func TestSetDefaultsPod(t *testing.T) {
	pod := decodeJSON[Pod](t, `{
		"metadata": {"name": "p"},
		"spec": {
			"containers": [{
				"name": "web", "image": "nginx",
				"ports": [{"containerPort": 80}],
				"resources": {"limits": {"cpu": "0.5", "memory": "128Mi"}, "requests": {"memory": "64Mi"}},
				"livenessProbe": {"httpGet": {"port": 80}},
				"readinessProbe": {"grpc": {"port": 9000}, "periodSeconds": 5},
				"env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]
			}],
			"volumes": [
				{"name": "a"},
				{"name": "b", "configMap": {"name": "cm"}},
				{"name": "c", "secret": {"secretName": "s"}},
				{"name": "d", "hostPath": {"path": "/tmp"}},
				{"name": "e", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}
			]
		}}`)
	SetDefaults(pod)
	assertJSON(t, "pod", pod, `{
		"metadata": {"name": "p", "creationTimestamp": null},
		"spec": {
			"containers": [{
				"name": "web", "image": "nginx", "imagePullPolicy": "Always",
				"ports": [{"containerPort": 80, "protocol": "TCP"}],
				"resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": "500m", "memory": "64Mi"}},
				"livenessProbe": {"httpGet": {"path": "/", "port": 80, "scheme": "HTTP"},
					"timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
				"readinessProbe": {"grpc": {"port": 9000, "service": ""},
					"timeoutSeconds": 1, "periodSeconds": 5, "successThreshold": 1, "failureThreshold": 3},
				"env": [{"name": "N", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
				"terminationMessagePath": "/dev/termination-log",
				"terminationMessagePolicy": "File"
			}],
			"volumes": [
				{"name": "a", "emptyDir": {}},
				{"name": "b", "configMap": {"name": "cm", "defaultMode": 420}},
				{"name": "c", "secret": {"secretName": "s", "defaultMode": 420}},
				{"name": "d", "hostPath": {"path": "/tmp", "type": ""}},
				{"name": "e", "projected": {"defaultMode": 420, "sources": [{"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}}]}}
			],
			"restartPolicy": "Always",
			"terminationGracePeriodSeconds": 30,
			"dnsPolicy": "ClusterFirst",
			"securityContext": {},
			"schedulerName": "default-scheduler",
			"enableServiceLinks": true
		},
		"status": {}}`)
	assertIdempotent(t, pod)
}

func TestSetDefaultsPodKeepsExplicitValues(t *testing.T) {
	pod := decodeJSON[Pod](t, `{"spec": {
		"restartPolicy": "Never", "dnsPolicy": "Default", "terminationGracePeriodSeconds": 0,
		"schedulerName": "mine", "enableServiceLinks": false, "serviceAccount": "builder",
		"containers": [{"name": "c", "image": "x", "imagePullPolicy": "Never",
			"terminationMessagePolicy": "FallbackToLogsOnError"}]}}`)
	SetDefaults(pod)
	s := pod.Spec
	if s.RestartPolicy != RestartPolicyNever || s.DNSPolicy != DNSDefault || *s.TerminationGracePeriodSeconds != 0 ||
		s.SchedulerName != "mine" || *s.EnableServiceLinks || s.Containers[0].ImagePullPolicy != PullNever ||
		s.Containers[0].TerminationMessagePolicy != TerminationMessageFallbackToLogsOnError {
		t.Errorf("explicit values overwritten: %+v", s)
	}
	// The deprecated serviceAccount field fills serviceAccountName.
	if s.ServiceAccountName != "builder" || s.DeprecatedServiceAccount != "builder" {
		t.Errorf("serviceAccountName = %q, serviceAccount = %q", s.ServiceAccountName, s.DeprecatedServiceAccount)
	}
}

func TestSetDefaultsPodHostNetwork(t *testing.T) {
	pod := decodeJSON[Pod](t, `{"spec": {"hostNetwork": true,
		"containers": [{"name": "c", "image": "x", "ports": [{"containerPort": 53}, {"containerPort": 80, "hostPort": 8080}]}]}}`)
	SetDefaults(pod)
	ports := pod.Spec.Containers[0].Ports
	if ports[0].HostPort != 53 || ports[1].HostPort != 8080 {
		t.Errorf("host ports = %d, %d; want 53, 8080", ports[0].HostPort, ports[1].HostPort)
	}
}

func TestDefaultPullPolicy(t *testing.T) {
	tests := []struct {
		image string
		want  PullPolicy
	}{
		{"nginx", PullAlways},
		{"nginx:latest", PullAlways},
		{"nginx:1.27.0", PullIfNotPresent},
		{"registry:5000/nginx", PullAlways},
		{"registry:5000/nginx:1.0", PullIfNotPresent},
		{"registry:5000/team/nginx:latest", PullAlways},
		{"nginx@sha256:abc", PullIfNotPresent},
		{"nginx:latest@sha256:abc", PullIfNotPresent},
		{"", PullAlways},
	}
	for _, tt := range tests {
		if got := defaultPullPolicy(tt.image); got != tt.want {
			t.Errorf("defaultPullPolicy(%q) = %s, want %s", tt.image, got, tt.want)
		}
	}
}

func TestSetDefaultsDeployment(t *testing.T) {
	d := decodeJSON[Deployment](t, `{"metadata": {"name": "ng-dep"}, "spec": {
		"selector": {"matchLabels": {"dep": "ng-dep-pod"}},
		"template": {"metadata": {"labels": {"dep": "ng-dep-pod"}},
			"spec": {"containers": [{"name": "ng-c-dep", "image": "nginx", "ports": [{"containerPort": 80}]}]}}}}`)
	SetDefaults(d)
	assertJSON(t, "deployment spec", d.Spec, `{
		"replicas": 1,
		"selector": {"matchLabels": {"dep": "ng-dep-pod"}},
		"template": {"metadata": {"creationTimestamp": null, "labels": {"dep": "ng-dep-pod"}},
			"spec": {
				"containers": [{"name": "ng-c-dep", "image": "nginx", "imagePullPolicy": "Always",
					"ports": [{"containerPort": 80, "protocol": "TCP"}], "resources": {},
					"terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}],
				"dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "schedulerName": "default-scheduler",
				"securityContext": {}, "terminationGracePeriodSeconds": 30}},
		"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
		"revisionHistoryLimit": 10,
		"progressDeadlineSeconds": 600}`)
	assertIdempotent(t, d)

	// Recreate gets no rollingUpdate block; explicit values survive.
	r := decodeJSON[Deployment](t, `{"spec": {"replicas": 0, "strategy": {"type": "Recreate"}, "revisionHistoryLimit": 2}}`)
	SetDefaults(r)
	if *r.Spec.Replicas != 0 || r.Spec.Strategy.RollingUpdate != nil || *r.Spec.RevisionHistoryLimit != 2 {
		t.Errorf("Recreate deployment defaulted wrongly: %+v", r.Spec)
	}
}

func TestSetDefaultsReplicaSetAndRC(t *testing.T) {
	rs := decodeJSON[ReplicaSet](t, `{"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}`)
	SetDefaults(rs)
	if *rs.Spec.Replicas != 1 || rs.Spec.Template.Spec.RestartPolicy != RestartPolicyAlways {
		t.Errorf("replicaset: %+v", rs.Spec)
	}

	rc := decodeJSON[ReplicationController](t, `{"spec": {"template": {"metadata": {"labels": {"app": "nginx"}},
		"spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}`)
	SetDefaults(rc)
	if *rc.Spec.Replicas != 1 || rc.Spec.Selector["app"] != "nginx" || rc.Labels["app"] != "nginx" {
		t.Errorf("replicationcontroller: replicas %d selector %v labels %v", *rc.Spec.Replicas, rc.Spec.Selector, rc.Labels)
	}
	rc.Spec.Template.Labels["app"] = "changed"
	if rc.Spec.Selector["app"] != "nginx" {
		t.Error("the defaulted selector shares its map with the template labels")
	}
}

func TestSetDefaultsStatefulSet(t *testing.T) {
	s := decodeJSON[StatefulSet](t, `{"spec": {"serviceName": "ng-headless-svc",
		"selector": {"matchLabels": {"app": "ng-headless"}},
		"template": {"metadata": {"labels": {"app": "ng-headless"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}},
		"volumeClaimTemplates": [{"metadata": {"name": "vol"},
			"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}}`)
	SetDefaults(s)
	spec := s.Spec
	assertJSON(t, "statefulset defaults", map[string]any{
		"replicas": spec.Replicas, "podManagementPolicy": spec.PodManagementPolicy,
		"updateStrategy": spec.UpdateStrategy, "revisionHistoryLimit": spec.RevisionHistoryLimit,
		"persistentVolumeClaimRetentionPolicy": spec.PersistentVolumeClaimRetentionPolicy,
		"volumeClaimTemplates":                 spec.VolumeClaimTemplates,
	}, `{
		"replicas": 1, "podManagementPolicy": "OrderedReady",
		"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
		"revisionHistoryLimit": 10,
		"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
		"volumeClaimTemplates": [{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
			"metadata": {"name": "vol", "creationTimestamp": null},
			"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, "volumeMode": "Filesystem"},
			"status": {"phase": "Pending"}}]}`)
	assertIdempotent(t, s)

	onDelete := decodeJSON[StatefulSet](t, `{"spec": {"updateStrategy": {"type": "OnDelete"}}}`)
	SetDefaults(onDelete)
	if onDelete.Spec.UpdateStrategy.RollingUpdate != nil {
		t.Error("OnDelete statefulset got a rollingUpdate block")
	}
}

func TestSetDefaultsDaemonSet(t *testing.T) {
	ds := decodeJSON[DaemonSet](t, `{"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "nginx:1.27.0"}]}}}}`)
	SetDefaults(ds)
	assertJSON(t, "daemonset strategy", ds.Spec.UpdateStrategy,
		`{"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}`)
	if *ds.Spec.RevisionHistoryLimit != 10 || ds.Spec.Template.Spec.Containers[0].ImagePullPolicy != PullIfNotPresent {
		t.Errorf("daemonset: %+v", ds.Spec)
	}
	// No enableServiceLinks or priority in templates: those are pod-only, as upstream.
	if ds.Spec.Template.Spec.EnableServiceLinks != nil || ds.Spec.Template.Spec.Priority != nil {
		t.Error("pod-only defaults applied to a template")
	}
}

func TestSetDefaultsJob(t *testing.T) {
	tests := []struct {
		name                              string
		spec                              string
		parallelism, completions, backoff *int32
		replacement                       PodReplacementPolicy
	}{
		{"neither set", `{}`, ptrTo(int32(1)), ptrTo(int32(1)), ptrTo(int32(6)), PodReplacementTerminatingOrFailed},
		{"seed job", `{"parallelism": 2, "completions": 5}`, ptrTo(int32(2)), ptrTo(int32(5)), ptrTo(int32(6)), PodReplacementTerminatingOrFailed},
		{"work queue", `{"parallelism": 3}`, ptrTo(int32(3)), nil, ptrTo(int32(6)), PodReplacementTerminatingOrFailed},
		{"completions only", `{"completions": 4}`, ptrTo(int32(1)), ptrTo(int32(4)), ptrTo(int32(6)), PodReplacementTerminatingOrFailed},
		{"per-index backoff", `{"backoffLimitPerIndex": 1, "completionMode": "Indexed", "completions": 2}`,
			ptrTo(int32(1)), ptrTo(int32(2)), ptrTo(int32(math.MaxInt32)), PodReplacementTerminatingOrFailed},
		{"failure policy", `{"podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}}`,
			ptrTo(int32(1)), ptrTo(int32(1)), ptrTo(int32(6)), PodReplacementFailed},
	}
	for _, tt := range tests {
		job := decodeJSON[Job](t, `{"spec": `+tt.spec+`}`)
		SetDefaults(job)
		s := job.Spec
		if !reflect.DeepEqual(s.Parallelism, tt.parallelism) || !reflect.DeepEqual(s.Completions, tt.completions) ||
			!reflect.DeepEqual(s.BackoffLimit, tt.backoff) || *s.PodReplacementPolicy != tt.replacement {
			t.Errorf("%s: parallelism %v completions %v backoff %v replacement %v", tt.name,
				deref(s.Parallelism), deref(s.Completions), deref(s.BackoffLimit), *s.PodReplacementPolicy)
		}
		if s.Suspend == nil || *s.Suspend || s.CompletionMode == nil || s.ManualSelector != nil {
			t.Errorf("%s: suspend %v completionMode %v manualSelector %v", tt.name, s.Suspend, s.CompletionMode, s.ManualSelector)
		}
		if s.PodFailurePolicy != nil && s.PodFailurePolicy.Rules[0].OnPodConditions[0].Status != ConditionTrue {
			t.Errorf("%s: pod condition pattern status not defaulted to True", tt.name)
		}
	}
	labelled := decodeJSON[Job](t, `{"spec": {"template": {"metadata": {"labels": {"app": "pi"}}}}}`)
	SetDefaults(labelled)
	if labelled.Labels["app"] != "pi" {
		t.Errorf("job labels not defaulted from the template: %v", labelled.Labels)
	}
}

// deref prints an *int32 for failure messages.
func deref(p *int32) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestSetDefaultsCronJob(t *testing.T) {
	cj := decodeJSON[CronJob](t, `{"spec": {"schedule": "*/1 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
		"containers": [{"name": "hello", "image": "busybox:1.28"}], "restartPolicy": "OnFailure"}}}}}}`)
	SetDefaults(cj)
	s := cj.Spec
	if s.ConcurrencyPolicy != AllowConcurrent || *s.Suspend || *s.SuccessfulJobsHistoryLimit != 3 || *s.FailedJobsHistoryLimit != 1 {
		t.Errorf("cronjob: %+v", s)
	}
	if s.JobTemplate.Spec.Template.Spec.SchedulerName != DefaultSchedulerName {
		t.Error("cronjob pod template not defaulted")
	}
	if s.JobTemplate.Spec.BackoffLimit != nil {
		t.Error("cronjob job template got Job defaults; upstream leaves them to Job creation")
	}
}

func TestSetDefaultsService(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"headless with selector (seed)",
			`{"ports": [{"port": 80}], "clusterIP": "None", "selector": {"app": "nginx-ss"}}`,
			`{"ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}], "clusterIP": "None", "selector": {"app": "nginx-ss"},
			  "type": "ClusterIP", "sessionAffinity": "None", "internalTrafficPolicy": "Cluster",
			  "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack"}`},
		{"named target port kept",
			`{"ports": [{"name": "http", "port": 8080, "targetPort": "web"}], "selector": {"app": "x"}}`,
			`{"ports": [{"name": "http", "port": 8080, "protocol": "TCP", "targetPort": "web"}], "selector": {"app": "x"},
			  "type": "ClusterIP", "sessionAffinity": "None", "internalTrafficPolicy": "Cluster",
			  "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack"}`},
		{"headless without selector",
			`{"clusterIP": "None"}`,
			`{"clusterIP": "None", "type": "ClusterIP", "sessionAffinity": "None", "internalTrafficPolicy": "Cluster",
			  "ipFamilies": ["IPv4", "IPv6"], "ipFamilyPolicy": "RequireDualStack"}`},
		{"node port",
			`{"type": "NodePort", "ports": [{"port": 80, "protocol": "UDP"}]}`,
			`{"type": "NodePort", "ports": [{"port": 80, "protocol": "UDP", "targetPort": 80}], "sessionAffinity": "None",
			  "externalTrafficPolicy": "Cluster", "internalTrafficPolicy": "Cluster",
			  "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack"}`},
		{"load balancer with client IP affinity",
			`{"type": "LoadBalancer", "sessionAffinity": "ClientIP"}`,
			`{"type": "LoadBalancer", "sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}},
			  "externalTrafficPolicy": "Cluster", "internalTrafficPolicy": "Cluster", "allocateLoadBalancerNodePorts": true,
			  "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack"}`},
		{"external name",
			`{"type": "ExternalName", "externalName": "db.example.com"}`,
			`{"type": "ExternalName", "externalName": "db.example.com", "sessionAffinity": "None"}`},
	}
	for _, tt := range tests {
		svc := decodeJSON[Service](t, `{"spec": `+tt.in+`}`)
		SetDefaults(svc)
		assertJSON(t, tt.name, svc.Spec, tt.want)
		assertIdempotent(t, svc)
	}
}

func TestSetDefaultsNamespace(t *testing.T) {
	ns := decodeJSON[Namespace](t, `{"metadata": {"name": "demo"}}`)
	SetDefaults(ns)
	assertJSON(t, "namespace", ns, `{"metadata": {"name": "demo", "creationTimestamp": null,
		"labels": {"kubernetes.io/metadata.name": "demo"}},
		"spec": {}, "status": {"phase": "Active"}}`)
	// The "kubernetes" finalizer is set by the apiserver on create, not by
	// defaulting: defaulting runs on every update, and the namespace
	// controller must be able to clear it.
}

func TestSetDefaultsStorage(t *testing.T) {
	pv := decodeJSON[PersistentVolume](t, `{"spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"},
		"hostPath": {"path": "/tmp/pv001"}}}`)
	SetDefaults(pv)
	assertJSON(t, "persistent volume", pv, `{"metadata": {"creationTimestamp": null},
		"spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"},
			"hostPath": {"path": "/tmp/pv001", "type": ""},
			"persistentVolumeReclaimPolicy": "Retain", "volumeMode": "Filesystem"},
		"status": {"phase": "Pending"}}`)

	pvc := decodeJSON[PersistentVolumeClaim](t, `{"spec": {"resources": {"requests": {"storage": "1Gi"}}}}`)
	SetDefaults(pvc)
	if *pvc.Spec.VolumeMode != PersistentVolumeFilesystem || pvc.Status.Phase != ClaimPending {
		t.Errorf("claim: %+v", pvc)
	}
}

func TestSetDefaultsSecretNodeLimitRange(t *testing.T) {
	s := &Secret{}
	SetDefaults(s)
	if s.Type != SecretTypeOpaque {
		t.Errorf("secret type = %q", s.Type)
	}

	n := decodeJSON[Node](t, `{"status": {"capacity": {"cpu": "4", "memory": "8Gi"}}}`)
	SetDefaults(n)
	if !n.Status.Allocatable.Cpu().Equal(MustParseQuantity("4")) {
		t.Errorf("node allocatable = %v", n.Status.Allocatable)
	}

	lr := decodeJSON[LimitRange](t, `{"spec": {"limits": [{"type": "Container",
		"max": {"cpu": "2", "memory": "1Gi"}, "min": {"cpu": "100m", "ephemeral-storage": "1Mi"}, "default": {"memory": "512Mi"}}]}}`)
	SetDefaults(lr)
	assertJSON(t, "limit range item", lr.Spec.Limits[0], `{"type": "Container",
		"max": {"cpu": "2", "memory": "1Gi"}, "min": {"cpu": "100m", "ephemeral-storage": "1Mi"},
		"default": {"cpu": "2", "memory": "512Mi"},
		"defaultRequest": {"cpu": "2", "memory": "512Mi", "ephemeral-storage": "1Mi"}}`)
}

func TestSetDefaultsHorizontalPodAutoscaler(t *testing.T) {
	hpa := decodeJSON[HorizontalPodAutoscaler](t, `{"spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5}}`)
	SetDefaults(hpa)
	assertJSON(t, "hpa", hpa.Spec, `{"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "minReplicas": 1, "maxReplicas": 5,
		"metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]}`)

	withBehavior := decodeJSON[HorizontalPodAutoscaler](t, `{"spec": {"maxReplicas": 5, "scaleTargetRef": {"kind": "Deployment", "name": "web"},
		"behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}}`)
	SetDefaults(withBehavior)
	assertJSON(t, "hpa behavior", withBehavior.Spec.Behavior, `{
		"scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
			"policies": [{"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]},
		"scaleDown": {"stabilizationWindowSeconds": 60, "selectPolicy": "Max",
			"policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}}`)
}

func TestSetDefaultsRBAC(t *testing.T) {
	rb := decodeJSON[RoleBinding](t, `{"roleRef": {"kind": "Role", "name": "r"},
		"subjects": [{"kind": "User", "name": "jane"}, {"kind": "ServiceAccount", "name": "sa", "namespace": "default"}]}`)
	SetDefaults(rb)
	if rb.RoleRef.APIGroup != RBACGroupName || rb.Subjects[0].APIGroup != RBACGroupName || rb.Subjects[1].APIGroup != "" {
		t.Errorf("rolebinding: %+v", rb)
	}
}

func TestSetDefaultsRoundsResourceLists(t *testing.T) {
	pod := decodeJSON[Pod](t, `{"spec": {"containers": [{"name": "c", "image": "x",
		"resources": {"requests": {"cpu": "0.0001", "memory": "1.5Gi"}}}]}}`)
	SetDefaults(pod)
	assertJSON(t, "rounded requests", pod.Spec.Containers[0].Resources.Requests, `{"cpu": "1m", "memory": "1536Mi"}`)
}

// stringData is merged into data, over a key of the same name, and never kept.
func TestSecretStringDataMergedIntoData(t *testing.T) {
	s := &Secret{Data: map[string][]byte{"user": []byte("old"), "keep": []byte("k")},
		StringData: map[string]string{"user": "admin", "password": "s3cret"}}
	SetDefaults(s)
	want := map[string]string{"user": "admin", "keep": "k", "password": "s3cret"}
	if len(s.Data) != len(want) || s.StringData != nil {
		t.Fatalf("data %q, stringData %q; want data %q and no stringData", s.Data, s.StringData, want)
	}
	for k, v := range want {
		if string(s.Data[k]) != v {
			t.Errorf("data[%s] = %q, want %q", k, s.Data[k], v)
		}
	}
}

// A PriorityClass's pods may preempt unless the class says Never.
func TestSetDefaultsPriorityClass(t *testing.T) {
	class := decodeJSON[PriorityClass](t, `{"metadata": {"name": "high"}, "value": 1000}`)
	SetDefaults(class)
	assertJSON(t, "priority class", class, `{"metadata": {"name": "high", "creationTimestamp": null},
		"value": 1000, "preemptionPolicy": "PreemptLowerPriority"}`)
	assertIdempotent(t, class)

	never := decodeJSON[PriorityClass](t, `{"metadata": {"name": "batch"}, "value": 10, "preemptionPolicy": "Never"}`)
	SetDefaults(never)
	if *never.PreemptionPolicy != PreemptNever {
		t.Errorf("preemptionPolicy = %s, want Never kept", *never.PreemptionPolicy)
	}
}

// A pod's priority comes from its PriorityClass at admission, so
// defaulting leaves it, and the preemption policy, unset.
func TestSetDefaultsLeavesPodPriorityToAdmission(t *testing.T) {
	pod := decodeJSON[Pod](t, `{"spec": {"priorityClassName": "high", "containers": [{"name": "c", "image": "x"}]}}`)
	SetDefaults(pod)
	if pod.Spec.Priority != nil || pod.Spec.PreemptionPolicy != nil {
		t.Errorf("priority %v, preemptionPolicy %v; want both unset", pod.Spec.Priority, pod.Spec.PreemptionPolicy)
	}
}
