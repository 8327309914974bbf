package disruption

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/events"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

// These tests follow sample-controller's fixture pattern: objects go into
// the fake apiserver and the informers' caches (Put), one sync runs, and
// the test lists the API writes the controller made (ExpectActions) and
// reads back the status it wrote. Time is a fake clock the test steps.

var t0 = time.Date(2026, 11, 27, 18, 0, 0, 0, time.UTC)

const updateStatus = "update poddisruptionbudgets/status web"

type fixture struct {
	server     *fakeapi.Server
	clock      *clock.Fake
	recorder   *events.FakeRecorder
	controller *Controller
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	clk := clock.NewFake(t0)
	server := fakeapi.New(t, fakeapi.WithClock(clk))
	rec := &events.FakeRecorder{}
	ctrl, err := New(server.Client(), server.Informers(), rec, Options{Logger: slog.New(slog.DiscardHandler), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return &fixture{server: server, clock: clk, recorder: rec, controller: ctrl}
}

// sync runs one sync of the budget default/web and returns its error.
func (f *fixture) sync() error {
	return f.controller.sync(context.Background(), "default/web")
}

// status is the status the server holds for budget web.
func (f *fixture) status(t *testing.T) api.PodDisruptionBudgetStatus {
	t.Helper()
	pdb, ok := fakeapi.Get[*api.PodDisruptionBudget](t, f.server, "default", "web")
	if !ok {
		t.Fatal("budget web is gone")
	}
	return pdb.Status
}

// budget is default/web over app=web, at generation 1, with rule applied.
func budget(rule func(*api.PodDisruptionBudgetSpec)) *api.PodDisruptionBudget {
	pdb := &api.PodDisruptionBudget{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-pdb", Generation: 1, ResourceVersion: "5"},
		Spec:       api.PodDisruptionBudgetSpec{Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
	rule(&pdb.Spec)
	return pdb
}

func minAvailable(v api.IntOrString) func(*api.PodDisruptionBudgetSpec) {
	return func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = &v }
}

func maxUnavailable(v api.IntOrString) func(*api.PodDisruptionBudgetSpec) {
	return func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = &v }
}

// pod is a pod app=web controlled by owner (nil: none), Ready or not.
func pod(name string, owner *api.OwnerReference, ready bool) *api.Pod {
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name, ResourceVersion: "3", Labels: map[string]string{"app": "web"}},
		Spec:       api.PodSpec{NodeName: "node1", Containers: []api.Container{{Name: "app", Image: "nginx"}}},
		Status:     api.PodStatus{Phase: api.PodRunning},
	}
	if owner != nil {
		p.OwnerReferences = []api.OwnerReference{*owner}
	}
	status := api.ConditionFalse
	if ready {
		status = api.ConditionTrue
	}
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: status}}
	return p
}

func controllerRef(apiVersion, kind, name string) *api.OwnerReference {
	yes := true
	return &api.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: "uid-" + name, Controller: &yes}
}

// deploymentWithReplicaSet is Deployment web with replicas and its
// ReplicaSet web-abc, whose pods point to it.
func deploymentWithReplicaSet(replicas int32) (*api.Deployment, *api.ReplicaSet, *api.OwnerReference) {
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-web"}, Spec: api.DeploymentSpec{Replicas: &replicas}}
	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web-abc", Namespace: "default", UID: "uid-web-abc",
		OwnerReferences: []api.OwnerReference{*controllerRef("apps/v1", "Deployment", "web")}}, Spec: api.ReplicaSetSpec{Replicas: &replicas}}
	return d, rs, controllerRef("apps/v1", "ReplicaSet", "web-abc")
}

func condition(status api.PodDisruptionBudgetStatus) string {
	for _, c := range status.Conditions {
		if c.Type == api.DisruptionAllowedCondition {
			return c.Status + " " + c.Reason
		}
	}
	return "none"
}

