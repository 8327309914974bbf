package protobuf

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"kplane/pkg/api"
)

// at is a timestamp as decoding returns it: local zone, whole seconds.
func at(sec int64) api.Time { return api.NewTime(time.Unix(sec, 0).Local()) }

// TestRoundTrip encodes objects that use every kind of field (scalars,
// pointers, enums-as-strings, negative numbers, repeated numbers, maps of
// strings, bytes and quantities, times, int-or-strings, raw JSON, inline
// structs) and checks that decoding gives them back unchanged.
func TestRoundTrip(t *testing.T) {
	meta := api.ObjectMeta{
		Name: "full", Namespace: "ns", UID: "u-1", ResourceVersion: "42", Generation: 3,
		CreationTimestamp:          at(1700000000),
		DeletionTimestamp:          ptr(at(1700000100)),
		DeletionGracePeriodSeconds: ptr[int64](30),
		Labels:                     map[string]string{"a": "1", "b": ""},
		Annotations:                map[string]string{"note": "ünïcode ✓"},
		OwnerReferences: []api.OwnerReference{{
			APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u-0",
			Controller: ptr(true), BlockOwnerDeletion: ptr(false),
		}},
		Finalizers: []string{"x/y", "kubernetes"},
		ManagedFields: []api.ManagedFieldsEntry{{
			Manager: "kubectl", Operation: "Update", APIVersion: "v1", Time: ptr(at(1700000000)),
			FieldsType: "FieldsV1", FieldsV1: map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{}}},
		}},
	}
	pod := &api.Pod{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: meta,
		Spec: api.PodSpec{
			Volumes: []api.Volume{
				{Name: "cfg", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{
					LocalObjectReference: api.LocalObjectReference{Name: "cm"},
					Items:                []api.KeyToPath{{Key: "k", Path: "p", Mode: ptr[int32](0o400)}},
					DefaultMode:          ptr[int32](0o644),
				}}},
				{Name: "tmp", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{
					Medium: api.StorageMediumMemory, SizeLimit: ptr(api.MustParseQuantity("64Mi")),
				}}},
			},
			InitContainers: []api.Container{{Name: "init", Image: "busybox", Command: []string{"sh", "-c", "true"}}},
			Containers: []api.Container{{
				Name: "app", Image: "nginx:1.27", Args: []string{"-g", "daemon off;"}, WorkingDir: "/srv",
				Ports: []api.ContainerPort{{Name: "http", ContainerPort: 80, Protocol: api.ProtocolTCP}},
				Env: []api.EnvVar{
					{Name: "A", Value: "1"},
					{Name: "POD", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.name"}}},
					{Name: "CPU", ValueFrom: &api.EnvVarSource{ResourceFieldRef: &api.ResourceFieldSelector{
						Resource: "limits.cpu", Divisor: api.MustParseQuantity("1m"),
					}}},
				},
				Resources: api.ResourceRequirements{
					Limits:   api.ResourceList{"cpu": api.MustParseQuantity("2"), "memory": api.MustParseQuantity("1Gi")},
					Requests: api.ResourceList{"cpu": api.MustParseQuantity("250m")},
				},
				LivenessProbe: &api.Probe{
					ProbeHandler:     api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: "/healthz", Port: api.FromString("http")}},
					PeriodSeconds:    10,
					FailureThreshold: 3,
				},
				ReadinessProbe: &api.Probe{ProbeHandler: api.ProbeHandler{TCPSocket: &api.TCPSocketAction{Port: api.FromInt(80)}}},
				Lifecycle:      &api.Lifecycle{PreStop: &api.LifecycleHandler{Sleep: &api.SleepAction{Seconds: 5}}},
				SecurityContext: &api.SecurityContext{
					RunAsUser:    ptr[int64](-1), // negative: a ten-byte varint
					Capabilities: &api.Capabilities{Drop: []string{"ALL"}},
				},
				ImagePullPolicy: api.PullIfNotPresent, TTY: true,
			}},
			EphemeralContainers: []api.EphemeralContainer{{
				Container:           api.Container{Name: "debug", Image: "busybox"},
				TargetContainerName: "app",
			}},
			RestartPolicy:                 api.RestartPolicyAlways,
			TerminationGracePeriodSeconds: ptr[int64](30),
			NodeSelector:                  map[string]string{"disk": "ssd"},
			SecurityContext:               &api.PodSecurityContext{SupplementalGroups: []int64{1000, -2, 1 << 40}},
			Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
					MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a", "b"}}},
				}}},
			}},
			Tolerations: []api.Toleration{{Key: "k", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr[int64](300)}},
			Priority:    ptr[int32](-5),
			Overhead:    api.ResourceList{"cpu": api.MustParseQuantity("10m")},
		},
		Status: api.PodStatus{
			Phase:      api.PodRunning,
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: at(1700000200)}},
			StartTime:  ptr(at(1700000150)),
			ContainerStatuses: []api.ContainerStatus{{
				Name: "app", Ready: true, RestartCount: 2, Image: "nginx:1.27", ImageID: "sha256:abc", Started: ptr(true),
				State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: at(1700000160)}},
				LastTerminationState: api.ContainerState{Terminated: &api.ContainerStateTerminated{
					ExitCode: -1, Reason: "Error", FinishedAt: at(1700000155),
				}},
			}},
			QOSClass: api.PodQOSBurstable,
		},
	}
	for _, tc := range []struct {
		name       string
		apiVersion string
		obj        any
	}{
		{"Pod", "v1", pod},
		{"Secret", "v1", &api.Secret{
			TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: api.ObjectMeta{Name: "s"},
			Immutable:  ptr(true),
			Data:       map[string][]byte{"bin": {0, 1, 0xfe, 0xff}, "empty": {}, "text": []byte("hello")},
			StringData: map[string]string{"x": "y"},
			Type:       api.SecretTypeOpaque,
		}},
		{"ConfigMap", "v1", &api.ConfigMap{
			TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: api.ObjectMeta{Name: "c"},
			Data:       map[string]string{"": "empty key", "k": ""},
			BinaryData: map[string][]byte{"b": {0}},
		}},
		{"ControllerRevision", "apps/v1", &api.ControllerRevision{
			TypeMeta:   api.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"},
			ObjectMeta: api.ObjectMeta{Name: "r"},
			Data:       json.RawMessage(`{"spec":{"template":{"$patch":"replace"}}}`),
			Revision:   7,
		}},
		{"Lease", "coordination.k8s.io/v1", &api.Lease{
			TypeMeta:   api.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
			ObjectMeta: api.ObjectMeta{Name: "node-1"},
			Spec: api.LeaseSpec{
				HolderIdentity:       ptr("node-1"),
				LeaseDurationSeconds: ptr[int32](40),
				RenewTime:            &api.MicroTime{Time: time.Unix(1700000000, 123456000).Local()},
				LeaseTransitions:     ptr[int32](0),
			},
		}},
		{"EndpointSlice", "discovery.k8s.io/v1", &api.EndpointSlice{
			TypeMeta:    api.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
			ObjectMeta:  api.ObjectMeta{Name: "web-x7k2p", Generation: 2},
			AddressType: api.AddressTypeIPv4,
			Endpoints: []api.Endpoint{{
				Addresses:  []string{"10.244.1.5"},
				Conditions: api.EndpointConditions{Ready: ptr(false), Serving: ptr(true), Terminating: ptr(true)},
				Hostname:   ptr("web-0"), NodeName: ptr("node1"), Zone: ptr("zone-a"),
				TargetRef: &api.ObjectReference{Kind: "Pod", Name: "web-0", UID: "u-2"},
				Hints:     &api.EndpointHints{ForZones: []api.ForZone{{Name: "zone-a"}}},
			}},
			Ports: []api.EndpointSlicePort{{Name: ptr(""), Protocol: ptr(api.ProtocolUDP), Port: ptr[int32](53), AppProtocol: ptr("dns")}},
		}},
		{"Event", "v1", &api.Event{
			TypeMeta:       api.TypeMeta{APIVersion: "v1", Kind: "Event"},
			ObjectMeta:     api.ObjectMeta{Name: "e"},
			InvolvedObject: api.ObjectReference{Kind: "Pod", Name: "p", FieldPath: "spec.containers{app}"},
			Reason:         "Pulled", Count: 3, Type: api.EventTypeNormal,
			EventTime:           api.MicroTime{Time: time.Unix(1700000000, 999999000).Local()},
			Series:              &api.EventSeries{Count: 2, LastObservedTime: api.MicroTime{Time: time.Unix(1700000001, 0).Local()}},
			ReportingController: "kubelet",
		}},
		{"Job", "batch/v1", &api.Job{
			TypeMeta:   api.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
			ObjectMeta: api.ObjectMeta{Name: "j"},
			Spec: api.JobSpec{
				CompletionMode: ptr(api.IndexedCompletion),
				PodFailurePolicy: &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{{
					Action:      api.PodFailurePolicyActionFailJob,
					OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{1, 42, -3}},
				}}},
			},
		}},
		{"HorizontalPodAutoscaler", "autoscaling/v2", &api.HorizontalPodAutoscaler{
			TypeMeta:   api.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
			ObjectMeta: api.ObjectMeta{Name: "h"},
			Spec: api.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: api.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
				MinReplicas:    ptr[int32](1), MaxReplicas: 10,
				Metrics: []api.MetricSpec{{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{
					Name: "cpu", Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: ptr[int32](50)},
				}}},
			},
		}},
		{"Eviction", "policy/v1", &api.Eviction{
			TypeMeta:   api.TypeMeta{APIVersion: "policy/v1", Kind: "Eviction"},
			ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"},
			DeleteOptions: &api.DeleteOptions{
				GracePeriodSeconds: ptr[int64](0),
				Preconditions:      &api.Preconditions{UID: ptr("u-1")},
				PropagationPolicy:  ptr(api.DeletePropagationForeground),
				DryRun:             []string{api.DryRunAll},
			},
		}},
		{"Node", "v1", &api.Node{
			TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: api.ObjectMeta{Name: "n"},
			Spec:       api.NodeSpec{Taints: []api.Taint{{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute, TimeAdded: ptr(at(1700000000))}}},
			Status: api.NodeStatus{
				Capacity:        api.ResourceList{"cpu": api.MustParseQuantity("4"), "pods": api.MustParseQuantity("110")},
				DaemonEndpoints: api.NodeDaemonEndpoints{KubeletEndpoint: api.DaemonEndpoint{Port: 10250}},
				NodeInfo:        api.NodeSystemInfo{KubeletVersion: "v1.32.0", Swap: &api.NodeSwapStatus{Capacity: ptr[int64](0)}},
			},
		}},
		{"Scale", "autoscaling/v1", &api.Scale{
			TypeMeta:   api.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
			ObjectMeta: api.ObjectMeta{Name: "web"},
			Spec:       api.ScaleSpec{Replicas: 5},
			Status:     api.ScaleStatus{Replicas: 3, Selector: "app=web"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := Encode(tc.obj, tc.apiVersion, tc.name)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			got := reflect.New(reflect.TypeOf(tc.obj).Elem()).Interface()
			if err := Decode(body, got); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tc.obj) {
				gotJSON, _ := json.Marshal(got)
				wantJSON, _ := json.Marshal(tc.obj)
				t.Errorf("round trip changed the object:\n got %s\nwant %s", gotJSON, wantJSON)
			}
		})
	}
}

// BenchmarkDecodeDeployment decodes what kubectl create deployment sends.
func BenchmarkDecodeDeployment(b *testing.B) {
	body := hexBody(b, deploymentGolden)
	for b.Loop() {
		var d api.Deployment
		if err := Decode(body, &d); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEncodeMessageIsTheEnvelopesRaw checks that EncodeMessage writes the
// bare message: exactly the raw bytes Encode puts inside its envelope.
func TestEncodeMessageIsTheEnvelopesRaw(t *testing.T) {
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: "default"}, Data: map[string]string{"a": "1"}}
	bare, err := EncodeMessage(cm)
	if err != nil {
		t.Fatal(err)
	}
	body, err := Encode(cm, "v1", "ConfigMap")
	if err != nil {
		t.Fatal(err)
	}
	env, err := readEnvelope(body)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bare, env.Raw) {
		t.Errorf("EncodeMessage = %x, want the envelope's raw %x", bare, env.Raw)
	}
	if _, err := EncodeMessage("not a struct"); err == nil {
		t.Error("EncodeMessage of a string: no error")
	}
}
