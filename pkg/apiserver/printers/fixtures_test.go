package printers

import (
	"encoding/json"
	"time"

	"kplane/pkg/api"
)

// testNow is the moment every AGE in the tests is measured against.
var testNow = time.Date(2024, 10, 23, 7, 12, 0, 0, time.UTC)

const (
	second = time.Second
	minute = time.Minute
	hour   = time.Hour
	day    = 24 * time.Hour
)

// fixture is one `kubectl get <resource>` listing: objects of one kind in the
// states the seeds show them in, plus a few states the seeds do not reach.
type fixture struct {
	resource string
	kind     string
	objects  []api.Object
}

// meta names an object created age ago.
func meta(name string, age time.Duration) api.ObjectMeta {
	return api.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: api.NewTime(testNow.Add(-age))}
}

func ago(d time.Duration) *api.Time {
	t := api.NewTime(testNow.Add(-d))
	return &t
}

func ptr[T any](v T) *T { return &v }

func qty(s string) api.Quantity { return api.MustParseQuantity(s) }

func fixtures() []fixture {
	return []fixture{
		{"pods", "Pod", podFixtures()},
		{"namespaces", "Namespace", namespaceFixtures()},
		{"nodes", "Node", nodeFixtures()},
		{"services", "Service", serviceFixtures()},
		{"endpoints", "Endpoints", endpointsFixtures()},
		{"endpointslices", "EndpointSlice", endpointSliceFixtures()},
		{"configmaps", "ConfigMap", []api.Object{
			&api.ConfigMap{ObjectMeta: meta("kube-root-ca.crt", 32*day), Data: map[string]string{"ca.crt": "…"}},
			&api.ConfigMap{ObjectMeta: meta("nginx-conf", 3*minute), Data: map[string]string{"nginx.conf": "…", "mime.types": "…"},
				BinaryData: map[string][]byte{"favicon.ico": {0}}},
		}},
		{"secrets", "Secret", []api.Object{
			&api.Secret{ObjectMeta: meta("db-password", 2*hour), Type: api.SecretTypeOpaque, Data: map[string][]byte{"password": []byte("x")}},
			&api.Secret{ObjectMeta: meta("web-tls", 6*day), Type: api.SecretTypeTLS,
				Data: map[string][]byte{"tls.crt": nil, "tls.key": nil}},
		}},
		{"serviceaccounts", "ServiceAccount", []api.Object{
			&api.ServiceAccount{ObjectMeta: meta("default", 32*day)},
			&api.ServiceAccount{ObjectMeta: meta("builder", 5*day), Secrets: []api.ObjectReference{{Name: "builder-token"}}},
		}},
		{"persistentvolumes", "PersistentVolume", persistentVolumeFixtures()},
		{"persistentvolumeclaims", "PersistentVolumeClaim", persistentVolumeClaimFixtures()},
		{"resourcequotas", "ResourceQuota", []api.Object{
			&api.ResourceQuota{ObjectMeta: meta("compute-resources", 7*second), Status: api.ResourceQuotaStatus{
				Hard: api.ResourceList{"pods": qty("4"), "requests.cpu": qty("1"), "requests.memory": qty("1Gi"),
					"limits.cpu": qty("2"), "limits.memory": qty("2Gi")},
				Used: api.ResourceList{"pods": qty("1"), "requests.cpu": qty("250m"), "requests.memory": qty("64Mi"),
					"limits.cpu": qty("500m"), "limits.memory": qty("128Mi")}}},
			&api.ResourceQuota{ObjectMeta: meta("object-counts", 3*day), Status: api.ResourceQuotaStatus{
				Hard: api.ResourceList{"configmaps": qty("10"), "services": qty("5")}}},
		}},
		{"limitranges", "LimitRange", []api.Object{
			&api.LimitRange{ObjectMeta: meta("cpu-defaults", 2*day)},
		}},
		{"events", "Event", eventFixtures()},
		{"ingresses", "Ingress", ingressFixtures()},
		{"ingressclasses", "IngressClass", ingressClassFixtures()},
		{"networkpolicies", "NetworkPolicy", networkPolicyFixtures()},
		{"poddisruptionbudgets", "PodDisruptionBudget", podDisruptionBudgetFixtures()},
		{"replicationcontrollers", "ReplicationController", []api.Object{
			&api.ReplicationController{ObjectMeta: meta("nginx-rc", 10*minute), Spec: api.ReplicationControllerSpec{
				Replicas: ptr[int32](3), Selector: map[string]string{"app": "nginx-rc"},
				Template: &api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1.27.0"}}}}},
				Status: api.ReplicationControllerStatus{Replicas: 3, ReadyReplicas: 2}},
		}},
		{"deployments", "Deployment", []api.Object{
			&api.Deployment{ObjectMeta: meta("ng-dep", 14*minute), Spec: api.DeploymentSpec{
				Replicas: ptr[int32](4), Selector: &api.LabelSelector{MatchLabels: map[string]string{"dep": "ng-dep-pod"}},
				Template: api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: "ng-c-dep", Image: "nginx"}}}}},
				Status: api.DeploymentStatus{Replicas: 4, UpdatedReplicas: 4, ReadyReplicas: 3, AvailableReplicas: 3}},
			&api.Deployment{ObjectMeta: meta("nginx-deploy", 5*day+23*hour), Spec: api.DeploymentSpec{
				Replicas: ptr[int32](2), Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "nginx-deploy"},
					MatchExpressions: []api.LabelSelectorRequirement{{Key: "tier", Operator: "In", Values: []string{"web", "frontend"}}}},
				Template: api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{
					{Name: "nginx", Image: "nginx:1.27.0"}, {Name: "exporter", Image: "nginx/nginx-prometheus-exporter:1.3"}}}}},
				Status: api.DeploymentStatus{Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}},
		}},
		{"replicasets", "ReplicaSet", []api.Object{
			&api.ReplicaSet{ObjectMeta: meta("ng-dep-6b558d4747", 14*minute), Spec: api.ReplicaSetSpec{
				Replicas: ptr[int32](4), Selector: &api.LabelSelector{MatchLabels: map[string]string{"dep": "ng-dep-pod", "pod-template-hash": "6b558d4747"}},
				Template: api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: "ng-c-dep", Image: "nginx"}}}}},
				Status: api.ReplicaSetStatus{Replicas: 4, ReadyReplicas: 3}},
			&api.ReplicaSet{ObjectMeta: meta("ng-rs", 2*hour), Spec: api.ReplicaSetSpec{
				Replicas: ptr[int32](3), Selector: &api.LabelSelector{MatchLabels: map[string]string{"replicaset": "test"}},
				Template: api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: "ng-c", Image: "nginx"}}}}},
				Status: api.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 3}},
		}},
		{"statefulsets", "StatefulSet", []api.Object{
			&api.StatefulSet{ObjectMeta: meta("ng-headless", 82*second), Spec: api.StatefulSetSpec{
				Replicas: ptr[int32](2), Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "ng-headless"}},
				Template: api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: "ng-headless-c", Image: "nginx"}}}}},
				Status: api.StatefulSetStatus{Replicas: 2, ReadyReplicas: 2}},
			&api.StatefulSet{ObjectMeta: meta("nginx-ss", 22*second), Spec: api.StatefulSetSpec{
				Replicas: ptr[int32](2), Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "nginx-ss"}},
				Template: api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx-ss", Image: "nginx:1.27.0"}}}}},
				Status: api.StatefulSetStatus{Replicas: 2, ReadyReplicas: 1}},
		}},
		{"daemonsets", "DaemonSet", []api.Object{
			&api.DaemonSet{ObjectMeta: meta("nginx-ds", 49*second), Spec: api.DaemonSetSpec{
				Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
				Template: api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1.27.0"}}}}},
				Status: api.DaemonSetStatus{DesiredNumberScheduled: 2, CurrentNumberScheduled: 2, NumberReady: 2,
					UpdatedNumberScheduled: 2, NumberAvailable: 2}},
			&api.DaemonSet{ObjectMeta: meta("node-exporter", 3*day), Spec: api.DaemonSetSpec{
				Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "node-exporter"}},
				Template: api.PodTemplateSpec{Spec: api.PodSpec{NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
					Containers: []api.Container{{Name: "exporter", Image: "prom/node-exporter"}}}}},
				Status: api.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 2,
					UpdatedNumberScheduled: 1, NumberAvailable: 2}},
		}},
		{"controllerrevisions", "ControllerRevision", []api.Object{
			&api.ControllerRevision{ObjectMeta: withOwner(meta("nginx-ds-bdf578756", 3*minute+11*second), "apps/v1", "DaemonSet", "nginx-ds"),
				Revision: 1, Data: json.RawMessage(`{}`)},
			&api.ControllerRevision{ObjectMeta: withOwner(meta("ng-headless-5d4c8f7b9", 82*second), "apps/v1", "StatefulSet", "ng-headless"),
				Revision: 2},
			&api.ControllerRevision{ObjectMeta: meta("orphaned-7c9d", 9*day), Revision: 1},
		}},
		{"jobs", "Job", jobFixtures()},
		{"cronjobs", "CronJob", []api.Object{
			&api.CronJob{ObjectMeta: meta("hello", 10*minute), Spec: api.CronJobSpec{Schedule: "*/1 * * * *", Suspend: ptr(false),
				JobTemplate: api.JobTemplateSpec{Spec: api.JobSpec{Template: api.PodTemplateSpec{Spec: api.PodSpec{
					Containers: []api.Container{{Name: "hello", Image: "busybox:1.28"}}}}}}},
				Status: api.CronJobStatus{Active: []api.ObjectReference{{Name: "hello-28829231"}}, LastScheduleTime: ago(40 * second)}},
			&api.CronJob{ObjectMeta: meta("nightly-backup", 20*day), Spec: api.CronJobSpec{Schedule: "0 3 * * *",
				TimeZone: ptr("Asia/Shanghai"), Suspend: ptr(true),
				JobTemplate: api.JobTemplateSpec{Spec: api.JobSpec{Template: api.PodTemplateSpec{Spec: api.PodSpec{
					Containers: []api.Container{{Name: "backup", Image: "restic/restic"}}}}}}}},
		}},
		{"horizontalpodautoscalers", "HorizontalPodAutoscaler", hpaFixtures()},
		{"componentstatuses", "ComponentStatus", []api.Object{
			&api.ComponentStatus{ObjectMeta: api.ObjectMeta{Name: "scheduler"},
				Conditions: []api.ComponentCondition{{Type: api.ComponentHealthy, Status: api.ConditionTrue, Message: "ok"}}},
			&api.ComponentStatus{ObjectMeta: api.ObjectMeta{Name: "controller-manager"},
				Conditions: []api.ComponentCondition{{Type: api.ComponentHealthy, Status: api.ConditionFalse,
					Message: `Get "http://127.0.0.1:10257/healthz": dial tcp 127.0.0.1:10257: connect: connection refused`}}},
			&api.ComponentStatus{ObjectMeta: api.ObjectMeta{Name: "etcd-0"},
				Conditions: []api.ComponentCondition{{Type: api.ComponentHealthy, Status: api.ConditionFalse,
					Error: "context deadline exceeded"}}},
			&api.ComponentStatus{ObjectMeta: api.ObjectMeta{Name: "never-probed"}},
		}},
		{"leases", "Lease", []api.Object{
			&api.Lease{ObjectMeta: meta("apiserver-oodnacusc5bcuykzhczyk7a7zq", 6*hour+minute),
				Spec: api.LeaseSpec{HolderIdentity: ptr("apiserver-oodnacusc5bcuykzhczyk7a7zq_87f43bb3-b50d-45c9-9801-c300b01e19a0")}},
			&api.Lease{ObjectMeta: meta("kube-controller-manager", 32*day),
				Spec: api.LeaseSpec{HolderIdentity: ptr("master_13cc3c06-f405-4d2e-ba63-b112894d64f8")}},
			&api.Lease{ObjectMeta: meta("kube-scheduler", 32*day),
				Spec: api.LeaseSpec{HolderIdentity: ptr("master_2e059fa2-68be-408c-bb7c-84a37bd97dcf")}},
			&api.Lease{ObjectMeta: meta("released-lock", 2*minute)},
		}},
		{"roles", "Role", []api.Object{
			&api.Role{ObjectMeta: api.ObjectMeta{Name: "pod-reader", CreationTimestamp: api.NewTime(time.Date(2024, 9, 21, 2, 49, 58, 0, time.UTC))}},
		}},
		{"clusterroles", "ClusterRole", []api.Object{
			&api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: "admin", CreationTimestamp: api.NewTime(time.Date(2024, 9, 21, 2, 49, 55, 0, time.UTC))}},
			&api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: "system:kube-scheduler", CreationTimestamp: api.NewTime(time.Date(2024, 9, 21, 2, 49, 55, 0, time.UTC))}},
		}},
		{"rolebindings", "RoleBinding", []api.Object{
			&api.RoleBinding{ObjectMeta: meta("read-pods", 3*hour), RoleRef: api.RoleRef{Kind: "Role", Name: "pod-reader"},
				Subjects: []api.Subject{{Kind: "User", Name: "jane"}, {Kind: "User", Name: "bob"},
					{Kind: "ServiceAccount", Namespace: "default", Name: "builder"}}},
		}},
		{"clusterrolebindings", "ClusterRoleBinding", []api.Object{
			&api.ClusterRoleBinding{ObjectMeta: meta("system:kube-scheduler", 32*day),
				RoleRef:  api.RoleRef{Kind: "ClusterRole", Name: "system:kube-scheduler"},
				Subjects: []api.Subject{{Kind: "User", Name: "system:kube-scheduler"}}},
			&api.ClusterRoleBinding{ObjectMeta: meta("cluster-admin", 32*day),
				RoleRef:  api.RoleRef{Kind: "ClusterRole", Name: "cluster-admin"},
				Subjects: []api.Subject{{Kind: "Group", Name: "system:masters"}}},
		}},
		{"storageclasses", "StorageClass", []api.Object{
			&api.StorageClass{ObjectMeta: withAnnotation(meta("standard", 3*day), "storageclass.kubernetes.io/is-default-class", "true"),
				Provisioner: "kplane.io/hostpath", ReclaimPolicy: ptr(api.PersistentVolumeReclaimDelete),
				VolumeBindingMode: ptr(api.VolumeBindingWaitForFirstConsumer)},
			&api.StorageClass{ObjectMeta: meta("fast", 2*hour), Provisioner: "ebs.csi.aws.com",
				ReclaimPolicy: ptr(api.PersistentVolumeReclaimRetain), AllowVolumeExpansion: ptr(true)},
		}},
		{"priorityclasses", "PriorityClass", priorityClassFixtures()},
	}
}

