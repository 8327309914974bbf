package deployment

import (
	"reflect"
	"testing"

	"kplane/pkg/api"
)

func TestNewReplicaSetReplicas(t *testing.T) {
	tests := []struct {
		name    string
		d       *api.Deployment
		old     []*api.ReplicaSet
		newSize int32
		want    int32
	}{
		{"brand new deployment starts with the full count", newDeployment(10, "25%", "25%", "b"), nil, 0, 10},
		{"template change: new RS gets the surge", newDeployment(10, "25%", "25%", "b"), []*api.ReplicaSet{plainRS("old", 10, 10, 0, nil)}, 0, 3},
		{"room after old scaled down", newDeployment(10, "25%", "25%", "b"), []*api.ReplicaSet{plainRS("old", 8, 8, 0, nil)}, 3, 5},
		{"old pods not deleted yet still take room", newDeployment(10, "25%", "25%", "b"), []*api.ReplicaSet{withStatusReplicas(plainRS("old", 8, 8, 0, nil), 10)}, 3, 3},
		{"no room: total at replicas+surge", newDeployment(10, "25%", "25%", "b"), []*api.ReplicaSet{plainRS("old", 10, 10, 0, nil)}, 3, 3},
		{"never beyond replicas", newDeployment(10, "25%", "25%", "b"), []*api.ReplicaSet{plainRS("old", 2, 2, 0, nil)}, 9, 10},
		{"maxSurge 0 waits for the old to shrink", newDeployment(3, "0", "1", "b"), []*api.ReplicaSet{plainRS("old", 3, 3, 0, nil)}, 0, 0},
		{"maxSurge 0 after one old pod went", newDeployment(3, "0", "1", "b"), []*api.ReplicaSet{plainRS("old", 2, 2, 0, nil)}, 0, 1},
		{"recreate takes everything at once", recreate(newDeployment(4, "", "", "b")), []*api.ReplicaSet{plainRS("old", 0, 0, 0, nil)}, 0, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newRS := plainRS("new", tt.newSize, 0, 9, nil)
			got, err := newReplicaSetReplicas(tt.d, append(tt.old, newRS), newRS)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("newReplicaSetReplicas = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestMaxScaledDown(t *testing.T) {
	tests := []struct {
		name  string
		d     *api.Deployment
		old   []*api.ReplicaSet
		newRS *api.ReplicaSet
		want  int32
	}{
		// 13 asked for, 8 must stay available, 3 new not yet available.
		{"first step of 10 at 25%/25%", newDeployment(10, "25%", "25%", "b"),
			[]*api.ReplicaSet{plainRS("old", 10, 10, 0, nil)}, plainRS("new", 3, 0, 1, nil), 2},
		// Upstream's example: 10 replicas, maxUnavailable 2, maxSurge 3, the
		// new pods crash-loop: 13 - 8 - 5 = 0, the old pods are protected.
		{"broken new template eats the whole budget", newDeployment(10, "3", "2", "b"),
			[]*api.ReplicaSet{plainRS("old", 8, 8, 0, nil)}, plainRS("new", 5, 0, 1, nil), 0},
		{"new pods available free the budget", newDeployment(10, "3", "2", "b"),
			[]*api.ReplicaSet{plainRS("old", 8, 8, 0, nil)}, plainRS("new", 5, 5, 1, nil), 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maxScaledDown(tt.d, append(tt.old, tt.newRS), tt.newRS); got != tt.want {
				t.Fatalf("maxScaledDown = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestUnhealthyCleanupSteps(t *testing.T) {
	tests := []struct {
		name   string
		old    []*api.ReplicaSet
		budget int32
		want   []scaleStep
	}{
		{"only the unavailable pods go", []*api.ReplicaSet{plainRS("a", 5, 3, 0, nil), plainRS("b", 4, 4, 1, nil)}, 10,
			[]scaleStep{{index: 0, to: 3}}},
		{"budget spreads oldest first", []*api.ReplicaSet{plainRS("a", 5, 0, 0, nil), plainRS("b", 4, 1, 1, nil)}, 6,
			[]scaleStep{{index: 0, to: 0}, {index: 1, to: 3}}},
		{"no budget", []*api.ReplicaSet{plainRS("a", 5, 0, 0, nil)}, 0, nil},
		{"all healthy", []*api.ReplicaSet{plainRS("a", 5, 5, 0, nil)}, 4, nil},
		{"scaled-down sets are skipped", []*api.ReplicaSet{plainRS("a", 0, 0, 0, nil), plainRS("b", 2, 0, 1, nil)}, 4,
			[]scaleStep{{index: 1, to: 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unhealthyCleanupSteps(tt.old, tt.budget); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("unhealthyCleanupSteps = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRollingScaleDownSteps(t *testing.T) {
	d := newDeployment(10, "25%", "25%", "b") // minAvailable 8
	tests := []struct {
		name  string
		old   []*api.ReplicaSet
		newRS *api.ReplicaSet
		want  []scaleStep
	}{
		{"10 available, 8 must stay: scale down by maxUnavailable",
			[]*api.ReplicaSet{plainRS("old", 10, 10, 0, nil)}, plainRS("new", 3, 0, 5, nil),
			[]scaleStep{{index: 0, to: 8}}},
		{"new pods became available",
			[]*api.ReplicaSet{plainRS("old", 8, 8, 0, nil)}, plainRS("new", 5, 3, 5, nil),
			[]scaleStep{{index: 0, to: 5}}},
		{"at the minimum: nothing",
			[]*api.ReplicaSet{plainRS("old", 8, 8, 0, nil)}, plainRS("new", 5, 0, 5, nil),
			nil},
		// The old set was just scaled 3→2; its status, not yet updated by
		// the ReplicaSet controller, still counts 3 available. Only 2 of
		// them stay: 2 + 7 = 9 available, so one more may go, not two.
		{"status counting pods above spec.replicas (being deleted)",
			[]*api.ReplicaSet{plainRS("old", 2, 3, 0, nil)}, plainRS("new", 10, 7, 5, nil),
			[]scaleStep{{index: 0, to: 1}}},
		// Given newest first; the oldest ReplicaSet is emptied first.
		{"oldest first across several old sets",
			[]*api.ReplicaSet{plainRS("y", 6, 6, 2, nil), plainRS("x", 2, 2, 1, nil)}, plainRS("new", 5, 5, 5, nil),
			[]scaleStep{{index: 1, to: 0}, {index: 0, to: 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := append(append([]*api.ReplicaSet(nil), tt.old...), tt.newRS)
			if got := rollingScaleDownSteps(d, all, tt.old); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("rollingScaleDownSteps = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// withStatusReplicas sets how many pods rs still has (status.replicas), as
// right after a scale-down the ReplicaSet controller has not acted on yet.
func withStatusReplicas(rs *api.ReplicaSet, n int32) *api.ReplicaSet {
	rs.Status.Replicas = n
	return rs
}
