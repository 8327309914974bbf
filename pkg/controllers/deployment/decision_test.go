package deployment

import (
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// The decision tests run one sync through the fixture and read the
// decision the controller recorded (fakeapi's journal), checking its
// numbers against the rollout arithmetic done by hand in the test.

// decisions returns what the controller recorded about default/web.
func (f *fixture) decisions() []debug.Record {
	f.t.Helper()
	return f.server.Decisions("default/web")
}

// lastDecision returns the newest decision about default/web.
func (f *fixture) lastDecision() debug.Record {
	f.t.Helper()
	all := f.decisions()
	if len(all) == 0 {
		f.t.Fatal("the sync recorded no decision about default/web")
	}
	return all[len(all)-1]
}

// wantValues fails unless r has every name=value of want.
func wantValues(t *testing.T, r debug.Record, want map[string]string) {
	t.Helper()
	for name, value := range want {
		if r.Values[name] != value {
			t.Errorf("value %s = %q, want %q (all values %v)", name, r.Values[name], value, r.Values)
		}
	}
}

// wantLine fails unless one of r's lines contains part.
func wantLine(t *testing.T, r debug.Record, part string) {
	t.Helper()
	for _, l := range r.Lines {
		if strings.Contains(l, part) {
			return
		}
	}
	t.Errorf("no line contains %q; lines:\n  %s", part, strings.Join(r.Lines, "\n  "))
}

func TestDecisionTemplateChangeRecordsFencepostsAndBothSteps(t *testing.T) {
	// 10 replicas at 25%/25%: maxSurge ⌈2.5⌉ = 3, maxUnavailable ⌊2.5⌋ = 2.
	// The new ReplicaSet is created at min(13 − 10 counted, 10) = 3; then
	// the old one may lose 13 asked − 8 min available − 3 new not
	// available = 2: 10 → 8.
	d := newDeployment(10, "25%", "25%", "nginx:1.28")
	old := rsFor(d, "nginx:1.27", 10, 10, 1, 0)
	d.Status = api.DeploymentStatus{ObservedGeneration: 1, Replicas: 10, AvailableReplicas: 10, ReadyReplicas: 10}
	f := newFixture(t, d, old)
	f.mustSync()

	r := f.lastDecision()
	want := "replicas 10, maxSurge 25% → 3 (rounded up), maxUnavailable 25% → 2 (rounded down): new ReplicaSet 0 → 3, old 10 → 8"
	if r.Message != want {
		t.Errorf("message %q\nwant    %q", r.Message, want)
	}
	wantValues(t, r, map[string]string{"replicas": "10", "maxSurge": "3", "maxUnavailable": "2",
		"newReplicasFrom": "0", "newReplicasTo": "3", "oldReplicasFrom": "10", "oldReplicasTo": "8", "newReplicaSet": "web-" + hashOf(d)})
	wantLine(t, r, "created new ReplicaSet web-"+hashOf(d)+" with 3: min(max total 13 − 10 counted, replicas 10)")
	wantLine(t, r, "min available = replicas 10 − maxUnavailable 2 = 8; may remove 13 asked − 8 min available − 3 new not available = 2")
	wantLine(t, r, "old ReplicaSet "+old.Name+": 10 available of all ReplicaSets, 2 above min 8 (oldest first): 10 → 8")
	if r.Source != "pkg/controller/deployment/rolling.go" || r.Actor != "deployment" || r.Resource != "deployments.apps" || r.UID != "uid-web" {
		t.Errorf("record names source %q actor %q resource %q uid %q", r.Source, r.Actor, r.Resource, r.UID)
	}
	if len(f.decisions()) != 1 {
		t.Errorf("one sync recorded %d decisions, want 1", len(f.decisions()))
	}
}

func TestDecisionScaleUpShowsRoomArithmetic(t *testing.T) {
	// Worked example step 2: old at 8 pods, new at 3 none available:
	// counted 8 + 3 = 11, room 13 − 11 = 2, capped by 10 − 3 = 7: 3 → 5.
	d := newDeployment(10, "25%", "25%", "nginx:1.28")
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "2"}
	old := rsFor(d, "nginx:1.27", 8, 8, 1, 0)
	newRS := rsFor(d, "nginx:1.28", 3, 0, 2, 10)
	f := newFixture(t, d, old, newRS)
	f.mustSync()

	r := f.lastDecision()
	if !strings.HasSuffix(r.Message, ": new ReplicaSet 3 → 5, old 8") {
		t.Errorf("message %q, want it to end in the step new 3 → 5, old unchanged at 8", r.Message)
	}
	wantValues(t, r, map[string]string{"newReplicasFrom": "3", "newReplicasTo": "5", "oldReplicasFrom": "8", "oldReplicasTo": "8"})
	wantLine(t, r, "new ReplicaSet "+newRS.Name+": max total = replicas 10 + maxSurge 3 = 13, counted 11 → grows by min(13 − 11, 10 − 3) = 2: 3 → 5")
}

