package chaos

import (
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
)

// testPod is a pod for the checker: labels app=<app>, Ready since
// readySince (zero: not Ready), terminating when deleting.
func testPod(name, uid, app string, readySince time.Time, deleting bool) *api.Pod {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: uid, Labels: map[string]string{"app": app}}}
	if !readySince.IsZero() {
		pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(readySince)}}
	}
	if deleting {
		ts := api.NewTime(readySince)
		pod.DeletionTimestamp = &ts
	}
	return pod
}

func TestBoundsForResolvesLikeUpstream(t *testing.T) {
	tests := []struct {
		replicas               int32
		surge, unavailable     api.IntOrString
		wantSurge, wantUnavail int
	}{
		// 25% of 50 is 12.5: surge rounds up, unavailable down.
		{50, api.FromString("25%"), api.FromString("25%"), 13, 12},
		{50, api.FromInt(1), api.FromInt(0), 1, 0},
		// Both 0 would never progress: upstream makes unavailable 1.
		{10, api.FromString("0%"), api.FromInt(0), 0, 1},
		{10, api.FromInt(1), api.FromString("10%"), 1, 1},
	}
	for _, tt := range tests {
		d := &api.Deployment{Spec: api.DeploymentSpec{Replicas: &tt.replicas, MinReadySeconds: 3,
			Strategy: api.DeploymentStrategy{RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: &tt.surge, MaxUnavailable: &tt.unavailable}}}}
		got, err := BoundsFor(d)
		if err != nil {
			t.Fatalf("BoundsFor(%d, %s, %s): %v", tt.replicas, tt.surge, tt.unavailable, err)
		}
		want := DeploymentBounds{Replicas: int(tt.replicas), MaxSurge: tt.wantSurge, MaxUnavailable: tt.wantUnavail, MinReadySeconds: 3}
		if got != want {
			t.Errorf("BoundsFor(%d, %s, %s) = %+v, want %+v", tt.replicas, tt.surge, tt.unavailable, got, want)
		}
	}
}

func TestCheckerCountsSurgeButNotTerminatingPods(t *testing.T) {
	now := time.Now()
	c := NewChecker(map[string]string{"app": "web"}, "db", map[string]string{"app": "db"})
	c.SetBounds(DeploymentBounds{Replicas: 2, MaxSurge: 1, MaxUnavailable: 0})
	ready := now.Add(-time.Minute)
	pods := []*api.Pod{
		testPod("web-a", "1", "web", ready, false),
		testPod("web-b", "2", "web", ready, false),
		testPod("web-c", "3", "web", time.Time{}, false),
		testPod("web-d", "4", "web", ready, true), // terminating: not counted
		testPod("other", "5", "other", ready, false),
	}
	c.Check(now, "ok", pods)
	if r := c.Report(); r.ViolationCount != 0 || r.MostNonTerminating != 3 {
		t.Fatalf("3 non-terminating of at most 3: report %+v", r)
	}
	c.Check(now, "MODIFIED web-e", append(pods, testPod("web-e", "6", "web", time.Time{}, false)))
	r := c.Report()
	if r.ViolationCount != 1 || !strings.Contains(r.Violations[0].Message, "4 non-terminating pods") || r.Violations[0].Cause != "MODIFIED web-e" {
		t.Fatalf("4 non-terminating of at most 3 should be one violation, got %+v", r)
	}
	if r.Samples != 2 {
		t.Errorf("samples = %d, want 2", r.Samples)
	}
}

func TestCheckerAvailabilityOnlyOnceArmedAndPerMinReadySeconds(t *testing.T) {
	now := time.Now()
	c := NewChecker(map[string]string{"app": "web"}, "db", map[string]string{"app": "db"})
	c.SetBounds(DeploymentBounds{Replicas: 3, MaxSurge: 1, MaxUnavailable: 1, MinReadySeconds: 10})
	pods := []*api.Pod{
		testPod("web-a", "1", "web", now.Add(-time.Minute), false),
		// Ready, but for less than minReadySeconds: not available.
		testPod("web-b", "2", "web", now.Add(-2*time.Second), false),
		testPod("web-c", "3", "web", time.Time{}, false),
	}
	c.Check(now, "before arming", pods)
	if r := c.Report(); r.ViolationCount != 0 {
		t.Fatalf("availability is not checked before ArmAvailability: %+v", r.Violations)
	}
	c.ArmAvailability()
	c.Check(now, "armed", pods)
	r := c.Report()
	if r.ViolationCount != 1 || !strings.Contains(r.Violations[0].Message, "1 available pods") || r.FewestAvailable != 1 {
		t.Fatalf("1 available of at least 2 should be one violation, got %+v", r)
	}
	c.Check(now.Add(20*time.Second), "later", pods)
	if r := c.Report(); r.ViolationCount != 1 {
		t.Fatalf("20 s later web-b is available too (2 of at least 2): %+v", r.Violations)
	}
}

func TestCheckerCatchesTwoPodsWithOneOrdinal(t *testing.T) {
	now := time.Now()
	c := NewChecker(map[string]string{"app": "web"}, "db", map[string]string{"app": "db"})
	c.SetBounds(DeploymentBounds{Replicas: 0, MaxSurge: 0, MaxUnavailable: 0})
	c.Check(now, "ok", []*api.Pod{testPod("db-0", "a", "db", now, false), testPod("db-1", "b", "db", now, true)})
	if r := c.Report(); r.ViolationCount != 0 || r.MostPerOrdinal != 1 {
		t.Fatalf("distinct ordinals: %+v", r)
	}
	// A terminating db-1 still counts: its containers may still run.
	c.Check(now, "ADDED db-1", []*api.Pod{testPod("db-1", "b", "db", now, true), testPod("db-1", "c", "db", time.Time{}, false)})
	r := c.Report()
	if r.ViolationCount != 1 || !strings.Contains(r.Violations[0].Message, "ordinal 1") {
		t.Fatalf("two db-1 pods should be one violation, got %+v", r)
	}
}

func TestOrdinalOf(t *testing.T) {
	for name, want := range map[string]int{"db-0": 0, "db-12": 12, "db-x": -1, "dbx-1": -1, "db--1": -1, "db-0-1": -1} {
		got, ok := ordinalOf("db", name)
		if (want < 0) == ok || (ok && got != want) {
			t.Errorf("ordinalOf(db, %s) = %d, %v; want %d", name, got, ok, want)
		}
	}
}
