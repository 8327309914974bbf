package job

// Fixture tests: listers filled by hand (an informer factory that is never
// started), a PodControl and jobControl that record what one sync asks
// for. No apiserver, no goroutines of our own.

import (
	"context"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/events"
	"kplane/pkg/informer"
)

type fakePodControl struct {
	mu      sync.Mutex
	created int
	deleted []string
}

func (f *fakePodControl) CreatePod(context.Context, string, *api.PodTemplateSpec, api.Object, api.OwnerReference) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.created++
	return nil
}

func (f *fakePodControl) DeletePod(_ context.Context, _, name string, _ api.Object) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deleted = append(f.deleted, name)
	return nil
}

func (f *fakePodControl) PatchPod(context.Context, string, string, []byte) error { return nil }

type fakeJobControl struct {
	live     *api.Job // what Get returns
	statuses []api.JobStatus
	deleted  []string
}

func (f *fakeJobControl) Get(_ context.Context, _, name string) (*api.Job, error) {
	return api.DeepCopy(f.live), nil
}

func (f *fakeJobControl) UpdateStatus(_ context.Context, job *api.Job) (*api.Job, error) {
	f.statuses = append(f.statuses, job.Status)
	return job, nil
}

func (f *fakeJobControl) Delete(_ context.Context, _, name, _ string) error {
	f.deleted = append(f.deleted, name)
	return nil
}

type fixture struct {
	t       *testing.T
	factory *informer.SharedInformerFactory
	pods    *fakePodControl
	jobs    *fakeJobControl
	ctrl    *Controller
	clock   *clock.Fake
}

func newFixture(t *testing.T, objects ...api.Object) *fixture {
	f := &fixture{t: t, factory: informer.NewSharedInformerFactory(nil, 0), pods: &fakePodControl{},
		jobs: &fakeJobControl{}, clock: clock.NewFake(testNow)}
	ctrl, err := newController(f.factory, f.pods, f.jobs, &events.FakeRecorder{}, Options{Clock: f.clock})
	if err != nil {
		t.Fatalf("newController: %v", err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	f.ctrl = ctrl
	for _, obj := range objects {
		var err error
		switch o := obj.(type) {
		case *api.Job:
			f.jobs.live = o
			err = f.factory.Jobs().Informer().GetIndexer().Add(o)
		case *api.Pod:
			err = f.factory.Pods().Informer().GetIndexer().Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *fixture) sync() {
	f.t.Helper()
	if err := f.ctrl.sync(context.Background(), "default/pi"); err != nil {
		f.t.Fatalf("sync: %v", err)
	}
}

// A new Job creates parallelism pods once; a second sync before the cache
// has seen them creates nothing more (the expectations hold it back).
func TestSyncCreatesOnceUntilThePodsArrive(t *testing.T) {
	f := newFixture(t, newJob(2, i32(5)))
	f.sync()
	if f.pods.created != 2 {
		t.Fatalf("first sync created %d pods, want 2", f.pods.created)
	}
	if len(f.jobs.statuses) != 1 || f.jobs.statuses[0].Active != 2 || f.jobs.statuses[0].StartTime == nil {
		t.Fatalf("status writes %+v, want active 2 and a startTime", f.jobs.statuses)
	}
	f.sync()
	if f.pods.created != 2 {
		t.Errorf("second sync created more pods: %d in all", f.pods.created)
	}
}

// A finished Job with a TTL that has passed is deleted; one whose TTL has
// not passed waits for it.
func TestSyncTTLAfterFinished(t *testing.T) {
	finished := api.NewTime(testNow.Add(-time.Minute))
	for _, tt := range []struct {
		ttl         int32
		wantDeleted bool
	}{{30, true}, {120, false}} {
		job := newJob(1, i32(1))
		job.Spec.TTLSecondsAfterFinished = &tt.ttl
		job.Status.CompletionTime = &finished
		job.Status.Conditions = []api.JobCondition{{Type: api.JobComplete, Status: api.ConditionTrue}}
		f := newFixture(t, job)
		f.sync()
		if got := len(f.jobs.deleted) == 1; got != tt.wantDeleted {
			t.Errorf("ttl %d s, finished 60 s ago: deleted %v, want %v", tt.ttl, f.jobs.deleted, tt.wantDeleted)
		}
		if !tt.wantDeleted && len(f.ctrl.queue.Waiting()) != 1 {
			t.Errorf("ttl %d s: nothing waits for the TTL to pass", tt.ttl)
		}
		if f.pods.created != 0 || len(f.jobs.statuses) != 0 {
			t.Errorf("a finished job was touched: created %d, status writes %d", f.pods.created, len(f.jobs.statuses))
		}
	}
}