func TestDecisionScaleDownAndWaiting(t *testing.T) {
	// midRollout: old 8 (all available), new 5. With no new pod available
	// the old side may lose 13 − 8 − 5 = 0: the rollout waits.
	d, old, newRS := midRollout(0)
	f := newFixture(t, d, old, newRS)
	f.mustSync()
	r := f.lastDecision()
	if !strings.HasSuffix(r.Message, ": new ReplicaSet 5, old 8") {
		t.Errorf("waiting message %q, want no step (new 5, old 8)", r.Message)
	}
	wantLine(t, r, "new ReplicaSet "+newRS.Name+" cannot grow: max total = replicas 10 + maxSurge 3 = 13, counted 13")
	wantLine(t, r, "may remove 13 asked − 8 min available − 5 new not available = 0")

	// The same sync again decides the same: nothing more is recorded.
	before := len(f.decisions())
	f.deliver()
	f.mustSync()
	if got := len(f.decisions()); got != before {
		t.Errorf("a sync that decided the same again recorded %d more decisions", got-before)
	}

	// Three new pods become available: 13 − 8 − 2 = 3 old may go, 8 → 5.
	newRS.Status.AvailableReplicas, newRS.Status.ReadyReplicas = 3, 3
	f.server.Put(t, newRS)
	f.mustSync()
	r = f.lastDecision()
	if !strings.HasSuffix(r.Message, ": new ReplicaSet 5, old 8 → 5") {
		t.Errorf("message %q, want the step old 8 → 5", r.Message)
	}
	wantLine(t, r, "may remove 13 asked − 8 min available − 2 new not available = 3")
	wantLine(t, r, "old ReplicaSet "+old.Name+": 11 available of all ReplicaSets, 3 above min 8 (oldest first): 8 → 5")
}

func TestDecisionUnhealthyOldPodsGoFirst(t *testing.T) {
	// Old at 8 with 6 available, new at 5 all available: budget
	// 13 − 8 − 0 = 5. The 2 unavailable old pods go first (8 → 6), then
	// 6 + 5 = 11 available is 3 above the minimum of 8: 6 → 3.
	d := newDeployment(10, "25%", "25%", "nginx:1.28")
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "2"}
	old := rsFor(d, "nginx:1.27", 8, 6, 1, 0)
	newRS := rsFor(d, "nginx:1.28", 5, 5, 2, 10)
	f := newFixture(t, d, old, newRS)
	f.mustSync()
	r := f.lastDecision()
	wantLine(t, r, "old ReplicaSet "+old.Name+": 2 of 8 not available, removed first (it costs no availability): 8 → 6")
	wantLine(t, r, "old ReplicaSet "+old.Name+": 11 available of all ReplicaSets, 3 above min 8 (oldest first): 6 → 3")
	wantValues(t, r, map[string]string{"oldReplicasFrom": "8", "oldReplicasTo": "3"})
}

func TestDecisionRecreateScalesOldToZeroFirst(t *testing.T) {
	d := recreate(newDeployment(3, "", "", "nginx:1.28"))
	old := rsFor(d, "nginx:1.27", 3, 3, 1, 0)
	f := newFixture(t, d, old)
	f.mustSync()
	r := f.lastDecision()
	want := "Recreate, replicas 3: scale old to 0, wait, then new to 3: no new ReplicaSet yet, old 3 → 0"
	if r.Message != want || r.Source != "pkg/controller/deployment/recreate.go" {
		t.Errorf("record %q from %q\nwant   %q from recreate.go", r.Message, r.Source, want)
	}
}

func TestDecisionScalingEventIsFromSync(t *testing.T) {
	d := newDeployment(3, "25%", "25%", "nginx")
	rs := rsFor(newDeployment(4, "25%", "25%", "nginx"), "nginx", 4, 4, 1, 0)
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "1"}
	f := newFixture(t, d, rs)
	f.mustSync()
	r := f.lastDecision()
	want := "scaled to replicas 3 without a rollout step: new ReplicaSet 4 → 3, old 0"
	if r.Message != want || r.Source != "pkg/controller/deployment/sync.go" {
		t.Errorf("record %q from %q\nwant   %q from sync.go", r.Message, r.Source, want)
	}
	wantLine(t, r, "ReplicaSet "+rs.Name+" is the only active one: it takes all of replicas, 4 → 3")
}