// priorityClassFixtures are the two system classes of a cluster 32 days
// old, a user's default class and one whose pods never preempt.
func priorityClassFixtures() []api.Object {
	var objects []api.Object
	for _, class := range api.SystemPriorityClasses() {
		class.ObjectMeta = meta(class.Name, 32*day)
		class.PreemptionPolicy = ptr(api.PreemptLowerPriority)
		objects = append(objects, class)
	}
	return append(objects,
		&api.PriorityClass{ObjectMeta: meta("normal", 5*hour), Value: 1000, GlobalDefault: true,
			PreemptionPolicy: ptr(api.PreemptLowerPriority)},
		&api.PriorityClass{ObjectMeta: meta("batch-low", 90*second), Value: -10,
			PreemptionPolicy: ptr(api.PreemptNever)},
	)
}

func withAnnotation(m api.ObjectMeta, key, value string) api.ObjectMeta {
	m.Annotations = map[string]string{key: value}
	return m
}

func withOwner(m api.ObjectMeta, apiVersion, kind, name string) api.ObjectMeta {
	m.OwnerReferences = []api.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: "e9a5a3eb", Controller: ptr(true)}}
	return m
}

func podFixtures() []api.Object {
	runningPod := func(name string, age time.Duration, ip, node string) *api.Pod {
		return &api.Pod{ObjectMeta: meta(name, age),
			Spec: api.PodSpec{NodeName: node, Containers: containers("nginx")},
			Status: api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
				Conditions:        []api.PodCondition{condition(api.PodReady, api.ConditionTrue)},
				ContainerStatuses: []api.ContainerStatus{running("nginx", true, 0)}}}
	}
	crashing := waiting("app", "CrashLoopBackOff", 3)
	crashing.LastTerminationState.Terminated = &api.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
		FinishedAt: api.NewTime(testNow.Add(-5 * minute))}
	deleting := runningPod("ng-dep-6b558d4747-x7k2p", 14*minute, "10.244.8.75", "node1")
	deleting.DeletionTimestamp = ago(3 * second)

	return []api.Object{
		runningPod("nginx-ds-77p67", 49*second, "10.244.166.171", "node1"),
		runningPod("nginx-ds-b6tlj", 49*second, "10.244.104.40", "node2"),
		&api.Pod{ObjectMeta: meta("ng-dep-6b558d4747-4xq9z", 4*second),
			Spec:   api.PodSpec{NodeName: "node2", Containers: containers("ng-c-dep")},
			Status: api.PodStatus{Phase: api.PodPending, ContainerStatuses: []api.ContainerStatus{waiting("ng-c-dep", "ContainerCreating", 0)}}},
		&api.Pod{ObjectMeta: meta("ng-dep-6b558d4747-pending", 2*second),
			Spec:   api.PodSpec{Containers: containers("ng-c-dep")},
			Status: api.PodStatus{Phase: api.PodPending}},
		&api.Pod{ObjectMeta: meta("web-with-init", 30*second),
			Spec: api.PodSpec{NodeName: "node1", InitContainers: containers("migrate"), Containers: containers("web")},
			Status: api.PodStatus{Phase: api.PodPending, PodIP: "10.244.166.172",
				InitContainerStatuses: []api.ContainerStatus{running("migrate", false, 0)}}},
		&api.Pod{ObjectMeta: meta("crasher", 20*minute),
			Spec:   api.PodSpec{NodeName: "node2", Containers: containers("app")},
			Status: api.PodStatus{Phase: api.PodRunning, PodIP: "10.244.104.41", ContainerStatuses: []api.ContainerStatus{crashing}}},
		&api.Pod{ObjectMeta: meta("pi-6xzrn", 2*minute),
			Spec:   api.PodSpec{NodeName: "node1", Containers: containers("pi")},
			Status: api.PodStatus{Phase: api.PodSucceeded, PodIP: "10.244.166.180", ContainerStatuses: []api.ContainerStatus{terminated("pi", "Completed", 0, 0)}}},
		&api.Pod{ObjectMeta: meta("pi-fail-9dq2c", 2*minute),
			Spec:   api.PodSpec{NodeName: "node1", Containers: containers("pi")},
			Status: api.PodStatus{Phase: api.PodFailed, ContainerStatuses: []api.ContainerStatus{terminated("pi", "Error", 1, 0)}}},
		&api.Pod{ObjectMeta: meta("evicted-hog", 3*hour),
			Spec:   api.PodSpec{NodeName: "node2", Containers: containers("hog")},
			Status: api.PodStatus{Phase: api.PodFailed, Reason: "Evicted"}},
		deleting,
	}
}

