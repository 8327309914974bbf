package timeline

import (
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/debug"
	"kplane/pkg/debug/trace"
)

var t0 = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// at is t0 plus ms milliseconds.
func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// rolloutRecords are the write records of a Deployment's first rollout as
// the journals hold them, each component's in its own order.
func rolloutRecords() []debug.Record {
	return []debug.Record{
		// kubectl's create: only the apiserver recorded it.
		{Seq: 1, Time: at(0), Component: "apiserver", Type: debug.TypeWrite, Stage: "create", Actor: "admin",
			Resource: "deployments.apps", Key: "default/web", UID: "d1", ResourceVersion: "100"},
		{Seq: 2, Time: at(12), Component: "apiserver", Type: debug.TypeWrite, Stage: "create", Actor: "system:kube-controller-manager",
			Resource: "replicasets.apps", Key: "default/web-5d8", UID: "r1", ResourceVersion: "101", Owners: []string{"d1"}},
		{Seq: 3, Time: at(30), Component: "apiserver", Type: debug.TypeWrite, Stage: "bind", Actor: "system:kube-scheduler",
			Resource: "pods", Key: "default/web-5d8-a", UID: "p1", ResourceVersion: "103"},
		{Seq: 4, Time: at(5), Component: "apiserver", Type: debug.TypeWrite, Stage: "update", Actor: "system:node:node1",
			Resource: "leases.coordination.k8s.io", Key: "kube-node-lease/node1", UID: "l1", ResourceVersion: "99"},
		// The controller-manager's own records of its writes: sent a little
		// before the apiserver stored them.
		{Seq: 7, Time: at(10), Component: "controller-manager", Type: debug.TypeWrite, Stage: "create", Actor: "deployment",
			Resource: "replicasets.apps", Key: "default/web-5d8", UID: "r1", ResourceVersion: "101", Owners: []string{"d1"}},
		{Seq: 8, Time: at(20), Component: "controller-manager", Type: debug.TypeWrite, Stage: "create", Actor: "replicaset",
			Resource: "pods", Key: "default/web-5d8-a", UID: "p1", ResourceVersion: "102", Owners: []string{"r1"}},
		{Seq: 9, Time: at(11), Component: "controller-manager", Type: debug.TypeWrite, Stage: "create", Actor: "event-recorder",
			Resource: "events", Key: "default/web.1", UID: "e1", ResourceVersion: "104"},
		// A binding answers a Status: the scheduler's record has no
		// resourceVersion, and pairs with the storing of the same bind.
		{Seq: 3, Time: at(29), Component: "scheduler", Type: debug.TypeWrite, Stage: "bind", Actor: "scheduler",
			Resource: "pods", Key: "default/web-5d8-a", UID: "p1"},
		{Seq: 5, Time: at(50), Component: "kubelet-node1", Type: debug.TypeWrite, Stage: "status", Actor: "kubelet",
			Resource: "pods", Key: "default/web-5d8-a", UID: "p1", ResourceVersion: "105"},
		// Another deployment's write.
		{Seq: 10, Time: at(40), Component: "controller-manager", Type: debug.TypeWrite, Stage: "update", Actor: "deployment",
			Resource: "deployments.apps", Key: "default/db", UID: "d2", ResourceVersion: "104"},
		// Not a write: left out.
		{Seq: 11, Time: at(41), Component: "controller-manager", Type: debug.TypeDecision, Actor: "deployment",
			Resource: "deployments.apps", Key: "default/web", UID: "d1"},
	}
}

func rolloutEvents() []api.Event {
	scaled := api.Event{
		ObjectMeta:     api.ObjectMeta{Name: "web.1", Namespace: "default", UID: "e1", ResourceVersion: "104"},
		InvolvedObject: api.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "web", UID: "d1"},
		Reason:         "ScalingReplicaSet", Message: "Scaled up replica set web-5d8 to 1", Type: api.EventTypeNormal,
		Source: api.EventSource{Component: "deployment-controller"}, Count: 1,
		FirstTimestamp: api.Time{Time: t0}, LastTimestamp: api.Time{Time: t0},
	}
	other := api.Event{
		ObjectMeta:     api.ObjectMeta{Name: "db.1", Namespace: "default", UID: "e2", ResourceVersion: "106"},
		InvolvedObject: api.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "db", UID: "d2"},
		Reason:         "ScalingReplicaSet", Type: api.EventTypeNormal, ReportingController: "deployment-controller",
		EventTime: api.MicroTime{Time: at(1)}, Series: &api.EventSeries{Count: 3, LastObservedTime: api.MicroTime{Time: at(45)}},
	}
	return []api.Event{other, scaled}
}

// lines are the entries as "kind who what object rv".
func lines(entries []Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, strings.Join([]string{e.Kind, e.Who(), e.What(), e.Object(), e.ResourceVersion}, " "))
	}
	return out
}

func assertLines(t *testing.T, got []Entry, want ...string) {
	t.Helper()
	g := lines(got)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n got %s\nwant %s", strings.Join(g, "\n     "), strings.Join(want, "\n     "))
	}
}

