package resourcequota

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/events"
	"kplane/pkg/quota"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

// These tests follow sample-controller's fixture pattern: objects go into
// the fake apiserver and the informers' caches (fakeapi's Put), one sync
// runs, and the test lists the API writes the controller made.

var testNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

type fixture struct {
	server     *fakeapi.Server
	controller *Controller
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	server := fakeapi.New(t)
	ctrl, err := New(server.Client(), server.Informers(), &events.FakeRecorder{},
		Options{Logger: slog.New(slog.DiscardHandler), Clock: clock.NewFake(testNow)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{server: server, controller: ctrl}
}

func list(pairs ...string) api.ResourceList {
	l := api.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		l[pairs[i]] = api.MustParseQuantity(pairs[i+1])
	}
	return l
}

func newQuota(hard api.ResourceList) *api.ResourceQuota {
	return &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Name: "q", Namespace: "team", ResourceVersion: "1"}, Spec: api.ResourceQuotaSpec{Hard: hard}}
}

func newPod(name, cpu string, phase api.PodPhase) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "team", ResourceVersion: "1"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx",
			Resources: api.ResourceRequirements{Requests: list("cpu", cpu)}}}},
		Status: api.PodStatus{Phase: phase}}
}

func (f *fixture) storedQuota(t *testing.T) *api.ResourceQuota {
	t.Helper()
	q, ok := fakeapi.Get[*api.ResourceQuota](t, f.server, "team", "q")
	if !ok {
		t.Fatal("quota q is not stored")
	}
	return q
}

// A new quota gets status.hard from spec.hard and status.used from the pods
// in its namespace; a finished pod and a pod elsewhere are not counted.
func TestSyncNewQuotaCountsRunningPods(t *testing.T) {
	f := newFixture(t)
	elsewhere := newPod("other", "1", api.PodRunning)
	elsewhere.Namespace = "other"
	f.server.Put(t, newQuota(list("pods", "10", "requests.cpu", "2")),
		newPod("a", "100m", api.PodRunning), newPod("b", "250m", api.PodPending), newPod("done", "1", api.PodSucceeded), elsewhere)
	if err := f.controller.sync(context.Background(), "team/q"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, "update resourcequotas/status q")
	got := f.storedQuota(t)
	if !quota.Equals(got.Status.Hard, list("pods", "10", "requests.cpu", "2")) {
		t.Errorf("status.hard = %v", got.Status.Hard)
	}
	if want := list("pods", "2", "requests.cpu", "350m"); !quota.Equals(got.Status.Used, want) {
		t.Errorf("status.used = %v, want %v", got.Status.Used, want)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("team/q"),
		"status.hard ← spec.hard (pods=10,requests.cpu=2); recounted pods none → 2, requests.cpu none → 350m", nil)
}

// A quota whose status is already right is not written again.
func TestSyncUpToDateQuotaWritesNothing(t *testing.T) {
	f := newFixture(t)
	q := newQuota(list("pods", "10"))
	q.Status = api.ResourceQuotaStatus{Hard: list("pods", "10"), Used: list("pods", "1")}
	f.server.Put(t, q, newPod("a", "100m", api.PodRunning))
	if err := f.controller.sync(context.Background(), "team/q"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t)
}

// Replenishment: a deleted pod enqueues its namespace's quota, and the
// sync gives the pod's share back.
func TestPodDeletedReplenishesQuota(t *testing.T) {
	f := newFixture(t)
	q := newQuota(list("pods", "2"))
	q.Status = api.ResourceQuotaStatus{Hard: list("pods", "2"), Used: list("pods", "2")}
	gone := newPod("gone", "100m", api.PodRunning)
	f.server.Put(t, q, newPod("stays", "100m", api.PodRunning))

	f.controller.replenishHandler(quota.NewPodEvaluator()).OnDelete(gone)
	if f.controller.queue.Len() != 1 {
		t.Fatalf("queue holds %d keys after a pod delete, want the quota's", f.controller.queue.Len())
	}
	key, _ := f.controller.queue.Get()
	if err := f.controller.sync(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, "update resourcequotas/status q")
	if used := f.storedQuota(t).Status.Used; !quota.Equals(used, list("pods", "1")) {
		t.Errorf("status.used = %v, want pods=1", used)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("team/q"), "recounted pods 2 → 1", nil)
}

// A pod that finishes charges nothing any more: its update enqueues the
// quota. An update that changes nothing quota counts (a label) does not.
func TestPodFinishingReplenishesQuota(t *testing.T) {
	f := newFixture(t)
	q := newQuota(list("pods", "2"))
	q.Status = api.ResourceQuotaStatus{Hard: list("pods", "2"), Used: list("pods", "1")}
	f.server.Put(t, q)
	handler := f.controller.replenishHandler(quota.NewPodEvaluator())

	running := newPod("job", "100m", api.PodRunning)
	relabelled := newPod("job", "100m", api.PodRunning)
	relabelled.Labels = map[string]string{"x": "y"}
	handler.OnUpdate(running, relabelled)
	if n := f.controller.queue.Len(); n != 0 {
		t.Fatalf("a label change enqueued %d keys", n)
	}
	handler.OnUpdate(running, newPod("job", "100m", api.PodSucceeded))
	if n := f.controller.queue.Len(); n != 1 {
		t.Fatalf("a pod that finished enqueued %d keys, want 1", n)
	}
}

// The controller's own status writes and admission's charges do not
// trigger a recount; a change of spec.hard does.
func TestQuotaUpdateEnqueuesOnlySpecChanges(t *testing.T) {
	f := newFixture(t)
	old := newQuota(list("pods", "2"))
	charged := newQuota(list("pods", "2"))
	charged.Status.Used = list("pods", "1")
	f.controller.quotaUpdated(old, charged)
	if n := f.controller.queue.Len(); n != 0 {
		t.Fatalf("a status change enqueued %d keys", n)
	}
	f.controller.quotaUpdated(old, newQuota(list("pods", "3")))
	if n := f.controller.queue.Len(); n != 1 {
		t.Fatalf("a spec.hard change enqueued %d keys, want 1", n)
	}
}

// Object counts of other resources are counted too: configmaps by their
// legacy name and count/configmaps.
func TestSyncCountsConfigMaps(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, newQuota(list("configmaps", "5", "count/configmaps", "5")),
		&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "a", Namespace: "team", ResourceVersion: "1"}},
		&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "b", Namespace: "team", ResourceVersion: "1"}})
	if err := f.controller.sync(context.Background(), "team/q"); err != nil {
		t.Fatal(err)
	}
	if used := f.storedQuota(t).Status.Used; !quota.Equals(used, list("configmaps", "2", "count/configmaps", "2")) {
		t.Errorf("status.used = %v", used)
	}
}