func namespaceFixtures() []api.Object {
	ns := func(name string, age time.Duration, phase api.NamespacePhase) *api.Namespace {
		return &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name, CreationTimestamp: api.NewTime(testNow.Add(-age))},
			Status: api.NamespaceStatus{Phase: phase}}
	}
	return []api.Object{
		ns("default", 32*day, api.NamespaceActive),
		ns("kube-node-lease", 32*day, api.NamespaceActive),
		ns("kube-public", 32*day, api.NamespaceActive),
		ns("kube-system", 32*day, api.NamespaceActive),
		ns("old-project", 400*day, api.NamespaceTerminating),
	}
}

func nodeFixtures() []api.Object {
	node := func(name string, ready api.ConditionStatus, ip string) *api.Node {
		return &api.Node{ObjectMeta: api.ObjectMeta{Name: name, CreationTimestamp: api.NewTime(testNow.Add(-32 * day)),
			Labels: map[string]string{"kubernetes.io/hostname": name}},
			Status: api.NodeStatus{
				Conditions: []api.NodeCondition{{Type: api.NodeMemoryPressure, Status: api.ConditionFalse}, {Type: api.NodeReady, Status: ready}},
				Addresses:  []api.NodeAddress{{Type: api.NodeHostName, Address: name}, {Type: api.NodeInternalIP, Address: ip}},
				NodeInfo: api.NodeSystemInfo{KubeletVersion: "v1.32.0", OSImage: "kplane simulated node",
					KernelVersion: "6.1.0", ContainerRuntimeVersion: "kplane://0.1.0"}}}
	}
	master := node("master", api.ConditionTrue, "192.168.56.10")
	master.Labels["node-role.kubernetes.io/control-plane"] = ""
	node1 := node("node1", api.ConditionTrue, "192.168.56.11")
	node1.Status.Addresses = append(node1.Status.Addresses, api.NodeAddress{Type: api.NodeExternalIP, Address: "203.0.113.11"})
	node1.Labels["kubernetes.io/role"] = "worker"
	node2 := node("node2", api.ConditionUnknown, "192.168.56.12")
	node2.Spec.Unschedulable = true
	node3 := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node3", CreationTimestamp: api.NewTime(testNow.Add(-5 * second))}}
	return []api.Object{master, node1, node2, node3}
}

