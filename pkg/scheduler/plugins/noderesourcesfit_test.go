package plugins

import (
	"testing"

	"kplane/pkg/api"
)

func TestNodeResourcesFitFilter(t *testing.T) {
	tests := []struct {
		name string
		pod  *api.Pod
		want string
	}{
		{"fits", pod("1", "1Gi"), ""},
		{"no requests fit anywhere with a pod slot", pod("", ""), ""},
		{"too much cpu", pod("5", ""), "Unschedulable: Insufficient cpu"},
		{"too much memory", pod("", "9Gi"), "Unschedulable: Insufficient memory"},
		{"both, in upstream's order", pod("5", "9Gi"), "Unschedulable: Insufficient cpu, Insufficient memory"},
		{"exactly the free amount fits", pod("3", "7Gi"), ""},
		{"one millicore more does not", pod("3001m", ""), "Unschedulable: Insufficient cpu"},
		{"ephemeral storage", pod("", "", func(p *api.Pod) {
			p.Spec.Containers[0].Resources.Requests[api.ResourceEphemeralStorage] = api.MustParseQuantity("1Gi")
		}), "Unschedulable: Insufficient ephemeral-storage"},
		{"extended resource the node lacks", pod("", "", func(p *api.Pod) {
			p.Spec.Containers[0].Resources.Requests["example.com/gpu"] = api.MustParseQuantity("1")
		}), "Unschedulable: Insufficient example.com/gpu"},
		{"overhead counts", pod("2900m", "", func(p *api.Pod) {
			p.Spec.Overhead = api.ResourceList{api.ResourceCPU: api.MustParseQuantity("200m")}
		}), "Unschedulable: Insufficient cpu"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// 4 cpu, 8Gi, 2 pod slots; one pod using 1 cpu and 1Gi already.
			n := node("n", "4", "8Gi", "2", pod("1", "1Gi"))
			if got := verdict((&NodeResourcesFit{}).Filter(info(tt.pod), n)); got != tt.want {
				t.Errorf("Filter = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNodeResourcesFitTooManyPods(t *testing.T) {
	full := node("n", "4", "8Gi", "1", pod("", ""))
	if got := verdict((&NodeResourcesFit{}).Filter(info(pod("", "")), full)); got != "Unschedulable: Too many pods" {
		t.Errorf("Filter on a node with no pod slot left = %q", got)
	}
	// A node that reports no "pods" allocatable takes no pods at all, as upstream.
	none := node("n", "4", "8Gi", "")
	if got := verdict((&NodeResourcesFit{}).Filter(info(pod("5", "")), none)); got != "Unschedulable: Too many pods, Insufficient cpu" {
		t.Errorf("Filter on a node without pods allocatable = %q", got)
	}
}

func TestInitContainersAndSidecarsInRequests(t *testing.T) {
	always := api.ContainerRestartPolicyAlways
	req := func(cpu string) api.ResourceRequirements {
		return api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.MustParseQuantity(cpu)}}
	}
	tests := []struct {
		name      string
		init      []api.Container
		wantMilli int64
	}{
		{"no init containers: the app containers", nil, 1000},
		{"a smaller init container does not add", []api.Container{{Name: "i", Resources: req("500m")}}, 1000},
		{"a bigger init container sets the peak", []api.Container{{Name: "i", Resources: req("3")}}, 3000},
		{"a sidecar adds to the app containers", []api.Container{{Name: "s", Resources: req("500m"), RestartPolicy: &always}}, 1500},
		{"an init container after a sidecar runs beside it", []api.Container{
			{Name: "s", Resources: req("500m"), RestartPolicy: &always},
			{Name: "i", Resources: req("2")},
		}, 2500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod("1", "", func(p *api.Pod) { p.Spec.InitContainers = tt.init })
			if got := info(p).Requests.MilliCPU; got != tt.wantMilli {
				t.Errorf("requested cpu = %dm, want %dm", got, tt.wantMilli)
			}
		})
	}
}

func TestLeastAllocatedScore(t *testing.T) {
	tests := []struct {
		name string
		pod  *api.Pod
		want int64
	}{
		// (4000-1000)/4000 = 75, (8Gi-2Gi)/8Gi = 75 → 75.
		{"a quarter of each", pod("1", "2Gi"), 75},
		// cpu (4000-2000)/4000 = 50, memory (8Gi-0... 200Mi default) → 97; (50+97)/2 = 73.
		{"missing memory request counts 200Mi", pod("2", ""), 73},
		// both defaults: 100m → 97 (97.5 truncated), 200Mi → 97.
		{"a pod without requests", pod("", ""), 97},
		{"more than allocatable scores 0 for that resource", pod("5", "2Gi"), 37},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := node("n", "4", "8Gi", "110")
			if got := (&NodeResourcesFit{}).Score(info(tt.pod), n); got != tt.want {
				t.Errorf("Score = %d, want %d", got, tt.want)
			}
		})
	}
	// The existing pods' (non-zero) requests count: two bare pods use 200m.
	busy := node("n", "4", "8Gi", "110", pod("", ""), pod("", ""))
	if got := (&NodeResourcesFit{}).Score(info(pod("", "")), busy); got != 92 {
		t.Errorf("Score with two bare pods on the node = %d, want 92", got)
	}
}

func TestBalancedAllocationScore(t *testing.T) {
	tests := []struct {
		name string
		pod  *api.Pod
		want int64
	}{
		{"half and half is perfectly balanced", pod("2", "4Gi"), 100},
		{"cpu 90%, memory 10%", pod("3600m", "820Mi"), 60},
		{"no requests: all zero is balanced", pod("", ""), 100},
		{"fractions are capped at 1", pod("8", ""), 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := node("n", "4", "8Gi", "110")
			if got := (&BalancedAllocation{}).Score(info(tt.pod), n); got != tt.want {
				t.Errorf("Score = %d, want %d", got, tt.want)
			}
		})
	}
}
