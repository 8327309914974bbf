package deployment

import (
	"testing"

	"kplane/pkg/api"
)

func maxReplicasAnn(n string) map[string]string {
	return map[string]string{api.DeploymentMaxReplicasAnnotation: n}
}

func TestProportionalSizes(t *testing.T) {
	tests := []struct {
		name          string
		d             *api.Deployment
		status        int32 // d.Status.Replicas
		active        []*api.ReplicaSet
		wantSizes     map[string]int32
		wantOrder     []string
		wantDirection string
	}{
		{
			// Mid-rollout at 10 (8 old + 5 new under max 13), scaled to 20:
			// the total becomes 25 and both keep their share.
			name: "scale up mid-rollout", d: newDeployment(20, "25%", "25%", "b"),
			active:    []*api.ReplicaSet{plainRS("old", 8, 8, 0, maxReplicasAnn("13")), plainRS("new", 5, 0, 1, maxReplicasAnn("13"))},
			wantSizes: map[string]int32{"old": 15, "new": 10}, wantOrder: []string{"old", "new"}, wantDirection: "up",
		},
		{
			name: "scale down mid-rollout", d: newDeployment(5, "25%", "25%", "b"),
			active:    []*api.ReplicaSet{plainRS("new", 5, 0, 1, maxReplicasAnn("13")), plainRS("old", 8, 8, 0, maxReplicasAnn("13"))},
			wantSizes: map[string]int32{"old": 4, "new": 3}, wantOrder: []string{"old", "new"}, wantDirection: "down",
		},
		{
			// 9 → 10 with no surge: every share rounds to 0, the leftover
			// goes to the first in order — the newest of equals when growing.
			name: "leftover to the largest (newest of equals when growing)", d: newDeployment(10, "0", "1", "b"),
			active: []*api.ReplicaSet{
				plainRS("a", 3, 3, 0, maxReplicasAnn("9")), plainRS("b", 3, 3, 1, maxReplicasAnn("9")), plainRS("c", 3, 3, 2, maxReplicasAnn("9")),
			},
			wantSizes: map[string]int32{"a": 3, "b": 3, "c": 4}, wantOrder: []string{"c", "b", "a"}, wantDirection: "up",
		},
		{
			name: "shrinking takes the oldest of equals first", d: newDeployment(8, "0", "1", "b"),
			active: []*api.ReplicaSet{
				plainRS("a", 3, 3, 0, maxReplicasAnn("9")), plainRS("b", 3, 3, 1, maxReplicasAnn("9")), plainRS("c", 3, 3, 2, maxReplicasAnn("9")),
			},
			wantSizes: map[string]int32{"a": 2, "b": 3, "c": 3}, wantOrder: []string{"a", "b", "c"}, wantDirection: "down",
		},
		{
			name: "scale to zero empties everything", d: newDeployment(0, "25%", "25%", "b"),
			active:    []*api.ReplicaSet{plainRS("old", 6, 6, 0, maxReplicasAnn("13")), plainRS("new", 7, 7, 1, maxReplicasAnn("13"))},
			wantSizes: map[string]int32{"old": 0, "new": 0}, wantOrder: []string{"new", "old"}, wantDirection: "down",
		},
		{
			// Without max-replicas the Deployment's status.replicas (10) is
			// the old total: 25/10 of 6 is 15, of 4 is 10.
			name: "no annotation: status.replicas is the old total", d: newDeployment(20, "25%", "25%", "b"), status: 10,
			active:    []*api.ReplicaSet{plainRS("old", 6, 6, 0, nil), plainRS("new", 4, 4, 1, nil)},
			wantSizes: map[string]int32{"old": 15, "new": 10}, wantOrder: []string{"old", "new"}, wantDirection: "up",
		},
		{
			name: "nothing to add", d: newDeployment(10, "25%", "25%", "b"),
			active:    []*api.ReplicaSet{plainRS("old", 8, 8, 0, maxReplicasAnn("13")), plainRS("new", 5, 0, 1, maxReplicasAnn("13"))},
			wantSizes: map[string]int32{"old": 8, "new": 5}, wantOrder: []string{"old", "new"}, wantDirection: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.d.Status.Replicas = tt.status
			ordered, sizes, direction := proportionalSizes(tt.d, tt.active)
			if direction != tt.wantDirection {
				t.Errorf("direction = %q, want %q", direction, tt.wantDirection)
			}
			var order []string
			var total, wantTotal int32
			for i, rs := range ordered {
				order = append(order, rs.Name)
				if sizes[i] != tt.wantSizes[rs.Name] {
					t.Errorf("%s: size %d, want %d", rs.Name, sizes[i], tt.wantSizes[rs.Name])
				}
				total += sizes[i]
			}
			for _, s := range tt.wantSizes {
				wantTotal += s
			}
			if total != wantTotal {
				t.Errorf("total %d, want %d", total, wantTotal)
			}
			if tt.wantOrder != nil && !equalStrings(order, tt.wantOrder) {
				t.Errorf("order %v, want %v", order, tt.wantOrder)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFindActiveOrLatest(t *testing.T) {
	older, newer := plainRS("older", 0, 0, 0, nil), plainRS("newer", 0, 0, 1, nil)
	active := plainRS("active", 3, 3, 2, nil)
	newRS := plainRS("new", 0, 0, 3, nil)
	tests := []struct {
		name  string
		newRS *api.ReplicaSet
		old   []*api.ReplicaSet
		want  string // "" for nil
	}{
		{"nothing at all", nil, nil, ""},
		{"only one active old", newRS, []*api.ReplicaSet{older, active}, "active"},
		{"none active: the new one", newRS, []*api.ReplicaSet{older, newer}, "new"},
		{"none active, no new: the newest old", nil, []*api.ReplicaSet{older, newer}, "newer"},
		{"two active: proportional scaling", plainRS("new", 2, 0, 3, nil), []*api.ReplicaSet{active}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := findActiveOrLatest(tt.newRS, tt.old)
			name := ""
			if got != nil {
				name = got.Name
			}
			if name != tt.want {
				t.Fatalf("findActiveOrLatest = %q, want %q", name, tt.want)
			}
		})
	}
}

func TestIsSaturated(t *testing.T) {
	d := newDeployment(4, "25%", "25%", "b")
	desired := func(n string) map[string]string { return map[string]string{api.DeploymentDesiredReplicasAnnotation: n} }
	tests := []struct {
		name string
		rs   *api.ReplicaSet
		want bool
	}{
		{"full, annotated and available", plainRS("new", 4, 4, 0, desired("4")), true},
		{"not all available", plainRS("new", 4, 3, 0, desired("4")), false},
		{"annotated for another size", plainRS("new", 4, 4, 0, desired("3")), false},
		{"no annotation", plainRS("new", 4, 4, 0, nil), false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		if got := isSaturated(d, tt.rs); got != tt.want {
			t.Errorf("%s: isSaturated = %v, want %v", tt.name, got, tt.want)
		}
	}
}