func serviceFixtures() []api.Object {
	return []api.Object{
		&api.Service{ObjectMeta: meta("kubernetes", 32*day), Spec: api.ServiceSpec{Type: api.ServiceTypeClusterIP,
			ClusterIP: "10.96.0.1", ClusterIPs: []string{"10.96.0.1"},
			Ports: []api.ServicePort{{Name: "https", Port: 443, Protocol: api.ProtocolTCP}}}},
		&api.Service{ObjectMeta: meta("nginx-ss", 5*minute+25*second), Spec: api.ServiceSpec{Type: api.ServiceTypeClusterIP,
			ClusterIP: api.ClusterIPNone, ClusterIPs: []string{api.ClusterIPNone}, Selector: map[string]string{"app": "nginx-ss"},
			Ports: []api.ServicePort{{Port: 80, Protocol: api.ProtocolTCP}}}},
		&api.Service{ObjectMeta: meta("ng-headless-svc", 77*second), Spec: api.ServiceSpec{Type: api.ServiceTypeClusterIP,
			ClusterIP: api.ClusterIPNone, Selector: map[string]string{"app": "ng-headless"},
			Ports: []api.ServicePort{{Port: 8080, Protocol: api.ProtocolTCP}}}},
		&api.Service{ObjectMeta: meta("nginx-deploy", 5*day+23*hour), Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort,
			ClusterIP: "10.99.227.2", ClusterIPs: []string{"10.99.227.2"}, Selector: map[string]string{"app": "nginx-deploy"},
			Ports: []api.ServicePort{{Port: 8080, NodePort: 31555, Protocol: api.ProtocolTCP}}}},
		&api.Service{ObjectMeta: meta("web-lb", 30*second), Spec: api.ServiceSpec{Type: api.ServiceTypeLoadBalancer,
			ClusterIP: "10.96.14.7", ClusterIPs: []string{"10.96.14.7"}, Selector: map[string]string{"app": "web", "tier": "frontend"},
			Ports: []api.ServicePort{{Name: "http", Port: 80, NodePort: 30080, Protocol: api.ProtocolTCP},
				{Name: "dns", Port: 53, NodePort: 30053, Protocol: api.ProtocolUDP}}}},
		&api.Service{ObjectMeta: meta("web-lb-ready", 3*hour), Spec: api.ServiceSpec{Type: api.ServiceTypeLoadBalancer,
			ClusterIP: "10.96.14.8", ClusterIPs: []string{"10.96.14.8"}, Selector: map[string]string{"app": "web"},
			Ports: []api.ServicePort{{Port: 443, NodePort: 30443, Protocol: api.ProtocolTCP}}},
			Status: api.ServiceStatus{LoadBalancer: api.LoadBalancerStatus{Ingress: []api.LoadBalancerIngress{
				{IP: "203.0.113.20"}, {Hostname: "web.example.com"}}}}},
		&api.Service{ObjectMeta: meta("search", 9*day), Spec: api.ServiceSpec{Type: api.ServiceTypeExternalName,
			ExternalName: "search.example.com"}},
	}
}

