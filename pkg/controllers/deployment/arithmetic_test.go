package deployment

import (
	"slices"
	"testing"

	"kplane/pkg/api"
)

func TestSumReplicaSetsSkipsTheMissingNewReplicaSet(t *testing.T) {
	rss := []*api.ReplicaSet{plainRS("a", 3, 2, 0, nil), nil, plainRS("b", 5, 5, 1, nil)}
	if got := sumReplicaSets(rss, specReplicas); got != 8 {
		t.Errorf("Σ spec.replicas = %d, want 8", got)
	}
	if got := sumReplicaSets(rss, func(rs *api.ReplicaSet) int32 { return rs.Status.AvailableReplicas }); got != 7 {
		t.Errorf("Σ availableReplicas = %d, want 7", got)
	}
	if got := replicas(nil); got != 0 {
		t.Errorf("replicas(nil) = %d, want 0", got)
	}
}

func TestFilterActiveKeepsReplicaSetsAskedForPods(t *testing.T) {
	rss := []*api.ReplicaSet{plainRS("empty", 0, 0, 0, nil), nil, plainRS("running", 2, 2, 1, nil)}
	active := filterActive(rss)
	if len(active) != 1 || active[0].Name != "running" {
		t.Errorf("filterActive = %v, want only running", active)
	}
}

func TestCompareCreationOrdersOldestFirstThenByName(t *testing.T) {
	rss := []*api.ReplicaSet{plainRS("c", 1, 1, 5, nil), plainRS("b", 1, 1, 0, nil), plainRS("a", 1, 1, 5, nil)}
	slices.SortStableFunc(rss, compareCreation)
	var got []string
	for _, rs := range rss {
		got = append(got, rs.Name)
	}
	if want := []string{"b", "a", "c"}; !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v (oldest first, same second by name)", got, want)
	}
}
