package scheduler

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/informer"
	"kplane/pkg/scheduler/framework"
	"kplane/pkg/scheduler/plugins"
)

// emptyVolumeListers are claim and volume caches with nothing in them.
func emptyVolumeListers() (*informer.Lister[*api.PersistentVolumeClaim], *informer.Lister[*api.PersistentVolume]) {
	newStore := func() informer.Indexer {
		return informer.NewIndexer(informer.MetaNamespaceKeyFunc, informer.Indexers{})
	}
	return informer.NewLister[*api.PersistentVolumeClaim](newStore(), apierrors.Resource{Resource: "persistentvolumeclaims"}),
		informer.NewLister[*api.PersistentVolume](newStore(), apierrors.Resource{Resource: "persistentvolumes"})
}

// emptyProfile is the default profile over empty claim and volume caches.
func emptyProfile() *framework.Profile {
	claims, volumes := emptyVolumeListers()
	return plugins.DefaultProfile(claims, volumes, nil, nil)
}

// bareScheduler is a Scheduler with only what a scheduling cycle needs.
func bareScheduler(opts Options) *Scheduler {
	return &Scheduler{opts: opts, cache: NewCache(), profile: emptyProfile(), rand: rand.New(rand.NewPCG(1, 2))}
}

func TestNumFeasibleNodesToFind(t *testing.T) {
	tests := []struct {
		percentage, nodes, want int
	}{
		{0, 3, 3},
		{0, 99, 99},
		{0, 100, 100},   // 49% of 100 is below the floor of 100
		{0, 1000, 420},  // 50 - 1000/125 = 42%
		{0, 5000, 500},  // 50 - 40 = 10%
		{0, 10000, 500}, // never below 5%
		{30, 1000, 300},
		{5, 1000, 100}, // never fewer than 100
		{100, 1000, 1000},
	}
	for _, tt := range tests {
		s := bareScheduler(Options{PercentageOfNodesToScore: tt.percentage})
		if got := s.numFeasibleNodesToFind(tt.nodes); got != tt.want {
			t.Errorf("percentage %d, %d nodes: %d, want %d", tt.percentage, tt.nodes, got, tt.want)
		}
	}
}

func TestSelectHostPicksTheBestAndSpreadsTies(t *testing.T) {
	s := bareScheduler(Options{})
	if got := s.selectHost([]int64{10, 30, 20}); got != 1 {
		t.Fatalf("selectHost = %d, want 1", got)
	}
	seen := map[int]bool{}
	for range 200 {
		seen[s.selectHost([]int64{5, 30, 30, 30})] = true
	}
	if seen[0] || !seen[1] || !seen[2] || !seen[3] {
		t.Fatalf("tied nodes chosen: %v, want each of 1, 2, 3 and never 0", seen)
	}
}

func TestSchedulePodRotatesThroughLargeClusters(t *testing.T) {
	s := bareScheduler(Options{})
	for i := range 1000 {
		s.cache.AddNode(cacheNode(fmt.Sprintf("n%04d", i)))
	}
	pod := framework.NewPodInfo(cachePod("p", "", ""))
	var firstFeasible []string
	for range 3 {
		var feasible []*framework.NodeInfo
		s.cache.WithNodes(func(nodes []*framework.NodeInfo) {
			feasible, _ = s.findNodesThatFit(pod, nodes, nil)
		})
		if len(feasible) != 420 {
			t.Fatalf("feasible = %d, want 420", len(feasible))
		}
		firstFeasible = append(firstFeasible, feasible[0].Name())
	}
	// Each cycle starts where the last one stopped.
	if want := []string{"n0000", "n0420", "n0840"}; !slices.Equal(firstFeasible, want) {
		t.Fatalf("first node looked at per cycle = %v, want %v", firstFeasible, want)
	}
}

func TestSchedulePodReportsWhyNothingFits(t *testing.T) {
	s := bareScheduler(Options{})
	if _, err := s.schedulePod(framework.NewPodInfo(cachePod("p", "", ""))); err != framework.ErrNoNodesAvailable {
		t.Fatalf("no nodes: err = %v", err)
	}
	s.cache.AddNode(cacheNode("n1"))
	s.cache.AddNode(cacheNode("n2"))
	_, err := s.schedulePod(framework.NewPodInfo(cachePod("p", "", "5")))
	if err == nil || err.Error() != "0/2 nodes are available: 2 Insufficient cpu." {
		t.Fatalf("err = %v", err)
	}
	// With room on one node, that node is chosen.
	s.cache.AddPod(cachePod("hog", "n1", "3"))
	result, err := s.schedulePod(framework.NewPodInfo(cachePod("p", "", "1")))
	if err != nil || result.node != "n2" || result.feasible != 2 {
		t.Fatalf("result %+v, err %v; want n2 with 2 feasible", result, err)
	}
}

// A PreFilter rejection ends the cycle before any filter runs, and its
// message is given once, not counted per node. No nodes at all is still
// reported first, as upstream checks for nodes before PreFilter.
func TestSchedulePodStopsAtPreFilter(t *testing.T) {
	s := bareScheduler(Options{Verbosity: 4})
	var logs strings.Builder
	s.log = slog.New(slog.NewTextHandler(&logs, nil))
	withMissingClaim := cachePod("p", "", "")
	withMissingClaim.Spec.Volumes = []api.Volume{{Name: "data", VolumeSource: api.VolumeSource{
		PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "data"},
	}}}
	if _, err := s.schedulePod(framework.NewPodInfo(withMissingClaim)); err != framework.ErrNoNodesAvailable {
		t.Fatalf("no nodes: err = %v, want ErrNoNodesAvailable", err)
	}
	s.cache.AddNode(cacheNode("n1"))
	s.cache.AddNode(cacheNode("n2"))
	_, err := s.schedulePod(framework.NewPodInfo(withMissingClaim))
	var fitErr *framework.FitError
	if !errors.As(err, &fitErr) || err.Error() != `0/2 nodes are available: persistentvolumeclaim "data" not found.` {
		t.Fatalf("err = %v, want a FitError with the PreFilter message", err)
	}
	if !strings.Contains(logs.String(), "msg=prefilter") || strings.Contains(logs.String(), "msg=filter ") {
		t.Fatalf("decision log should show the PreFilter rejection and no filter runs:\n%s", logs.String())
	}
}
