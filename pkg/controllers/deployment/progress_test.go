package deployment

import (
	"testing"
	"time"

	"kplane/pkg/api"
)

// withStatus sets d's recorded counts and Progressing condition.
func withStatus(d *api.Deployment, total, updated, available int32, progressing *api.DeploymentCondition) *api.Deployment {
	d.Status = api.DeploymentStatus{
		ObservedGeneration: d.Generation, Replicas: total, UpdatedReplicas: updated,
		ReadyReplicas: available, AvailableReplicas: available,
	}
	if progressing != nil {
		d.Status.Conditions = []api.DeploymentCondition{*progressing}
	}
	return d
}

func progressingCond(reason string, status api.ConditionStatus, at time.Time) *api.DeploymentCondition {
	c := newCondition(api.DeploymentProgressing, status, reason, "earlier", at)
	return &c
}

func TestRolloutStatusProgressing(t *testing.T) {
	later := t0.Add(30 * time.Second)
	tests := []struct {
		name string
		d    *api.Deployment
		old  *api.ReplicaSet
		new  *api.ReplicaSet
		now  time.Time
		// want: the Progressing condition's status, reason, message, and
		// whether its lastUpdateTime / lastTransitionTime are now.
		wantStatus         api.ConditionStatus
		wantReason         string
		wantMessage        string
		wantUpdatedNow     bool
		wantTransitionedAt time.Time
	}{
		{
			name: "movement: ReplicaSetUpdated, deadline clock restarts, transition time kept",
			d:    withStatus(newDeployment(10, "25%", "25%", "b"), 10, 0, 10, progressingCond(reasonNewReplicaSetCreated, api.ConditionTrue, t0)),
			old:  plainRS("web-old", 10, 10, 0, nil), new: plainRS("web-new", 3, 0, 1, nil), now: later,
			wantStatus: api.ConditionTrue, wantReason: reasonReplicaSetUpdated, wantMessage: `ReplicaSet "web-new" is progressing.`,
			wantUpdatedNow: true, wantTransitionedAt: t0,
		},
		{
			name: "every replica updated and available: NewReplicaSetAvailable",
			d:    withStatus(newDeployment(10, "25%", "25%", "b"), 12, 9, 10, progressingCond(reasonReplicaSetUpdated, api.ConditionTrue, t0)),
			old:  plainRS("web-old", 0, 0, 0, nil), new: plainRS("web-new", 10, 10, 1, nil), now: later,
			wantStatus: api.ConditionTrue, wantReason: reasonNewReplicaSetAvailable, wantMessage: `ReplicaSet "web-new" has successfully progressed.`,
			wantUpdatedNow: true, wantTransitionedAt: t0,
		},
		{
			name: "no movement within the deadline: unchanged",
			d:    withStatus(newDeployment(10, "25%", "25%", "b"), 13, 3, 10, progressingCond(reasonReplicaSetUpdated, api.ConditionTrue, t0)),
			old:  plainRS("web-old", 10, 10, 0, nil), new: plainRS("web-new", 3, 0, 1, nil), now: t0.Add(599 * time.Second),
			wantStatus: api.ConditionTrue, wantReason: reasonReplicaSetUpdated, wantMessage: "earlier",
			wantUpdatedNow: false, wantTransitionedAt: t0,
		},
		{
			name: "no movement past the deadline: ProgressDeadlineExceeded, status False",
			d:    withStatus(newDeployment(10, "25%", "25%", "b"), 13, 3, 10, progressingCond(reasonReplicaSetUpdated, api.ConditionTrue, t0)),
			old:  plainRS("web-old", 10, 10, 0, nil), new: plainRS("web-new", 3, 0, 1, nil), now: t0.Add(601 * time.Second),
			wantStatus: api.ConditionFalse, wantReason: reasonProgressDeadlineExceeded, wantMessage: `ReplicaSet "web-new" has timed out progressing.`,
			wantUpdatedNow: true, wantTransitionedAt: t0.Add(601 * time.Second),
		},
		{
			name: "a finished rollout is not re-stamped",
			d:    withStatus(newDeployment(10, "25%", "25%", "b"), 10, 10, 10, progressingCond(reasonNewReplicaSetAvailable, api.ConditionTrue, t0)),
			old:  plainRS("web-old", 0, 0, 0, nil), new: plainRS("web-new", 10, 10, 1, nil), now: t0.Add(2 * time.Hour),
			wantStatus: api.ConditionTrue, wantReason: reasonNewReplicaSetAvailable, wantMessage: "earlier",
			wantUpdatedNow: false, wantTransitionedAt: t0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := rolloutStatus([]*api.ReplicaSet{tt.old, tt.new}, tt.new, tt.d, tt.now)
			cond := getCondition(status, api.DeploymentProgressing)
			if cond == nil {
				t.Fatalf("no Progressing condition in %+v", status.Conditions)
			}
			if cond.Status != tt.wantStatus || cond.Reason != tt.wantReason || cond.Message != tt.wantMessage {
				t.Errorf("Progressing = %s/%s %q, want %s/%s %q", cond.Status, cond.Reason, cond.Message, tt.wantStatus, tt.wantReason, tt.wantMessage)
			}
			nowSec := tt.now.UTC().Truncate(time.Second)
			if got := cond.LastUpdateTime.Equal(nowSec); got != tt.wantUpdatedNow {
				t.Errorf("lastUpdateTime = %v, updated now = %v, want %v", cond.LastUpdateTime, got, tt.wantUpdatedNow)
			}
			if !cond.LastTransitionTime.Equal(tt.wantTransitionedAt) {
				t.Errorf("lastTransitionTime = %v, want %v", cond.LastTransitionTime, tt.wantTransitionedAt)
			}
		})
	}
}

