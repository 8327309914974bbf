package framework

import (
	"slices"
	"testing"

	"kplane/pkg/api"
)

func TestFitErrorMessage(t *testing.T) {
	taint := "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
	tests := []struct {
		name     string
		numNodes int
		statuses map[string]*Status
		want     string
	}{
		{"all nodes short of cpu", 3, map[string]*Status{
			"n1": NewStatus(Unschedulable, "Insufficient cpu"),
			"n2": NewStatus(Unschedulable, "Insufficient cpu"),
			"n3": NewStatus(Unschedulable, "Insufficient cpu"),
		}, "0/3 nodes are available: 3 Insufficient cpu."},
		{"reasons counted and sorted as strings", 3, map[string]*Status{
			"n1": NewStatus(Unschedulable, "Insufficient cpu"),
			"n2": NewStatus(UnschedulableAndUnresolvable, taint),
			"n3": NewStatus(UnschedulableAndUnresolvable, taint),
		}, "0/3 nodes are available: 1 Insufficient cpu, 2 " + taint + "."},
		{"a node with two reasons counts in both", 2, map[string]*Status{
			"n1": NewStatus(Unschedulable, "Insufficient cpu", "Insufficient memory"),
			"n2": NewStatus(Unschedulable, "Insufficient memory"),
		}, "0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory."},
		{"10 sorts before 2, as upstream's sort.Strings does", 12, func() map[string]*Status {
			m := map[string]*Status{}
			for i := range 10 {
				m[string(rune('a'+i))] = NewStatus(Unschedulable, "Insufficient memory")
			}
			m["x"] = NewStatus(Unschedulable, "Insufficient cpu")
			m["y"] = NewStatus(Unschedulable, "Insufficient cpu")
			return m
		}(), "0/12 nodes are available: 10 Insufficient memory, 2 Insufficient cpu."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := &FitError{Pod: "default/p", NumAllNodes: tt.numNodes, NodeStatuses: tt.statuses}
			if got := err.Error(); got != tt.want {
				t.Errorf("message\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// A PreFilter rejection is said once, not counted per node: upstream's
// "0/3 nodes are available: <PreFilter message>.".
func TestFitErrorMessageAfterPreFilter(t *testing.T) {
	tests := []struct {
		name, message, want string
	}{
		{"unbound claim", "pod has unbound immediate PersistentVolumeClaims",
			"0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims."},
		{"missing claim", `persistentvolumeclaim "x" not found`,
			`0/3 nodes are available: persistentvolumeclaim "x" not found.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := &FitError{Pod: "default/p", NumAllNodes: 3, PreFilterMessage: tt.message}
			if got := err.Error(); got != tt.want {
				t.Errorf("message\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestDefaultNormalizeScore(t *testing.T) {
	tests := []struct {
		name    string
		reverse bool
		in      []int64
		want    []int64
	}{
		{"scaled to the highest", false, []int64{10, 5, 0}, []int64{100, 50, 0}},
		{"all zero stays zero", false, []int64{0, 0}, []int64{0, 0}},
		{"reversed", true, []int64{2, 1, 0}, []int64{0, 50, 100}},
		{"reversed all zero is all best", true, []int64{0, 0}, []int64{100, 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := slices.Clone(tt.in)
			DefaultNormalizeScore(MaxNodeScore, tt.reverse, got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStatusNilIsSuccess(t *testing.T) {
	var st *Status
	if !st.IsSuccess() || st.Code() != Success || st.Message() != "" || st.Plugin() != "" || st.WithPlugin("x") != nil {
		t.Fatal("a nil Status must behave as Success")
	}
	st = NewStatus(Unschedulable, "a", "b").WithPlugin("P")
	if st.IsSuccess() || st.Message() != "a, b" || st.Plugin() != "P" {
		t.Fatalf("status = %+v", st)
	}
}

func TestNodeInfoKeepsSumsOfItsPods(t *testing.T) {
	mk := func(name, cpu string, hostPort int32) *api.Pod {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name}, Spec: api.PodSpec{Containers: []api.Container{{Name: "c"}}}}
		if cpu != "" {
			p.Spec.Containers[0].Resources.Requests = api.ResourceList{api.ResourceCPU: api.MustParseQuantity(cpu)}
		}
		if hostPort > 0 {
			p.Spec.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 80, HostPort: hostPort}}
		}
		return p
	}
	n := NewNodeInfo(&api.Node{ObjectMeta: api.ObjectMeta{Name: "n"}, Status: api.NodeStatus{Allocatable: api.ResourceList{
		api.ResourceCPU: api.MustParseQuantity("4"), api.ResourcePods: api.MustParseQuantity("110"),
	}}})
	n.AddPod(NewPodInfo(mk("a", "500m", 8080)))
	n.AddPod(NewPodInfo(mk("b", "", 0)))
	n.AddPod(NewPodInfo(mk("a", "1", 8080))) // same key: replaces, not adds
	if n.Requested.MilliCPU != 1000 || n.NonZeroRequested.MilliCPU != 1100 || len(n.Pods) != 2 {
		t.Fatalf("requested %dm, non-zero %dm, %d pods; want 1000m, 1100m, 2", n.Requested.MilliCPU, n.NonZeroRequested.MilliCPU, len(n.Pods))
	}
	if n.NonZeroRequested.Memory != 2*DefaultMemoryRequest {
		t.Fatalf("non-zero memory = %d, want two defaults", n.NonZeroRequested.Memory)
	}
	if !n.UsedPorts.Conflicts(NewHostPort("", "", 8080)) {
		t.Fatal("port 8080 should be in use")
	}
	if !n.RemovePod("ns/a") || n.RemovePod("ns/a") {
		t.Fatal("RemovePod should succeed once")
	}
	if n.Requested.MilliCPU != 0 || n.NonZeroRequested.MilliCPU != 100 || len(n.UsedPorts) != 0 {
		t.Fatalf("after removal: requested %dm, non-zero %dm, ports %v", n.Requested.MilliCPU, n.NonZeroRequested.MilliCPU, n.UsedPorts)
	}
	if n.Allocatable.MilliCPU != 4000 || n.Allocatable.AllowedPodNumber != 110 {
		t.Fatalf("allocatable = %+v", n.Allocatable)
	}
}

func TestIsScalarResourceName(t *testing.T) {
	for name, want := range map[string]bool{
		"example.com/gpu": true, "nvidia.com/gpu": true, "hugepages-2Mi": true,
		"cpu": false, "memory": false, "kubernetes.io/something": false, "requests.example.com/gpu": false,
	} {
		if got := IsScalarResourceName(name); got != want {
			t.Errorf("IsScalarResourceName(%q) = %v, want %v", name, got, want)
		}
	}
}

// rejectingPreFilter rejects every pod, or succeeds when reason is "",
// writing into the pod's CycleState either way.
type rejectingPreFilter struct{ name, reason string }

func (p *rejectingPreFilter) Name() string { return p.name }

func (p *rejectingPreFilter) PreFilter(pod *PodInfo) *Status {
	pod.CycleState.Write(p.name, "ran")
	if p.reason == "" {
		return nil
	}
	return NewStatus(UnschedulableAndUnresolvable, p.reason)
}

func TestRunPreFiltersStopsAtTheFirstRejection(t *testing.T) {
	pod := NewPodInfo(&api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p"}})
	profile := &Profile{PreFilters: []PreFilterPlugin{
		&rejectingPreFilter{name: "A"},
		&rejectingPreFilter{name: "B", reason: "no"},
		&rejectingPreFilter{name: "C", reason: "never asked"},
	}}
	st := profile.RunPreFilters(pod)
	if st.Code() != UnschedulableAndUnresolvable || st.Message() != "no" || st.Plugin() != "B" {
		t.Fatalf("RunPreFilters = %s %q from %q, want B's rejection", st.Code(), st.Message(), st.Plugin())
	}
	if pod.CycleState.Read("A") != "ran" || pod.CycleState.Read("B") != "ran" || pod.CycleState.Read("C") != nil {
		t.Fatalf("cycle state A=%v B=%v C=%v: A and B should have run, C not", pod.CycleState.Read("A"), pod.CycleState.Read("B"), pod.CycleState.Read("C"))
	}
	if st := (&Profile{PreFilters: []PreFilterPlugin{&rejectingPreFilter{name: "A"}}}).RunPreFilters(pod); st != nil {
		t.Fatalf("RunPreFilters = %v, want nil when every plugin passes", st)
	}
}