func TestMergePairsEachWriteWithItsStoringAndOrdersEverythingByTime(t *testing.T) {
	tl := Merge(rolloutRecords(), rolloutEvents(), Filter{})
	assertLines(t, tl.Entries,
		"write admin create deployments.apps/web 100",
		"write controller-manager/deployment create replicasets.apps/web-5d8 101",
		"event deployment-controller Normal ScalingReplicaSet Deployment/web ",
		"write controller-manager/replicaset create pods/web-5d8-a 102",
		"write scheduler/scheduler bind pods/web-5d8-a 103",
		"write controller-manager/deployment update deployments.apps/db 104",
		"event deployment-controller Normal ScalingReplicaSet Deployment/db ",
		"write kubelet-node1/kubelet status pods/web-5d8-a 105",
	)
	rs := tl.Entries[1]
	if !rs.Stored || rs.User != "system:kube-controller-manager" || rs.Time != at(10) || rs.EtcdKey != "/registry/replicasets/default/web-5d8" {
		t.Errorf("the ReplicaSet's create = %+v; want stored, as system:kube-controller-manager, dated when sent, at its etcd key", rs)
	}
	if pod := tl.Entries[3]; pod.Stored {
		t.Errorf("the pod's create has no apiserver record in the journals, yet is marked stored: %+v", pod)
	}
	if scaled := tl.Entries[2]; scaled.Time != at(11) {
		t.Errorf("the ScalingReplicaSet Event is dated %v, want %v (its write's time, not its whole-second lastTimestamp)", scaled.Time, at(11))
	}
	if db := tl.Entries[6]; db.Count != 3 || db.FirstTime != at(1) || db.Time != at(45) {
		t.Errorf("a series event = count %d first %v last %v; want 3 over its series", db.Count, db.FirstTime, db.Time)
	}
}

func TestMergeFollowsAnObjectDownItsOwnershipWithItsEvents(t *testing.T) {
	followed := trace.NewFollowedSet("deployments.apps", "default", "web", "d1")
	tl := Merge(rolloutRecords(), rolloutEvents(), Filter{Followed: followed})
	assertLines(t, tl.Entries,
		"write admin create deployments.apps/web 100",
		"write controller-manager/deployment create replicasets.apps/web-5d8 101",
		"event deployment-controller Normal ScalingReplicaSet Deployment/web ",
		"write controller-manager/replicaset create pods/web-5d8-a 102",
		"write scheduler/scheduler bind pods/web-5d8-a 103",
		"write kubelet-node1/kubelet status pods/web-5d8-a 105",
	)
}

func TestMergeFiltersByKindTimeAndKeepsTheNewest(t *testing.T) {
	followed := trace.NewFollowedSet("deployments.apps", "default", "web", "d1")
	events := Merge(rolloutRecords(), rolloutEvents(), Filter{Kinds: []string{KindEvent}, Followed: followed})
	assertLines(t, events.Entries, "event deployment-controller Normal ScalingReplicaSet Deployment/web ")

	writes := Merge(rolloutRecords(), rolloutEvents(), Filter{Kinds: []string{KindWrite}, Since: at(29), Limit: 2})
	if writes.Omitted != 1 {
		t.Errorf("omitted %d, want 1 (three writes since 29 ms, limit 2)", writes.Omitted)
	}
	assertLines(t, writes.Entries,
		"write controller-manager/deployment update deployments.apps/db 104",
		"write kubelet-node1/kubelet status pods/web-5d8-a 105",
	)
}

func TestMergeShowsLeasesOnlyWhenFollowingOne(t *testing.T) {
	for _, e := range Merge(rolloutRecords(), nil, Filter{}).Entries {
		if strings.HasPrefix(e.Resource, "leases") {
			t.Errorf("an unfiltered timeline lists a Lease renewal: %+v", e)
		}
	}
	followed := trace.NewFollowedSet("leases.coordination.k8s.io", "kube-node-lease", "node1", "")
	assertLines(t, Merge(rolloutRecords(), nil, Filter{Followed: followed}).Entries,
		"write system:node:node1 update leases.coordination.k8s.io/node1 99")
}

func TestMergeOrdersWritesOfOneInstantByRevision(t *testing.T) {
	records := []debug.Record{
		{Seq: 1, Time: at(0), Component: "b", Type: debug.TypeWrite, Stage: "update", Actor: "x", Resource: "pods", Key: "default/a", ResourceVersion: "12"},
		{Seq: 1, Time: at(0), Component: "a", Type: debug.TypeWrite, Stage: "update", Actor: "x", Resource: "pods", Key: "default/b", ResourceVersion: "11"},
	}
	assertLines(t, Merge(records, nil, Filter{}).Entries,
		"write a/x update pods/b 11",
		"write b/x update pods/a 12")
}

func TestMergeDatesAnEventByItsWriteInTheJournal(t *testing.T) {
	records := []debug.Record{
		{Seq: 1, Time: at(300), Component: "controller-manager", Type: debug.TypeWrite, Stage: "create", Actor: "deployment",
			Resource: "replicasets.apps", Key: "default/web-5d8", ResourceVersion: "101"},
		{Seq: 2, Time: at(310), Component: "controller-manager", Type: debug.TypeWrite, Stage: "create", Actor: "event-recorder",
			Resource: "events", Key: "default/web.1", ResourceVersion: "102"},
	}
	event := api.Event{
		ObjectMeta:     api.ObjectMeta{Name: "web.1", Namespace: "default", UID: "e1", ResourceVersion: "102"},
		InvolvedObject: api.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "web", UID: "d1"},
		Reason:         "ScalingReplicaSet", Type: api.EventTypeNormal, Source: api.EventSource{Component: "deployment-controller"},
		// Whole seconds: before the ReplicaSet's create at 300 ms.
		LastTimestamp: api.Time{Time: t0},
	}
	tl := Merge(records, []api.Event{event}, Filter{})
	assertLines(t, tl.Entries,
		"write controller-manager/deployment create replicasets.apps/web-5d8 101",
		"event deployment-controller Normal ScalingReplicaSet Deployment/web ")
	if tl.Entries[1].Time != at(310) {
		t.Errorf("the Event is dated %v, want its write's %v", tl.Entries[1].Time, at(310))
	}
}