func endpointsFixtures() []api.Object {
	addresses := func(ips ...string) []api.EndpointAddress {
		out := make([]api.EndpointAddress, len(ips))
		for i, ip := range ips {
			out[i] = api.EndpointAddress{IP: ip}
		}
		return out
	}
	return []api.Object{
		&api.Endpoints{ObjectMeta: meta("kubernetes", 32*day), Subsets: []api.EndpointSubset{{
			Addresses: addresses("192.168.56.10"), Ports: []api.EndpointPort{{Name: "https", Port: 6443}}}}},
		&api.Endpoints{ObjectMeta: meta("nginx-ss", 5*minute+25*second), Subsets: []api.EndpointSubset{{
			Addresses: addresses("10.244.166.171", "10.244.104.40"), Ports: []api.EndpointPort{{Port: 80}}}}},
		&api.Endpoints{ObjectMeta: meta("ng-dep", 14*minute), Subsets: []api.EndpointSubset{{
			Addresses:         addresses("10.244.1.5", "10.244.2.3", "10.244.7.9", "10.244.8.2"),
			NotReadyAddresses: addresses("10.244.8.3"), Ports: []api.EndpointPort{{Port: 80}}}}},
		&api.Endpoints{ObjectMeta: meta("headless-no-ports", 2*minute), Subsets: []api.EndpointSubset{{
			Addresses: addresses("10.244.1.6")}}},
		&api.Endpoints{ObjectMeta: meta("nothing-ready", 2*minute), Subsets: []api.EndpointSubset{{
			NotReadyAddresses: addresses("10.244.1.7"), Ports: []api.EndpointPort{{Port: 80}}}}},
		&api.Endpoints{ObjectMeta: meta("no-pods", 2*minute)},
	}
}