// minAvailable 2 over 3 Ready pods: 1 disruption allowed; with only 2
// Ready, none. A second sync with nothing changed writes nothing.
func TestMinAvailableCountsReadyPods(t *testing.T) {
	f := newFixture(t)
	_, _, rsRef := deploymentWithReplicaSet(3)
	f.server.Put(t, budget(minAvailable(api.FromInt(2))), pod("web-1", rsRef, true), pod("web-2", rsRef, true), pod("web-3", rsRef, true))
	if err := f.sync(); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, updateStatus)
	got := f.status(t)
	if got.CurrentHealthy != 3 || got.DesiredHealthy != 2 || got.ExpectedPods != 3 || got.DisruptionsAllowed != 1 ||
		got.ObservedGeneration != 1 || condition(got) != "True SufficientPods" {
		t.Errorf("status = %+v, want 3 healthy, 2 desired, 3 expected, 1 allowed, generation 1, DisruptionAllowed=True", got)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("default/web"),
		"budget web (minAvailable 2) selects 3 pods: 3 healthy, 2 desired, 3 expected → disruptionsAllowed 1",
		map[string]string{"disruptionsAllowed": "1"})

	// The cache catches up with the write: nothing more to do.
	stored, _ := fakeapi.Get[*api.PodDisruptionBudget](t, f.server, "default", "web")
	f.server.Cache(t, stored)
	if err := f.sync(); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t)

	// One pod stops being Ready: no disruption left.
	f.server.Put(t, pod("web-3", rsRef, false))
	if err := f.sync(); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, updateStatus)
	if got := f.status(t); got.CurrentHealthy != 2 || got.DisruptionsAllowed != 0 || condition(got) != "False InsufficientPods" {
		t.Errorf("status with 2 Ready = %+v, want 2 healthy, 0 allowed, DisruptionAllowed=False InsufficientPods", got)
	}
}

// Percentages and maxUnavailable take the denominator from the pods'
// controllers' spec.replicas (a Deployment through its ReplicaSet, counted
// once), not from the pods that exist.
func TestPercentagesUseTheControllersScale(t *testing.T) {
	tests := []struct {
		name                              string
		rule                              func(*api.PodDisruptionBudgetSpec)
		expected, desired, healthy, allow int32
	}{
		// 4 wanted, 3 exist and are Ready.
		{"minAvailable 50%", minAvailable(api.FromString("50%")), 4, 2, 3, 1},
		{"minAvailable 60% rounds up", minAvailable(api.FromString("60%")), 4, 3, 3, 0},
		{"maxUnavailable 1", maxUnavailable(api.FromInt(1)), 4, 3, 3, 0},
		{"maxUnavailable 50%", maxUnavailable(api.FromString("50%")), 4, 2, 3, 1},
		// A number counts the pods that exist.
		{"minAvailable 2", minAvailable(api.FromInt(2)), 3, 2, 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			d, rs, rsRef := deploymentWithReplicaSet(4)
			f.server.Put(t, d, rs, budget(tt.rule), pod("web-1", rsRef, true), pod("web-2", rsRef, true), pod("web-3", rsRef, true))
			if err := f.sync(); err != nil {
				t.Fatal(err)
			}
			got := f.status(t)
			if got.ExpectedPods != tt.expected || got.DesiredHealthy != tt.desired || got.CurrentHealthy != tt.healthy || got.DisruptionsAllowed != tt.allow {
				t.Errorf("status = %+v, want expected %d, desired %d, healthy %d, allowed %d", got, tt.expected, tt.desired, tt.healthy, tt.allow)
			}
		})
	}
}

