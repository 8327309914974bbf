package replicaset

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// lastDecision returns the newest decision recorded about default/name.
func (f *fixture) lastDecision(name string) debug.Record {
	f.t.Helper()
	all := f.server.Decisions("default/" + name)
	if len(all) == 0 {
		f.t.Fatalf("no decision recorded about default/%s", name)
	}
	return all[len(all)-1]
}

func TestDecisionCreateCountsTerminatingAndSlowStart(t *testing.T) {
	// Wants 3; one pod runs, one is terminating (not a replica): create 2.
	// Batches start at 1 and double but never exceed what remains: 1, 1.
	rs := newRS("ng-rs", 3, web)
	gone := api.NewTime(testNow)
	terminating := newPod("going", web, ownedBy(rs), onNode("node1"), readyFor(time.Hour))
	terminating.DeletionTimestamp = &gone
	f := newFixture(t, rs, newPod("running", web, ownedBy(rs), onNode("node1"), readyFor(time.Hour)), terminating)
	f.mustSync("default/ng-rs")

	r := f.lastDecision("ng-rs")
	want := "ReplicaSet wants 3, has 1 (1 terminating): create 2 (slow start batches 1, 1)"
	if r.Message != want {
		t.Errorf("message %q\nwant    %q", r.Message, want)
	}
	if r.Values["wants"] != "3" || r.Values["has"] != "1" || r.Values["terminating"] != "1" || r.Values["create"] != "2" || r.Values["created"] != "2" {
		t.Errorf("values %v", r.Values)
	}
	if r.Source != "pkg/controller/replicaset/replica_set.go" || r.Resource != "replicasets.apps" || r.Actor != "replicaset" {
		t.Errorf("source %q resource %q actor %q", r.Source, r.Resource, r.Actor)
	}

	// The next sync finds the creates not yet observed: it says so.
	f.catchUp("ng-rs")
	f.mustSync("default/ng-rs")
	r = f.lastDecision("ng-rs")
	if want := "ReplicaSet wants 3, has 1 (1 terminating): waiting for 2 creates and 0 deletes to be observed before acting again"; r.Message != want {
		t.Errorf("message %q\nwant    %q", r.Message, want)
	}
}

func TestDecisionSlowStartBatchesOfTen(t *testing.T) {
	f := newFixture(t, newRS("ng-rs", 10, web))
	f.mustSync("default/ng-rs")
	if got, want := f.lastDecision("ng-rs").Message, "ReplicaSet wants 10, has 0: create 10 (slow start batches 1, 2, 4, 3)"; got != want {
		t.Errorf("message %q\nwant    %q", got, want)
	}
}

func TestDecisionDeleteNamesVictimsAndTheRuleThatChoseThem(t *testing.T) {
	// Wants 2 of 5: the unassigned, the Pending and the not-ready pod go;
	// the first pod kept is the newer ready one, ready-new.
	rs := newRS("ng-rs", 2, web)
	f := newFixture(t, rs,
		newPod("ready-old", web, ownedBy(rs), onNode("node1"), readyFor(time.Hour)),
		newPod("ready-new", web, ownedBy(rs), onNode("node2"), readyFor(time.Minute)),
		newPod("not-ready", web, ownedBy(rs), onNode("node1")),
		newPod("pending", web, ownedBy(rs), onNode("node2"), inPhase(api.PodPending)),
		newPod("unassigned", web, ownedBy(rs), inPhase(api.PodPending)),
	)
	f.mustSync("default/ng-rs")
	r := f.lastDecision("ng-rs")
	if want := "ReplicaSet wants 2, has 5: delete 3: unassigned, pending, not-ready"; r.Message != want {
		t.Errorf("message %q\nwant    %q", r.Message, want)
	}
	want := []string{
		"unassigned: not scheduled, ready-new kept is on node2",
		"pending: Pending, ready-new kept is Running",
		"not-ready: not ready, ready-new kept is ready",
	}
	if strings.Join(r.Lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n  %s\nwant:\n  %s", strings.Join(r.Lines, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestDecisionBigScaleDownNamesTenVictims(t *testing.T) {
	rs := newRS("ng-rs", 0, web)
	var pods []api.Object
	for i := range 12 {
		pods = append(pods, newPod(fmt.Sprintf("p%02d", i), web, ownedBy(rs), onNode("node1"), readyFor(time.Hour)))
	}
	f := newFixture(t, append([]api.Object{rs}, pods...)...)
	f.mustSync("default/ng-rs")
	r := f.lastDecision("ng-rs")
	if !strings.HasPrefix(r.Message, "ReplicaSet wants 0, has 12: delete 12: ") || !strings.HasSuffix(r.Message, " and 2 more") ||
		len(r.Lines) != 10 || r.Values["delete"] != "12" {
		t.Errorf("record %q with %d lines, values %v; want 12 deletes, 10 named", r.Message, len(r.Lines), r.Values)
	}
}
