package daemonset

// Each test gives the apiserver and the caches some objects, runs one
// sync on a fakeapi.Server and lists the complete, ordered API writes it
// made, then checks what those writes carried and the Events recorded.
// No goroutines of our own, no sleeps.

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

// fixture runs one DaemonSet controller against a fake apiserver.
type fixture struct {
	t        *testing.T
	clock    *clock.Fake
	server   *fakeapi.Server
	recorder *events.FakeRecorder
	ctrl     *Controller
}

// newFixture builds the controller and puts objects in the apiserver and
// the informers' caches.
func newFixture(t *testing.T, objects ...api.Object) *fixture {
	t.Helper()
	clk := newFakeClock()
	server := fakeapi.New(t, fakeapi.WithClock(clk))
	recorder := &events.FakeRecorder{}
	ctrl, err := New(server.Client(), server.Informers(), recorder, Options{Clock: clk, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown) // stops AddAfter's goroutine
	server.Put(t, objects...)
	return &fixture{t: t, clock: clk, server: server, recorder: recorder, ctrl: ctrl}
}

// mustSync runs one sync of the DaemonSet "default/ds".
func (f *fixture) mustSync() {
	f.t.Helper()
	if err := f.ctrl.sync(context.Background(), "default/ds"); err != nil {
		f.t.Fatalf("sync: %v", err)
	}
}

// sentStatus returns the status the last successful status write sent.
func (f *fixture) sentStatus() api.DaemonSetStatus {
	f.t.Helper()
	return fakeapi.Sent[*api.DaemonSet](f.t, f.server, "update daemonsets/status ds").Status
}

// catchUp puts what the apiserver holds of the DaemonSet and its
// revisions into the cache, as the informers deliver the controller's own
// writes.
func (f *fixture) catchUp() {
	f.t.Helper()
	ds, ok := fakeapi.Get[*api.DaemonSet](f.t, f.server, "default", "ds")
	if !ok {
		f.t.Fatal("the apiserver has no daemonset ds")
	}
	f.server.Cache(f.t, ds)
	for _, rev := range fakeapi.List[*api.ControllerRevision](f.t, f.server, "default") {
		f.server.Cache(f.t, rev)
	}
}

// expectEvents fails the test unless the Events recorded so far are
// want. Both are compared sorted: the creates of one slow-start batch and
// parallel deletes record theirs concurrently, in no fixed order.
func (f *fixture) expectEvents(want ...string) {
	f.t.Helper()
	got := slices.Sorted(slices.Values(f.recorder.Events()))
	if want = slices.Sorted(slices.Values(want)); !slices.Equal(got, want) {
		f.t.Errorf("events = %q, want %q", got, want)
	}
}

// createdOn returns the nodes the pods are pinned to, sorted, failing the
// test for a pod bound by spec.nodeName: daemon pods are pinned by
// affinity, so that the scheduler binds them.
func createdOn(t *testing.T, pods []*api.Pod) []string {
	t.Helper()
	var nodes []string
	for _, pod := range pods {
		if pod.Spec.NodeName != "" {
			t.Errorf("pod %s created with spec.nodeName %q; daemon pods are pinned by affinity", pod.Name, pod.Spec.NodeName)
		}
		node, err := targetNodeName(pod)
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, node)
	}
	return slices.Sorted(slices.Values(nodes))
}