func TestRolloutStatusWithoutDeadlineHasNoProgressing(t *testing.T) {
	d := withStatus(newDeployment(3, "25%", "25%", "b"), 3, 3, 3, progressingCond(reasonReplicaSetUpdated, api.ConditionTrue, t0))
	d.Spec.ProgressDeadlineSeconds = nil
	newRS := plainRS("web-new", 3, 3, 1, nil)
	status := rolloutStatus([]*api.ReplicaSet{newRS}, newRS, d, t0)
	if c := getCondition(status, api.DeploymentProgressing); c != nil {
		t.Fatalf("Progressing = %+v, want none without progressDeadlineSeconds", c)
	}
}

func TestAvailableCondition(t *testing.T) {
	tests := []struct {
		name       string
		available  int32
		wantStatus api.ConditionStatus
		wantReason string
		wantMsg    string
	}{
		// 10 replicas at 25%: 8 must be available.
		{"at the minimum", 8, api.ConditionTrue, reasonMinimumReplicasAvailable, "Deployment has minimum availability."},
		{"below the minimum", 7, api.ConditionFalse, reasonMinimumReplicasUnavailable, "Deployment does not have minimum availability."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDeployment(10, "25%", "25%", "b")
			rs := plainRS("web-new", 10, tt.available, 0, nil)
			status := calculateStatus([]*api.ReplicaSet{rs}, rs, d, t0)
			c := getCondition(status, api.DeploymentAvailable)
			if c == nil || c.Status != tt.wantStatus || c.Reason != tt.wantReason || c.Message != tt.wantMsg {
				t.Fatalf("Available = %+v, want %s %s %q", c, tt.wantStatus, tt.wantReason, tt.wantMsg)
			}
			if status.UnavailableReplicas != 10-tt.available {
				t.Errorf("unavailableReplicas = %d, want %d", status.UnavailableReplicas, 10-tt.available)
			}
		})
	}
}

func TestCalculateStatusCounts(t *testing.T) {
	d := newDeployment(10, "25%", "25%", "b")
	d.Generation = 4
	d.Status.CollisionCount = ptr(int32(2))
	old := plainRS("web-old", 8, 8, 0, nil)
	newRS := plainRS("web-new", 5, 3, 1, nil)
	newRS.Status.ReadyReplicas = 4
	// Scaling down leaves more available than asked for: unavailable stays 0.
	extra := plainRS("web-older", 0, 0, 0, nil)
	extra.Status.Replicas, extra.Status.AvailableReplicas = 4, 4

	s := calculateStatus([]*api.ReplicaSet{old, extra, newRS}, newRS, d, t0)
	want := api.DeploymentStatus{ObservedGeneration: 4, Replicas: 17, UpdatedReplicas: 5, ReadyReplicas: 12, AvailableReplicas: 15, UnavailableReplicas: 0}
	if s.ObservedGeneration != want.ObservedGeneration || s.Replicas != want.Replicas || s.UpdatedReplicas != want.UpdatedReplicas ||
		s.ReadyReplicas != want.ReadyReplicas || s.AvailableReplicas != want.AvailableReplicas || s.UnavailableReplicas != want.UnavailableReplicas {
		t.Fatalf("status counts = %+v, want %+v", s, want)
	}
	if s.CollisionCount == nil || *s.CollisionCount != 2 {
		t.Fatalf("collisionCount = %v, want 2 carried over", s.CollisionCount)
	}
}