func TestDecisionProportionalScaling(t *testing.T) {
	// 10 replicas mid-rollout, old 8 and new 5 (13 = 10 + 3), scaled to
	// 20: allowed 20 + 5 = 25, +12 to spread. The old one (sized under
	// max 13) gets round(8 × 25 / 13) − 8 = 7, the new one the rest, 5.
	d, old, newRS := midRollout(5)
	d.Spec.Replicas = ptr(int32(20))
	f := newFixture(t, d, old, newRS)
	f.mustSync()
	r := f.lastDecision()
	wantLine(t, r, "proportional scaling: allowed = replicas 20 + maxSurge 5 = 25, the 2 active ReplicaSets ask for 13: +12 spread by size, largest first")
	wantLine(t, r, "ReplicaSet "+old.Name+": 8 → 15")
	wantLine(t, r, "ReplicaSet "+newRS.Name+": 5 → 10")
	wantValues(t, r, map[string]string{"newReplicasFrom": "5", "newReplicasTo": "10", "oldReplicasFrom": "8", "oldReplicasTo": "15"})
}

func TestDecisionCompleteRolloutSaysSo(t *testing.T) {
	d := newDeployment(3, "25%", "25%", "nginx:1.27")
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "1"}
	rs := rsFor(d, "nginx:1.27", 3, 3, 1, 0)
	f := newFixture(t, d, rs)
	f.mustSync()
	r := f.lastDecision()
	if !strings.HasSuffix(r.Message, "; rollout complete: 3 of 3 updated and available") || r.Source != "pkg/controller/deployment/progress.go" {
		t.Errorf("record %q from %q, want the completed rollout from progress.go", r.Message, r.Source)
	}
}

func TestFencepostsRounding(t *testing.T) {
	tests := []struct {
		replicas           int32
		surge, unavailable string
		want               string
	}{
		{10, "25%", "25%", "replicas 10, maxSurge 25% → 3 (rounded up), maxUnavailable 25% → 2 (rounded down)"},
		{3, "50%", "50%", "replicas 3, maxSurge 50% → 2 (rounded up), maxUnavailable 50% → 1 (rounded down)"},
		{10, "1", "0", "replicas 10, maxSurge 1, maxUnavailable 0"},
		// ⌈0⌉ and ⌊0.25⌋ are both 0: maxUnavailable is raised to 1.
		{1, "0%", "25%", "replicas 1, maxSurge 0% → 0 (rounded up), maxUnavailable 25% → 1 (rounded down to 0, raised to 1: with both 0 no pod could ever move)"},
		{1, "25%", "25%", "replicas 1, maxSurge 25% → 1 (rounded up), maxUnavailable 25% → 0 (rounded down)"},
		// maxUnavailable never exceeds replicas.
		{2, "0", "5", "replicas 2, maxSurge 0, maxUnavailable 5 → 2 (at most replicas)"},
	}
	for _, tt := range tests {
		d := newDeployment(tt.replicas, tt.surge, tt.unavailable, "nginx")
		if got := fenceposts(d); got != tt.want {
			t.Errorf("fenceposts(%d, %s, %s)\n = %q\nwant %q", tt.replicas, tt.surge, tt.unavailable, got, tt.want)
		}
	}
}

func TestDecisionWithoutAStepSaysWhatItWaitsFor(t *testing.T) {
	// A new Deployment's ReplicaSet has all 3 pods asked for, 1 available.
	d := newDeployment(3, "25%", "25%", "nginx:1.27")
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "1"}
	rs := rsFor(d, "nginx:1.27", 3, 1, 1, 0)
	f := newFixture(t, d, rs)
	f.mustSync()
	r := f.lastDecision()
	if !strings.HasSuffix(r.Message, ": new ReplicaSet 3, old 0") {
		t.Errorf("message %q", r.Message)
	}
	wantLine(t, r, "no step this sync: 3 of 3 replicas updated, 1 available; waiting for the ReplicaSets' pods")
}

func TestDecisionProgressDeadlineExceeded(t *testing.T) {
	// Stuck mid-rollout (no new pod ever available); once 600 s pass
	// without progress the sync declares the deadline exceeded.
	d, old, newRS := midRollout(0)
	f := newFixture(t, d, old, newRS)
	f.mustSync()
	f.deliver()
	f.clock.Step(601 * time.Second)
	f.mustSync()
	r := f.lastDecision()
	if !strings.HasSuffix(r.Message, ": new ReplicaSet 5, old 8; progress deadline exceeded: no progress for 600s") || r.Source != "pkg/controller/deployment/progress.go" {
		t.Errorf("record %q from %q, want the exceeded deadline from progress.go", r.Message, r.Source)
	}
}

func TestDecisionPausedOnlyScales(t *testing.T) {
	d := newDeployment(5, "25%", "25%", "nginx:1.28")
	d.Spec.Paused = true
	old := rsFor(newDeployment(3, "25%", "25%", "nginx:1.28"), "nginx:1.27", 3, 3, 1, 0)
	f := newFixture(t, d, old)
	f.mustSync()
	r := f.lastDecision()
	if want := "paused, replicas 5: only scaled, no rollout: no new ReplicaSet yet, old 3 → 5"; r.Message != want || r.Source != "pkg/controller/deployment/sync.go" {
		t.Errorf("record %q from %q\nwant   %q from sync.go", r.Message, r.Source, want)
	}
}