// Each kind with a scale counts; a StatefulSet and a ReplicationController
// beside a bare ReplicaSet add up.
func TestScaleOfEveryWorkloadKind(t *testing.T) {
	f := newFixture(t)
	two, three, one := int32(2), int32(3), int32(1)
	f.server.Put(t,
		&api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "db", Namespace: "default", UID: "uid-db"}, Spec: api.StatefulSetSpec{Replicas: &two}},
		&api.ReplicationController{ObjectMeta: api.ObjectMeta{Name: "old", Namespace: "default", UID: "uid-old"}, Spec: api.ReplicationControllerSpec{Replicas: &three}},
		&api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "bare", Namespace: "default", UID: "uid-bare"}, Spec: api.ReplicaSetSpec{Replicas: &one}},
		budget(maxUnavailable(api.FromInt(0))),
		pod("db-0", controllerRef("apps/v1", "StatefulSet", "db"), true),
		pod("old-x", controllerRef("v1", "ReplicationController", "old"), true),
		pod("bare-y", controllerRef("apps/v1", "ReplicaSet", "bare"), true),
	)
	if err := f.sync(); err != nil {
		t.Fatal(err)
	}
	if got := f.status(t); got.ExpectedPods != 6 || got.DesiredHealthy != 6 || got.DisruptionsAllowed != 0 {
		t.Errorf("status = %+v, want 6 expected (2+3+1), 6 desired", got)
	}
}

// A pod whose controller has no scale makes a percentage impossible: the
// budget allows nothing, with DisruptionAllowed=False SyncFailed and
// upstream's message, and the sync returns the error to be retried.
func TestUnknownControllerFailsSafe(t *testing.T) {
	f := newFixture(t)
	stored := budget(minAvailable(api.FromString("50%")))
	stored.Status = api.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 2, CurrentHealthy: 3, DesiredHealthy: 1, ExpectedPods: 3}
	f.server.Put(t, stored, pod("web-1", controllerRef("apps/v1", "DaemonSet", "agent"), true))
	err := f.sync()
	if err == nil || err.Error() != "daemonsets.apps does not implement the scale subresource" {
		t.Fatalf("sync error = %v, want upstream's message", err)
	}
	f.server.ExpectActions(t, updateStatus)
	got := f.status(t)
	if got.DisruptionsAllowed != 0 || condition(got) != "False SyncFailed" || got.Conditions[0].Message != "daemonsets.apps does not implement the scale subresource" {
		t.Errorf("status = %+v, want 0 allowed and DisruptionAllowed=False SyncFailed", got)
	}
	if events := f.recorder.Events(); !slices.Contains(events,
		"Warning CalculateExpectedPodCountFailed Failed to calculate the number of expected pods: daemonsets.apps does not implement the scale subresource") {
		t.Errorf("events = %q", events)
	}
}