// currentRevision is the ControllerRevision the controller makes of ds's
// template (number 1): put it in the fixture to have it exist already,
// and label pods with revisionHash of it to make them current.
func currentRevision(t *testing.T, ds *api.DaemonSet) *api.ControllerRevision {
	t.Helper()
	data, err := api.RevisionData(&ds.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	var collisions int32
	rev := controllerutil.NewControllerRevision(ds, apiVersion, kind, ds.Spec.Template.Labels, data, 1, &collisions)
	rev.UID, rev.ResourceVersion = "uid-"+rev.Name, "1"
	return rev
}

func TestSyncCreatesOnePodPerEligibleNode(t *testing.T) {
	ds := newDS()
	rev := currentRevision(t, ds)
	f := newFixture(t, ds,
		newNode("n1", nil), newNode("n2", nil),
		newNode("master", nil, noSchedule("node-role.kubernetes.io/control-plane")))
	f.mustSync()
	// The first sync records the template as revision 1, then creates a
	// pod for n1 and one for n2 (slow-start batches of 1 and 1).
	f.server.ExpectActions(t,
		"create controllerrevisions "+rev.Name,
		"create pods ds-", "create pods ds-",
		"update daemonsets/status ds")
	stored := fakeapi.Result[*api.ControllerRevision](t, f.server, "create controllerrevisions "+rev.Name)
	if stored.Revision != 1 {
		t.Errorf("revision number = %d, want 1", stored.Revision)
	}
	// Upstream's DaemonSet revisions: the pods' hash label, not the history
	// package's controller.kubernetes.io/hash.
	if stored.Labels["controller-revision-hash"] == "" || stored.Labels["controller.kubernetes.io/hash"] != "" {
		t.Errorf("revision labels = %v, want controller-revision-hash only", stored.Labels)
	}
	created := fakeapi.List[*api.Pod](t, f.server, "default")
	if got := createdOn(t, created); !slices.Equal(got, []string{"n1", "n2"}) {
		t.Fatalf("created on %v, want [n1 n2]", got)
	}
	pod := created[0]
	if pod.GenerateName != "ds-" || pod.Labels["controller-revision-hash"] != revisionHash(rev) || pod.Labels["pod-template-generation"] != "1" {
		t.Errorf("pod generateName %q labels %v", pod.GenerateName, pod.Labels)
	}
	if len(pod.Spec.Tolerations) != 6 {
		t.Errorf("tolerations = %+v, want the six daemon tolerations", pod.Spec.Tolerations)
	}
	f.expectEvents("Normal SuccessfulCreate Created pod: ds-00001", "Normal SuccessfulCreate Created pod: ds-00002")
	decision := controllertest.ExpectDecision(t, f.server.Decisions("default/ds"),
		"DaemonSet wants a pod on 2 of 3 nodes, 0 of them have one → create on n1, n2; delete none",
		map[string]string{"nodes": "3", "eligible": "2", "scheduled": "0", "create": "2", "delete": "0"})
	if want := []string{
		"master: no new pod (untolerated NoSchedule taint), an existing one may stay, 0 pods",
		"n1: eligible, 0 pods",
		"n2: eligible, 0 pods",
	}; !slices.Equal(decision.Lines, want) {
		t.Errorf("decision lines\n%q\nwant\n%q", decision.Lines, want)
	}
	if s := f.sentStatus(); s.DesiredNumberScheduled != 2 || s.CurrentNumberScheduled != 0 || s.ObservedGeneration != 1 {
		t.Errorf("status = %+v", s)
	}

	// The informer has delivered the revision and the status, not the pods
	// yet: a second sync must not create them again.
	f.catchUp()
	f.mustSync()
	f.server.ExpectActions(t)

	// Once the pods arrive, the expectations are met and only the status
	// changes.
	for _, pod := range created {
		f.server.Cache(t, pod)
		f.ctrl.addPod(pod)
	}
	f.mustSync()
	f.server.ExpectActions(t, "update daemonsets/status ds")
	if s := f.sentStatus(); s.CurrentNumberScheduled != 2 || s.UpdatedNumberScheduled != 2 {
		t.Errorf("status = %+v, want 2 current and updated", s)
	}
}

func TestSyncDeletesExtrasAndPodsOfGoneNodes(t *testing.T) {
	ds := newDS()
	rev := currentRevision(t, ds)
	hash := revisionHash(rev)
	f := newFixture(t, ds, rev, newNode("n1", nil),
		newPod(ds, "keep", "n1", hash, 0, api.PodRunning, true),
		newPod(ds, "extra", "n1", hash, 1, api.PodRunning, true),
		newPod(ds, "orphaned", "gone", hash, 0, api.PodRunning, true))
	f.mustSync()
	f.server.ExpectActions(t,
		fakeapi.InAnyOrder("delete pods extra", "delete pods orphaned"), // in parallel
		"update daemonsets/status ds")
	f.expectEvents("Normal SuccessfulDelete Deleted pod: extra", "Normal SuccessfulDelete Deleted pod: orphaned")
}

func TestSyncRollingUpdateDeletesOneOldPodAtATime(t *testing.T) {
	ds := newDS(func(ds *api.DaemonSet) { ds.Generation = 2 })
	old := func(ds *api.DaemonSet, name, node string) *api.Pod {
		p := newPod(ds, name, node, "h-old", 0, api.PodRunning, true)
		p.Labels[PodTemplateGenerationLabel] = "1"
		return p
	}
	f := newFixture(t, ds, currentRevision(t, ds), newNode("n1", nil), newNode("n2", nil), old(ds, "a", "n1"), old(ds, "b", "n2"))
	f.mustSync()
	f.server.ExpectActions(t, "delete pods a", "update daemonsets/status ds") // maxUnavailable 1
	controllertest.ExpectDecision(t, f.server.Decisions("default/ds"),
		"RollingUpdate, maxUnavailable 1 of 2 nodes → delete old pods a (the next sync creates their replacements)",
		map[string]string{"desired": "2", "maxUnavailable": "1", "delete": "1"})

	// OnDelete leaves old pods alone.
	onDelete := newDS(func(ds *api.DaemonSet) {
		ds.Generation = 2
		ds.Spec.UpdateStrategy = api.DaemonSetUpdateStrategy{Type: api.OnDeleteDaemonSetStrategyType}
	})
	f = newFixture(t, onDelete, currentRevision(t, onDelete), newNode("n1", nil), old(onDelete, "a", "n1"))
	f.mustSync()
	f.server.ExpectActions(t, "update daemonsets/status ds")
}

func TestSyncReplacesFailedPodWithBackoff(t *testing.T) {
	ds := newDS()
	rev := currentRevision(t, ds)
	failed := newPod(ds, "failed", "n1", revisionHash(rev), 0, api.PodFailed, false)
	f := newFixture(t, ds, rev, newNode("n1", nil), failed)
	f.mustSync()
	f.server.ExpectActions(t, "delete pods failed", "update daemonsets/status ds")
	f.expectEvents(
		"Normal SuccessfulDelete Deleted pod: failed",
		"Warning FailedDaemonPod Found failed daemon pod default/failed on node n1, will try to kill it",
	)

	// It fails again at once (the cache still shows it): the back-off
	// holds, and the DaemonSet is looked at again when it ends.
	f.catchUp()
	f.ctrl.deletions.DeletionObserved("default/ds", "default/failed")
	f.mustSync()
	f.server.ExpectActions(t)
	if waiting := f.ctrl.queue.Waiting(); !slices.Contains(waiting, "default/ds") {
		t.Errorf("waiting keys = %v, want the DaemonSet back after the back-off", waiting)
	}
	decision := controllertest.ExpectDecision(t, f.server.Decisions("default/ds"),
		"DaemonSet wants a pod on 1 of 1 nodes, 1 of them have one → wait: failed pods back off before they are replaced",
		map[string]string{"backingOff": "1", "create": "0", "delete": "0"})
	if len(decision.Lines) != 2 || !strings.HasPrefix(decision.Lines[1], "n1: failed pod failed backs off, replaced in ") {
		t.Errorf("decision lines %q; want the node, then the failed pod's back-off", decision.Lines)
	}
}