func TestReplicaFailurePromoted(t *testing.T) {
	d := newDeployment(3, "25%", "25%", "b")
	newRS := plainRS("web-new", 3, 0, 1, nil)
	newRS.Status.Conditions = []api.ReplicaSetCondition{{Type: api.ReplicaSetReplicaFailure, Status: api.ConditionTrue, Reason: "FailedCreate", Message: "quota"}}
	status := rolloutStatus([]*api.ReplicaSet{newRS}, newRS, d, t0)
	c := getCondition(status, api.DeploymentReplicaFailure)
	if c == nil || c.Reason != "FailedCreate" || c.Message != "quota" {
		t.Fatalf("ReplicaFailure = %+v, want the ReplicaSet's FailedCreate", c)
	}
	newRS.Status.Conditions = nil
	d.Status = status
	if c := getCondition(rolloutStatus([]*api.ReplicaSet{newRS}, newRS, d, t0), api.DeploymentReplicaFailure); c != nil {
		t.Fatalf("ReplicaFailure = %+v after the ReplicaSet recovered, want none", c)
	}
}

func TestProgressCheckAfter(t *testing.T) {
	running := func() (*api.Deployment, api.DeploymentStatus) {
		d := withStatus(newDeployment(10, "25%", "25%", "b"), 13, 3, 10, progressingCond(reasonReplicaSetUpdated, api.ConditionTrue, t0))
		return d, d.Status
	}
	tests := []struct {
		name  string
		setup func() (*api.Deployment, api.DeploymentStatus)
		now   time.Time
		want  time.Duration
	}{
		{"stuck rollout: check when the deadline passes", running, t0.Add(100 * time.Second), 500 * time.Second},
		{"deadline passed: now", running, t0.Add(700 * time.Second), 0},
		{"complete: never", func() (*api.Deployment, api.DeploymentStatus) {
			d, s := running()
			s.Replicas, s.UpdatedReplicas, s.AvailableReplicas = 10, 10, 10
			return d, s
		}, t0, -1},
		{"timed out already: never", func() (*api.Deployment, api.DeploymentStatus) {
			d, s := running()
			d.Status.Conditions = []api.DeploymentCondition{*progressingCond(reasonProgressDeadlineExceeded, api.ConditionFalse, t0)}
			return d, s
		}, t0, -1},
		{"no condition yet: never", func() (*api.Deployment, api.DeploymentStatus) {
			d, s := running()
			d.Status.Conditions = nil
			return d, s
		}, t0, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, s := tt.setup()
			if got := progressCheckAfter(d, &s, tt.now); got != tt.want {
				t.Fatalf("progressCheckAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSetConditionKeepsTimesForSameReason(t *testing.T) {
	var s api.DeploymentStatus
	setCondition(&s, newCondition(api.DeploymentAvailable, api.ConditionTrue, reasonMinimumReplicasAvailable, "m", t0))
	setCondition(&s, newCondition(api.DeploymentAvailable, api.ConditionTrue, reasonMinimumReplicasAvailable, "m", t0.Add(time.Hour)))
	if c := getCondition(s, api.DeploymentAvailable); !c.LastUpdateTime.Equal(t0) {
		t.Fatalf("same status and reason rewrote the condition: %+v", c)
	}
	setCondition(&s, newCondition(api.DeploymentAvailable, api.ConditionFalse, reasonMinimumReplicasUnavailable, "m", t0.Add(2*time.Hour)))
	c := getCondition(s, api.DeploymentAvailable)
	if c.Status != api.ConditionFalse || !c.LastTransitionTime.Equal(t0.Add(2*time.Hour)) || len(s.Conditions) != 1 {
		t.Fatalf("status change: %+v (conditions %d), want False transitioned now, one condition", c, len(s.Conditions))
	}
}