// An eviction's entry in disruptedPods keeps the pod out of the healthy
// count for two minutes on the controller's clock; the key waits in the
// queue for that moment, and then the entry is dropped (the pod was never
// deleted: a NotDeleted warning). A pod being deleted drops its entry at
// once.
func TestDisruptedPodsExpire(t *testing.T) {
	f := newFixture(t)
	_, _, rsRef := deploymentWithReplicaSet(3)
	stored := budget(minAvailable(api.FromInt(2)))
	stored.Status = api.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 0, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3,
		DisruptedPods: map[string]api.Time{"web-1": api.NewTime(t0)}}
	f.server.Put(t, stored, pod("web-1", rsRef, true), pod("web-2", rsRef, true), pod("web-3", rsRef, true))

	f.clock.Step(time.Minute)
	if err := f.sync(); err != nil {
		t.Fatal(err)
	}
	got := f.status(t)
	if got.CurrentHealthy != 2 || got.DisruptionsAllowed != 0 || len(got.DisruptedPods) != 1 {
		t.Errorf("a minute after the eviction: %+v, want web-1 still disrupted (2 healthy, 0 allowed)", got)
	}
	if waiting := f.controller.queue.Waiting(); !slices.Equal(waiting, []string{"default/web"}) {
		t.Errorf("waiting keys = %q, want the budget parked until the entry expires", waiting)
	}

	f.clock.Step(time.Minute + time.Second)
	updated, _ := fakeapi.Get[*api.PodDisruptionBudget](t, f.server, "default", "web")
	f.server.Cache(t, updated)
	if err := f.sync(); err != nil {
		t.Fatal(err)
	}
	got = f.status(t)
	if got.CurrentHealthy != 3 || got.DisruptionsAllowed != 1 || len(got.DisruptedPods) != 0 {
		t.Errorf("after two minutes: %+v, want the entry dropped (3 healthy, 1 allowed)", got)
	}
	if events := f.recorder.Events(); !slices.Contains(events, "Warning NotDeleted Pod was expected by PDB default/web to be deleted but it wasn't") {
		t.Errorf("events = %q, want NotDeleted", events)
	}

	// An eviction that did go through: the pod is being deleted.
	updated, _ = fakeapi.Get[*api.PodDisruptionBudget](t, f.server, "default", "web")
	updated.Status.DisruptedPods = map[string]api.Time{"web-2": api.NewTime(f.clock.Now())}
	terminating := pod("web-2", rsRef, true)
	now := api.NewTime(f.clock.Now())
	terminating.DeletionTimestamp = &now
	f.server.Put(t, updated, terminating)
	if err := f.sync(); err != nil {
		t.Fatal(err)
	}
	if got := f.status(t); got.CurrentHealthy != 2 || len(got.DisruptedPods) != 0 || got.DisruptionsAllowed != 0 {
		t.Errorf("with web-2 terminating: %+v, want its entry dropped and it not counted (2 healthy)", got)
	}
}

// A budget that selects nothing expects no pods and allows nothing.
func TestNoPods(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, budget(maxUnavailable(api.FromInt(1))))
	if err := f.sync(); err != nil {
		t.Fatal(err)
	}
	if got := f.status(t); got.ExpectedPods != 0 || got.DisruptionsAllowed != 0 || condition(got) != "False InsufficientPods" {
		t.Errorf("status = %+v", got)
	}
	if events := f.recorder.Events(); !slices.Equal(events, []string{"Normal NoPods No matching pods found"}) {
		t.Errorf("events = %q", events)
	}
}

// A DisruptionTarget condition on a pod whose deletion never came is set
// back to False two minutes after it was set; one the kubelet set, or one
// on a pod being deleted, is left alone.
func TestStaleDisruptionConditionIsReset(t *testing.T) {
	f := newFixture(t)
	marked := pod("web-1", nil, true)
	marked.Status.Conditions = append(marked.Status.Conditions, api.PodCondition{Type: api.DisruptionTarget, Status: api.ConditionTrue,
		Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting", LastTransitionTime: api.NewTime(t0)})
	byKubelet := pod("web-2", nil, true)
	byKubelet.Status.Conditions = append(byKubelet.Status.Conditions, api.PodCondition{Type: api.DisruptionTarget, Status: api.ConditionTrue,
		Reason: api.PodReasonTerminationByKubelet, LastTransitionTime: api.NewTime(t0)})
	f.server.Put(t, marked, byKubelet)
	f.controller.podChanged(marked)
	f.controller.podChanged(byKubelet)
	if waiting := f.controller.queue.Waiting(); !slices.Equal(waiting, []string{"pod:default/web-1"}) {
		t.Fatalf("waiting keys = %q, want only web-1 parked for its condition", waiting)
	}

	f.clock.Step(time.Minute)
	if err := f.controller.sync(context.Background(), "pod:default/web-1"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t) // not yet

	f.clock.Step(time.Minute)
	if err := f.controller.sync(context.Background(), "pod:default/web-1"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, "update pods/status web-1")
	written := fakeapi.Sent[*api.Pod](t, f.server, "update pods/status web-1")
	for _, c := range written.Status.Conditions {
		if c.Type == api.DisruptionTarget && (c.Status != api.ConditionFalse || c.Reason != "") {
			t.Errorf("DisruptionTarget written = %+v, want False", c)
		}
	}
}