// endpointSliceFixtures are the slices of the Services above: the
// controller's slices (some endpoints not ready, which the table still
// lists), a placeholder for a Service without pods, a headless Service's
// slice without ports, and a hand-written one with many ports.
func endpointSliceFixtures() []api.Object {
	endpoints := func(ips ...string) []api.Endpoint {
		out := make([]api.Endpoint, len(ips))
		for i, ip := range ips {
			out[i] = api.Endpoint{Addresses: []string{ip}}
		}
		return out
	}
	port := func(name string, number int32) api.EndpointSlicePort {
		tcp := api.ProtocolTCP
		return api.EndpointSlicePort{Name: &name, Port: &number, Protocol: &tcp}
	}
	allPorts := api.EndpointSlicePort{Name: ptr("")}
	named := api.EndpointSlicePort{Name: ptr("metrics")}
	notReady := api.Endpoint{Addresses: []string{"10.244.8.3"}, Conditions: api.EndpointConditions{Ready: ptr(false)}}
	return []api.Object{
		&api.EndpointSlice{ObjectMeta: meta("kubernetes", 32*day), AddressType: api.AddressTypeIPv4,
			Endpoints: endpoints("192.168.56.10"), Ports: []api.EndpointSlicePort{port("https", 6443)}},
		&api.EndpointSlice{ObjectMeta: meta("ng-dep-x7k2p", 14*minute), AddressType: api.AddressTypeIPv4,
			Endpoints: append(endpoints("10.244.1.5", "10.244.2.3", "10.244.7.9", "10.244.8.2"), notReady),
			Ports:     []api.EndpointSlicePort{port("", 80)}},
		&api.EndpointSlice{ObjectMeta: meta("nginx-ss-4qlzt", 5*minute+25*second), AddressType: api.AddressTypeIPv4,
			Endpoints: endpoints("10.244.166.171", "10.244.104.40"), Ports: []api.EndpointSlicePort{port("web", 80)}},
		&api.EndpointSlice{ObjectMeta: meta("headless-no-ports-b2n8d", 2*minute), AddressType: api.AddressTypeIPv4,
			Endpoints: endpoints("10.244.1.6")},
		&api.EndpointSlice{ObjectMeta: meta("no-pods-9fz4c", 2*minute), AddressType: api.AddressTypeIPv4},
		&api.EndpointSlice{ObjectMeta: meta("dual-v6-mk5tq", 3*hour), AddressType: api.AddressTypeIPv6,
			Endpoints: endpoints("fd00:10:244::5"), Ports: []api.EndpointSlicePort{port("http", 80), port("https", 443),
				port("grpc", 9000), allPorts, named}},
		&api.EndpointSlice{ObjectMeta: meta("external-db", 6*day), AddressType: api.AddressTypeFQDN,
			Endpoints: endpoints("db.example.com"), Ports: []api.EndpointSlicePort{allPorts}},
	}
}

