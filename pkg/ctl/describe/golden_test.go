package describe

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
)

// update rewrites the golden files: go test ./pkg/ctl/describe -update.
// Review the diff before committing: the golden files are what kubectl
// describe prints for the same objects.
var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// goldenNow is the instant ages are measured from; the fixtures were
// recorded from a cluster a few minutes before it.
var goldenNow = time.Date(2026, 11, 22, 3, 40, 0, 0, time.UTC)

// fixture is one testdata/*.json file: an object recorded from a kplane
// cluster with the Events and related objects `ctl describe` fetched for
// it.
type fixture struct {
	Object  map[string]any `json:"object"`
	Events  []api.Event    `json:"events"`
	Related struct {
		Pods           []api.Pod            `json:"pods"`
		ReplicaSets    []api.ReplicaSet     `json:"replicaSets"`
		EndpointSlices []api.EndpointSlice  `json:"endpointSlices"`
		Lease          *api.Lease           `json:"lease"`
		ResourceQuotas *[]api.ResourceQuota `json:"resourceQuotas"`
		LimitRanges    *[]api.LimitRange    `json:"limitRanges"`
		Secrets        *[]api.Secret        `json:"secrets"`
	} `json:"related"`
}

func (f fixture) input() Input {
	r := f.Related
	return Input{Object: f.Object, Events: f.Events, Related: Related{
		Pods: r.Pods, ReplicaSets: r.ReplicaSets, EndpointSlices: r.EndpointSlices, Lease: r.Lease,
		ResourceQuotas: r.ResourceQuotas, LimitRanges: r.LimitRanges, Secrets: r.Secrets,
	}}
}

// TestDescribeGolden renders every recorded object and compares the text
// with its golden file, which was checked line by line against kubectl
// 1.32's output for the same object.
func TestDescribeGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in testdata: %v", err)
	}
	settings := Settings{ShowEvents: true, Now: goldenNow, Location: time.UTC}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var f fixture
			if err := json.Unmarshal(data, &f); err != nil {
				t.Fatalf("decode %s: %v", file, err)
			}
			got, err := Describe(f.input(), settings)
			if err != nil {
				t.Fatalf("Describe: %v", err)
			}
			checkGolden(t, name, got)
		})
	}
}

