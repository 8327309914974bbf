package deployment

import (
	"reflect"
	"strconv"
	"testing"

	"kplane/pkg/api"
)

func revisionRS(name string, rev string, size int32, createdSec int) *api.ReplicaSet {
	ann := map[string]string{}
	if rev != "" {
		ann[api.DeploymentRevisionAnnotation] = rev
	}
	rs := plainRS(name, size, size, createdSec, ann)
	rs.Generation, rs.Status.ObservedGeneration = 1, 1
	return rs
}

func TestMaxRevision(t *testing.T) {
	rss := []*api.ReplicaSet{revisionRS("a", "1", 0, 0), revisionRS("b", "3", 0, 1), revisionRS("c", "bad", 0, 2), revisionRS("d", "", 0, 3)}
	if got := maxRevision(rss); got != 3 {
		t.Fatalf("maxRevision = %d, want 3 (unreadable and missing revisions skipped)", got)
	}
	if got := maxRevision(nil); got != 0 {
		t.Fatalf("maxRevision(nil) = %d, want 0", got)
	}
}

func TestSetNewReplicaSetAnnotations(t *testing.T) {
	d := newDeployment(10, "25%", "25%", "b")
	d.Annotations = map[string]string{
		"kubernetes.io/change-cause":            "kubectl set image deployment/web nginx=b",
		"team":                                  "blue",
		annotationLastApplied:                   `{"kind":"Deployment"}`,
		api.DeploymentRevisionAnnotation:        "7",
		api.DeploymentDesiredReplicasAnnotation: "99",
	}
	tests := []struct {
		name        string
		rs          *api.ReplicaSet
		newRevision int64
		exists      bool
		wantChanged bool
		want        map[string]string
	}{
		{
			name: "new replica set: next revision, copied annotations, replica annotations",
			rs:   &api.ReplicaSet{}, newRevision: 3, exists: false, wantChanged: true,
			want: map[string]string{
				"kubernetes.io/change-cause":            "kubectl set image deployment/web nginx=b",
				"team":                                  "blue",
				api.DeploymentRevisionAnnotation:        "3",
				api.DeploymentDesiredReplicasAnnotation: "10",
				api.DeploymentMaxReplicasAnnotation:     "13",
			},
		},
		{
			name: "rolled back to: old revision moves to the history",
			rs: &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Annotations: map[string]string{
				api.DeploymentRevisionAnnotation: "1", "kubernetes.io/change-cause": "kubectl set image deployment/web nginx=b", "team": "blue"}}},
			newRevision: 3, exists: true, wantChanged: true,
			want: map[string]string{
				"kubernetes.io/change-cause":     "kubectl set image deployment/web nginx=b",
				"team":                           "blue",
				api.DeploymentRevisionAnnotation: "3",
				annotationRevisionHistory:        "1",
			},
		},
		{
			name: "history grows",
			rs: &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Annotations: map[string]string{
				api.DeploymentRevisionAnnotation: "3", annotationRevisionHistory: "1", "kubernetes.io/change-cause": "kubectl set image deployment/web nginx=b", "team": "blue"}}},
			newRevision: 5, exists: true, wantChanged: true,
			want: map[string]string{
				"kubernetes.io/change-cause":     "kubectl set image deployment/web nginx=b",
				"team":                           "blue",
				api.DeploymentRevisionAnnotation: "5",
				annotationRevisionHistory:        "1,3",
			},
		},
		{
			name: "already the newest: nothing changes",
			rs: &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Annotations: map[string]string{
				api.DeploymentRevisionAnnotation: "5", "kubernetes.io/change-cause": "kubectl set image deployment/web nginx=b", "team": "blue"}}},
			newRevision: 3, exists: true, wantChanged: false,
			want: map[string]string{
				"kubernetes.io/change-cause":     "kubectl set image deployment/web nginx=b",
				"team":                           "blue",
				api.DeploymentRevisionAnnotation: "5",
			},
		},
		{
			name: "unreadable revision is left alone",
			rs: &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Annotations: map[string]string{
				api.DeploymentRevisionAnnotation: "x", "kubernetes.io/change-cause": "kubectl set image deployment/web nginx=b", "team": "blue"}}},
			newRevision: 3, exists: true, wantChanged: false,
			want: map[string]string{
				"kubernetes.io/change-cause":     "kubectl set image deployment/web nginx=b",
				"team":                           "blue",
				api.DeploymentRevisionAnnotation: "x",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed := setNewReplicaSetAnnotations(d, tt.rs, tt.newRevision, tt.exists)
			if changed != tt.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tt.wantChanged)
			}
			if !reflect.DeepEqual(tt.rs.Annotations, tt.want) {
				t.Errorf("annotations = %v\nwant %v", tt.rs.Annotations, tt.want)
			}
		})
	}
}

func TestAppendRevisionHistoryIsBounded(t *testing.T) {
	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Annotations: map[string]string{}}}
	for i := 1; i <= 1000; i++ {
		appendRevisionHistory(rs, strconv.Itoa(i))
	}
	history := rs.Annotations[annotationRevisionHistory]
	if len(history) > maxRevisionHistoryChars {
		t.Fatalf("history is %d characters, want at most %d", len(history), maxRevisionHistoryChars)
	}
	if history[len(history)-5:] != ",1000" {
		t.Fatalf("history ends %q, want the newest entry last", history[len(history)-10:])
	}
}

func TestReplicaSetsToCleanup(t *testing.T) {
	names := func(rss []*api.ReplicaSet) []string {
		var out []string
		for _, rs := range rss {
			out = append(out, rs.Name)
		}
		return out
	}
	five := func() []*api.ReplicaSet {
		// Listed out of order: the lowest revisions must go first.
		return []*api.ReplicaSet{
			revisionRS("r3", "3", 0, 3), revisionRS("r1", "1", 0, 1), revisionRS("r5", "5", 0, 5),
			revisionRS("r2", "2", 0, 2), revisionRS("r4", "4", 0, 4),
		}
	}
	tests := []struct {
		name  string
		old   func() []*api.ReplicaSet
		limit int32
		want  []string
	}{
		{"keep the 2 newest", five, 2, []string{"r1", "r2", "r3"}},
		{"within the limit", five, 5, nil},
		{"limit 0 deletes all scaled-down", five, 0, []string{"r1", "r2", "r3", "r4", "r5"}},
		{"a set with pods is skipped, not replaced", func() []*api.ReplicaSet {
			rss := five()
			rss[3].Status.Replicas = 1 // r2 still has a pod
			return rss
		}, 2, []string{"r1", "r3"}},
		{"a set still asked for pods is skipped", func() []*api.ReplicaSet {
			rss := five()
			rss[1].Spec.Replicas = ptr(int32(2)) // r1
			return rss
		}, 2, []string{"r2", "r3"}},
		{"a scale-down not yet observed is skipped", func() []*api.ReplicaSet {
			rss := five()
			rss[1].Generation = 2 // r1
			return rss
		}, 2, []string{"r2", "r3"}},
		{"sets being deleted do not count", func() []*api.ReplicaSet {
			rss := five()
			now := api.NewTime(t0)
			rss[1].DeletionTimestamp = &now // r1
			return rss
		}, 2, []string{"r2", "r3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := names(replicaSetsToCleanup(tt.old(), tt.limit))
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("replicaSetsToCleanup = %v, want %v", got, tt.want)
			}
		})
	}
}