func persistentVolumeFixtures() []api.Object {
	filesystem := api.PersistentVolumeFilesystem
	pv := func(name, claim string, phase api.PersistentVolumePhase) *api.PersistentVolume {
		v := &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: name, CreationTimestamp: api.NewTime(testNow.Add(-106 * second))},
			Spec: api.PersistentVolumeSpec{Capacity: api.ResourceList{api.ResourceStorage: qty("1Gi")},
				AccessModes:                   []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
				PersistentVolumeReclaimPolicy: api.PersistentVolumeReclaimRetain, VolumeMode: &filesystem},
			Status: api.PersistentVolumeStatus{Phase: phase}}
		if claim != "" {
			v.Spec.ClaimRef = &api.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "default", Name: claim}
		}
		return v
	}
	fast := pv("pv-fast", "", api.VolumeAvailable)
	fast.Spec.Capacity[api.ResourceStorage] = qty("10240Mi")
	fast.Spec.AccessModes = []api.PersistentVolumeAccessMode{api.ReadWriteMany, api.ReadWriteOnce}
	fast.Spec.StorageClassName = "fast"
	fast.Spec.VolumeAttributesClassName = ptr("gold")
	fast.Spec.PersistentVolumeReclaimPolicy = api.PersistentVolumeReclaimDelete
	failed := pv("pv-broken", "", api.VolumeFailed)
	failed.Spec.VolumeMode = nil
	failed.Status.Reason = "RecyclerFailed"
	return []api.Object{
		pv("pv001", "vol-ng-headless-0", api.VolumeBound),
		pv("pv002", "vol-ng-headless-1", api.VolumeBound),
		fast,
		failed,
	}
}

func persistentVolumeClaimFixtures() []api.Object {
	filesystem := api.PersistentVolumeFilesystem
	bound := func(name, volume string, age time.Duration) *api.PersistentVolumeClaim {
		return &api.PersistentVolumeClaim{ObjectMeta: meta(name, age),
			Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
				Resources:  api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: qty("1Gi")}},
				VolumeName: volume, VolumeMode: &filesystem},
			Status: api.PersistentVolumeClaimStatus{Phase: api.ClaimBound,
				AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
				Capacity:    api.ResourceList{api.ResourceStorage: qty("1Gi")}}}
	}
	pending := &api.PersistentVolumeClaim{ObjectMeta: meta("data-db-0", 10*second),
		Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			Resources:        api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: qty("5Gi")}},
			StorageClassName: ptr("fast"), VolumeAttributesClassName: ptr("gold")},
		Status: api.PersistentVolumeClaimStatus{Phase: api.ClaimPending}}
	return []api.Object{
		bound("vol-ng-headless-0", "pv001", 6*minute+41*second),
		bound("vol-ng-headless-1", "pv002", 58*second),
		pending,
	}
}

func eventFixtures() []api.Object {
	return []api.Object{
		&api.Event{ObjectMeta: meta("ng-dep.17f0c3a1b2c4d5e6", 15*minute), Type: api.EventTypeNormal, Reason: "ScalingReplicaSet",
			InvolvedObject: api.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "ng-dep"},
			Message:        "Scaled up replica set ng-dep-6b558d4747 from 0 to 4",
			Source:         api.EventSource{Component: "deployment-controller"},
			FirstTimestamp: api.NewTime(testNow.Add(-15 * minute)), LastTimestamp: api.NewTime(testNow.Add(-15 * minute)), Count: 1},
		&api.Event{ObjectMeta: meta("ng-dep.17f0c3a1b2c4d5f7", 138*second), Type: api.EventTypeNormal, Reason: "ScalingReplicaSet",
			InvolvedObject: api.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "ng-dep"},
			Message:        "Scaled down replica set ng-dep-6b558d4747 from 4 to 3\n",
			Source:         api.EventSource{Component: "deployment-controller"},
			FirstTimestamp: api.NewTime(testNow.Add(-138 * second)), LastTimestamp: api.NewTime(testNow.Add(-64 * second)), Count: 2},
		&api.Event{ObjectMeta: meta("nginx-ds-77p67.17f0c3a1c0000001", 49*second), Type: api.EventTypeNormal, Reason: "Pulled",
			InvolvedObject: api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "nginx-ds-77p67", FieldPath: "spec.containers{nginx}"},
			Message:        `Container image "nginx:1.27.0" already present on machine`,
			Source:         api.EventSource{Component: "kubelet", Host: "node1"},
			FirstTimestamp: api.NewTime(testNow.Add(-49 * second)), LastTimestamp: api.NewTime(testNow.Add(-49 * second)), Count: 1},
		&api.Event{ObjectMeta: meta("ng-dep-6b558d4747-pending.17f0c3a1d0000002", 2*second), Type: api.EventTypeWarning,
			Reason:              "FailedScheduling",
			InvolvedObject:      api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "ng-dep-6b558d4747-pending"},
			Message:             "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu.",
			ReportingController: "default-scheduler", EventTime: api.MicroTime{Time: testNow.Add(-2 * second)}},
		&api.Event{ObjectMeta: meta("node2.17f0c3a1e0000003", 5*minute), Type: api.EventTypeNormal, Reason: "NodeNotReady",
			InvolvedObject:      api.ObjectReference{Kind: "Node", Name: "node2"},
			Message:             "Node node2 status is now: NodeNotReady",
			ReportingController: "node-controller", EventTime: api.MicroTime{Time: testNow.Add(-5 * minute)},
			Series: &api.EventSeries{Count: 4, LastObservedTime: api.MicroTime{Time: testNow.Add(-10 * second)}}},
	}
}

