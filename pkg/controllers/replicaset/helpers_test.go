package replicaset

// The fixture of the controller tests: the controller built on a
// fakeapi.Server (a recording apiserver behind a real client, whose
// informer caches the test fills itself), an events.FakeRecorder and a
// fake clock. No goroutines of our own, no sleeps.

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/test/framework/fakeapi"
)

var testNow = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

// fixture runs one ReplicaSet controller against a fake apiserver.
type fixture struct {
	t        *testing.T
	clock    *clock.Fake
	server   *fakeapi.Server
	recorder *events.FakeRecorder
	ctrl     *Controller[*api.ReplicaSet]
}

// newFixture builds the controller and puts objects in the apiserver and
// the informers' caches.
func newFixture(t *testing.T, objects ...api.Object) *fixture {
	t.Helper()
	clk := clock.NewFake(testNow)
	server := fakeapi.New(t, fakeapi.WithClock(clk))
	recorder := &events.FakeRecorder{}
	ctrl, err := New(server.Client(), server.Informers(), recorder, Options{Clock: clk, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(ctrl.queue.ShutDown) // stops AddAfter's goroutine
	server.Put(t, objects...)
	return &fixture{t: t, clock: clk, server: server, recorder: recorder, ctrl: ctrl}
}

// sync runs one sync of key.
func (f *fixture) sync(key string) error {
	return f.ctrl.Sync(context.Background(), key)
}

// mustSync runs one sync of key and fails the test on an error.
func (f *fixture) mustSync(key string) {
	f.t.Helper()
	if err := f.sync(key); err != nil {
		f.t.Fatalf("sync %s: %v", key, err)
	}
}

// sentStatus returns the status the last successful status write of the
// ReplicaSet name sent.
func (f *fixture) sentStatus(name string) api.ReplicaSetStatus {
	f.t.Helper()
	return fakeapi.Sent[*api.ReplicaSet](f.t, f.server, "update replicasets/status "+name).Status
}

// catchUp puts the apiserver's ReplicaSet name into the cache, as the
// informer delivers the controller's own status write.
func (f *fixture) catchUp(name string) {
	f.t.Helper()
	rs, ok := fakeapi.Get[*api.ReplicaSet](f.t, f.server, "default", name)
	if !ok {
		f.t.Fatalf("the apiserver has no replicaset %s", name)
	}
	f.server.Cache(f.t, rs)
}

// deliver puts pods into the cache and hands them to the pod add handler,
// as the informer delivers new pods.
func (f *fixture) deliver(pods ...*api.Pod) {
	f.t.Helper()
	for _, pod := range pods {
		f.server.Cache(f.t, pod)
		f.ctrl.addPod(pod)
	}
}

// storedPods returns the pods the apiserver holds, by name.
func (f *fixture) storedPods() []*api.Pod {
	f.t.Helper()
	return fakeapi.List[*api.Pod](f.t, f.server, "default")
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

// queued returns the keys waiting in the queue, sorted.
func (f *fixture) queued() []string {
	keys, _, _ := f.ctrl.queue.Debug()
	return slices.Sorted(slices.Values(keys))
}

func newRS(name string, replicas int32, selector map[string]string) *api.ReplicaSet {
	return &api.ReplicaSet{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name,
			ResourceVersion: "1", Generation: 1},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: selector},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: selector},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "ng-c", Image: "nginx"}}},
			},
		},
	}
}

// podOption adjusts a test pod.
type podOption func(*api.Pod)

func ownedBy(rs *api.ReplicaSet) podOption {
	return func(p *api.Pod) {
		p.OwnerReferences = []api.OwnerReference{controllerutil.NewControllerRef(rs, "apps/v1", "ReplicaSet")}
	}
}

func onNode(node string) podOption { return func(p *api.Pod) { p.Spec.NodeName = node } }

func inPhase(phase api.PodPhase) podOption { return func(p *api.Pod) { p.Status.Phase = phase } }

// readyFor marks the pod Running and Ready since d before testNow.
func readyFor(d time.Duration) podOption {
	return func(p *api.Pod) {
		p.Status.Phase = api.PodRunning
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue,
			LastTransitionTime: api.NewTime(testNow.Add(-d))}}
	}
}

func newPod(name string, labels map[string]string, opts ...podOption) *api.Pod {
	p := &api.Pod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name, Labels: labels,
			ResourceVersion: "1", CreationTimestamp: api.NewTime(testNow.Add(-time.Hour))},
		Status: api.PodStatus{Phase: api.PodRunning},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}