// TestDescribeEdgeCases covers states the recorded cluster did not show:
// a pod not yet scheduled and being deleted, failed lookups of related
// objects, repeated events, long annotations, and --show-events=false.
func TestDescribeEdgeCases(t *testing.T) {
	settings := Settings{ShowEvents: true, Now: goldenNow, Location: time.UTC}
	at := func(d time.Duration) api.Time { return api.NewTime(goldenNow.Add(-d)) }
	deleted := at(90 * time.Second)
	grace := int64(30)
	pendingPod := &api.Pod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{
			Name: "web-0", Namespace: "shop", UID: "u1",
			DeletionTimestamp: &deleted, DeletionGracePeriodSeconds: &grace,
			Annotations: map[string]string{
				"note":                          strings.Repeat("x", 150),
				"multi":                         "line one\nline two\n",
				api.LastAppliedConfigAnnotation: `{"kind":"Pod"}`,
				"escape":                        "bell\x1b[31mred",
			},
		},
		Spec: api.PodSpec{
			Containers: []api.Container{{Name: "app", Image: "nginx", Ports: []api.ContainerPort{
				{ContainerPort: 80, Protocol: "TCP", Name: "http"}, {ContainerPort: 443, Protocol: "TCP"},
			}}},
			Volumes: []api.Volume{
				{Name: "scratch", VolumeSource: api.VolumeSource{Ephemeral: &api.EphemeralVolumeSource{
					VolumeClaimTemplate: &api.PersistentVolumeClaimTemplate{Spec: api.PersistentVolumeClaimSpec{
						AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce}, StorageClassName: ptr("fast"),
					}},
				}}},
				{Name: "token", VolumeSource: api.VolumeSource{Projected: &api.ProjectedVolumeSource{Sources: []api.VolumeProjection{
					{ServiceAccountToken: &api.ServiceAccountTokenProjection{ExpirationSeconds: ptr(int64(3607)), Path: "token"}},
					{ConfigMap: &api.ConfigMapProjection{LocalObjectReference: api.LocalObjectReference{Name: "kube-root-ca.crt"}}},
					{DownwardAPI: &api.DownwardAPIProjection{}},
				}}}},
				{Name: "share", VolumeSource: api.VolumeSource{NFS: &api.NFSVolumeSource{Server: "10.0.0.1", Path: "/export"}}},
			},
			TopologySpreadConstraints: []api.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: "DoNotSchedule",
				LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
		},
		Status: api.PodStatus{Phase: api.PodPending, Conditions: []api.PodCondition{
			{Type: api.PodScheduled, Status: api.ConditionFalse, Reason: "Unschedulable"},
		}},
	}
	events := []api.Event{
		{Type: "Warning", Reason: "FailedScheduling", Message: "0/3 nodes are available: 3 Insufficient cpu.  ",
			Source: api.EventSource{Component: "default-scheduler"}, Count: 4,
			FirstTimestamp: at(138 * time.Second), LastTimestamp: at(64 * time.Second)},
		{Type: "Normal", Reason: "Pulling", Message: "Pulling image",
			InvolvedObject:      api.ObjectReference{FieldPath: "spec.containers{app}"},
			ReportingController: "kubelet", EventTime: api.MicroTime{Time: goldenNow.Add(-3 * time.Hour)},
			Series: &api.EventSeries{Count: 2, LastObservedTime: api.MicroTime{Time: goldenNow.Add(-10 * time.Minute)}}},
	}
	rs := &api.ReplicaSet{
		TypeMeta:   api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "shop", UID: "rs1"},
		Spec: api.ReplicaSetSpec{Replicas: ptr(int32(2)), Selector: &api.LabelSelector{
			MatchLabels:      map[string]string{"app": "web"},
			MatchExpressions: []api.LabelSelectorRequirement{{Key: "tier", Operator: "In", Values: []string{"front", "back"}}},
		}},
	}
	node := &api.Node{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: api.ObjectMeta{Name: "n1", Labels: map[string]string{"kubernetes.io/role": "edge", "node-role.kubernetes.io/worker": ""}},
		Spec: api.NodeSpec{Unschedulable: true, Taints: []api.Taint{
			{Key: "b", Effect: "NoSchedule"}, {Key: "a", Value: "1", Effect: "NoSchedule"}, {Key: "c", Effect: "NoExecute"},
		}},
	}
	tests := []struct {
		name     string
		obj      api.Object
		events   []api.Event
		related  Related
		settings Settings
	}{
		{name: "edge-pod-pending-terminating", obj: pendingPod, events: events, settings: settings},
		{name: "edge-pod-no-events-section", obj: pendingPod, settings: Settings{Now: goldenNow, Location: time.UTC}},
		{name: "edge-replicaset-pods-error", obj: rs, related: Related{PodsErr: errors.New(`pods is forbidden: User "bob" cannot list resource "pods"`)}, settings: settings},
		{name: "edge-node-lease-error", obj: node, related: Related{LeaseErr: errors.New(`leases.coordination.k8s.io "n1" not found`)}, settings: settings},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Describe(Input{Object: toMap(t, tt.obj), Events: tt.events, Related: tt.related}, tt.settings)
			if err != nil {
				t.Fatalf("Describe: %v", err)
			}
			checkGolden(t, tt.name, got)
		})
	}
}

func ptr[T any](v T) *T { return &v }

// toMap turns a typed object into the map a server response decodes to.
func toMap(t *testing.T, obj api.Object) map[string]any {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// checkGolden compares got with testdata/<name>.golden, or rewrites the
// file with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update to accept):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines that differ, "-" for the golden file's and "+"
// for the output's.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n- %q\n+ %q\n", i+1, wl, gl)
		}
	}
	return b.String()
}