func jobFixtures() []api.Object {
	job := func(name string, age time.Duration) *api.Job {
		return &api.Job{ObjectMeta: meta(name, age), Spec: api.JobSpec{
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": name + "-uid"}},
			Template: api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: "pi", Image: "perl"}}}}}}
	}
	complete := func(j *api.Job, status api.JobConditionType) *api.Job {
		j.Status.Conditions = append(j.Status.Conditions, api.JobCondition{Type: status, Status: api.ConditionTrue})
		return j
	}

	pi := job("pi", 40*second)
	pi.Spec.Parallelism, pi.Spec.Completions = ptr[int32](2), ptr[int32](5)
	pi.Status.StartTime, pi.Status.Active, pi.Status.Succeeded = ago(38*second), 2, 1

	done := complete(job("pi-done", 3*hour), api.JobComplete)
	done.Spec.Completions = ptr[int32](5)
	done.Status.Succeeded, done.Status.StartTime, done.Status.CompletionTime = 5, ago(3*hour-2*second), ago(3*hour-74*second)

	failed := complete(job("pi-failed", 20*minute), api.JobFailed)
	failed.Status.StartTime, failed.Status.CompletionTime = ago(20*minute), ago(13*minute)

	queue := job("work-queue", 5*minute)
	queue.Spec.Parallelism = ptr[int32](3)
	queue.Status.StartTime = ago(5 * minute)

	suspended := complete(job("paused", 2*day), api.JobSuspended)
	suspended.Spec.Suspend = ptr(true)

	notStarted := job("just-created", 1*second)

	return []api.Object{pi, done, failed, queue, suspended, notStarted}
}

func hpaFixtures() []api.Object {
	cpu := func(target int32) api.MetricSpec {
		return api.MetricSpec{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{Name: api.ResourceCPU,
			Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: ptr(target)}}}
	}
	cpuNow := func(current int32) api.MetricStatus {
		return api.MetricStatus{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricStatus{Name: api.ResourceCPU,
			Current: api.MetricValueStatus{AverageUtilization: ptr(current)}}}
	}
	memory := api.MetricSpec{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{Name: api.ResourceMemory,
		Target: api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: ptr(qty("512Mi"))}}}
	requests := api.MetricSpec{Type: api.PodsMetricSourceType, Pods: &api.PodsMetricSource{
		Metric: api.MetricIdentifier{Name: "http_requests"},
		Target: api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: ptr(qty("100"))}}}
	return []api.Object{
		&api.HorizontalPodAutoscaler{ObjectMeta: meta("php-apache", 3*minute), Spec: api.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: api.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "php-apache"},
			MinReplicas:    ptr[int32](1), MaxReplicas: 10, Metrics: []api.MetricSpec{cpu(50)}},
			Status: api.HorizontalPodAutoscalerStatus{CurrentReplicas: 4, CurrentMetrics: []api.MetricStatus{cpuNow(250)}}},
		&api.HorizontalPodAutoscaler{ObjectMeta: meta("ng-dep", 20*second), Spec: api.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: api.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "ng-dep"},
			MaxReplicas:    6, Metrics: []api.MetricSpec{cpu(80), memory, requests}}},
		&api.HorizontalPodAutoscaler{ObjectMeta: meta("no-metrics", 2*hour), Spec: api.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: api.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "ng-headless"},
			MinReplicas:    ptr[int32](2), MaxReplicas: 4},
			Status: api.HorizontalPodAutoscalerStatus{CurrentReplicas: 2}},
	}
}
