package replicaset

// The fixture of the controller tests: listers filled from objects (an
// informer factory that is never started, its indexers written directly),
// a PodControl and ReplicaSet client that record what a sync asks for, and
// a fake clock. No apiserver, no goroutines of our own, no sleeps.

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

var testNow = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

// fakePodControl records creates, deletes and patches. Safe for the
// concurrent calls of slow-start batches and parallel deletes.
type fakePodControl struct {
	mu      sync.Mutex
	created []*api.Pod
	deleted []string
	patches map[string]string // pod name → patch
	calls   int               // CreatePod calls, failed ones included
	// failCreate, if set, decides whether the n-th CreatePod call fails.
	failCreate func(n int) error
	// failDelete, if set, decides whether deleting a pod fails.
	failDelete func(name string) error
	clock      clock.Clock
}

func (f *fakePodControl) CreatePod(_ context.Context, namespace string, template *api.PodTemplateSpec, owner api.Object, ownerRef api.OwnerReference) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.failCreate != nil {
		if err := f.failCreate(f.calls); err != nil {
			return err
		}
	}
	pod := controllerutil.PodFromTemplate(template, owner, ownerRef)
	// Stand in for the apiserver: a name from generateName, a uid, a time.
	pod.Name = fmt.Sprintf("%s%05d", pod.GenerateName, f.calls)
	pod.Namespace = namespace
	pod.UID = "uid-" + pod.Name
	pod.ResourceVersion = "1"
	pod.CreationTimestamp = api.NewTime(f.clock.Now())
	pod.Status.Phase = api.PodPending
	f.created = append(f.created, pod)
	return nil
}

func (f *fakePodControl) DeletePod(_ context.Context, namespace, name string, _ api.Object) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failDelete != nil {
		if err := f.failDelete(name); err != nil {
			return err
		}
	}
	f.deleted = append(f.deleted, name)
	return nil
}

func (f *fakePodControl) PatchPod(_ context.Context, namespace, name string, patch []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.patches == nil {
		f.patches = map[string]string{}
	}
	f.patches[name] = string(patch)
	return nil
}

func (f *fakePodControl) deletedNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	names := slices.Clone(f.deleted)
	sort.Strings(names)
	return names
}

// fixture runs one controller against in-memory listers.
type fixture struct {
	t          *testing.T
	clock      *clock.Fake
	factory    *informer.SharedInformerFactory
	podControl *fakePodControl
	ctrl       *Controller

	// live is what the fake apiserver returns for a GET of a ReplicaSet
	// (by name); a ReplicaSet added with add is live too.
	live map[string]*api.ReplicaSet
	// statusWrites are the statuses written through UpdateStatus.
	statusWrites []api.ReplicaSetStatus
	// gets counts live GETs.
	gets int
	// conflicts makes the next n UpdateStatus calls fail with a conflict.
	conflicts int
}

func newFixture(t *testing.T, objects ...api.Object) *fixture {
	t.Helper()
	f := &fixture{
		t:       t,
		clock:   clock.NewFake(testNow),
		factory: informer.NewSharedInformerFactory(nil, 0),
		live:    map[string]*api.ReplicaSet{},
	}
	f.podControl = &fakePodControl{clock: f.clock}
	kind := Kind[*api.ReplicaSet]{
		Name: Name, APIVersion: "apps/v1", Kind: "ReplicaSet",
		Informer: f.factory.ReplicaSets(),
		View:     viewReplicaSet,
		Get: func(_ context.Context, namespace, name string) (*api.ReplicaSet, error) {
			f.gets++
			rs, ok := f.live[name]
			if !ok {
				return nil, apierrors.NewNotFound(apierrors.Resource{Group: "apps", Resource: "replicasets"}, name)
			}
			return api.DeepCopy(rs), nil
		},
		UpdateStatus: func(_ context.Context, rs *api.ReplicaSet, status api.ReplicaSetStatus) (*api.ReplicaSet, error) {
			if f.conflicts > 0 {
				f.conflicts--
				return nil, apierrors.NewConflict(apierrors.Resource{Group: "apps", Resource: "replicasets"}, rs.Name, "the object has been modified")
			}
			f.statusWrites = append(f.statusWrites, status)
			updated := api.DeepCopy(rs)
			updated.Status = status
			// Stand in for the informer: the write echoes into the cache.
			f.indexer(updated).Update(updated)
			f.live[updated.Name] = updated
			return updated, nil
		},
	}
	ctrl, err := newController(kind, f.factory, f.podControl, Options{Clock: f.clock})
	if err != nil {
		t.Fatalf("newController: %v", err)
	}
	f.ctrl = ctrl
	t.Cleanup(ctrl.manager.Queue().ShutDown) // stops AddAfter's goroutine
	for _, obj := range objects {
		f.add(obj)
	}
	return f
}

func (f *fixture) indexer(obj api.Object) informer.Indexer {
	switch obj.(type) {
	case *api.Pod:
		return f.factory.Pods().Informer().GetIndexer()
	case *api.ReplicaSet:
		return f.factory.ReplicaSets().Informer().GetIndexer()
	}
	f.t.Fatalf("no indexer for %T", obj)
	return nil
}

// add puts obj into its lister's cache (and a ReplicaSet into the fake
// apiserver).
func (f *fixture) add(obj api.Object) {
	f.t.Helper()
	if err := f.indexer(obj).Add(obj); err != nil {
		f.t.Fatalf("add %T: %v", obj, err)
	}
	if rs, ok := obj.(*api.ReplicaSet); ok {
		f.live[rs.Name] = api.DeepCopy(rs)
	}
}

// sync runs one sync of key.
func (f *fixture) sync(key string) error {
	return f.ctrl.sync(context.Background(), key)
}

// mustSync runs one sync of key and fails the test on an error.
func (f *fixture) mustSync(key string) {
	f.t.Helper()
	if err := f.sync(key); err != nil {
		f.t.Fatalf("sync %s: %v", key, err)
	}
}

// lastStatus returns the last status written, failing if none was.
func (f *fixture) lastStatus() api.ReplicaSetStatus {
	f.t.Helper()
	if len(f.statusWrites) == 0 {
		f.t.Fatalf("no status was written")
	}
	return f.statusWrites[len(f.statusWrites)-1]
}

// queued returns the keys waiting in the queue, sorted.
func (f *fixture) queued() []string {
	keys, _, _ := f.ctrl.manager.Queue().Debug()
	keys = slices.Clone(keys)
	sort.Strings(keys)
	return keys
}

// drainQueue empties the queue, so a test can see what the next step adds.
func (f *fixture) drainQueue() {
	q := f.ctrl.manager.Queue()
	for q.Len() > 0 {
		key, _ := q.Get()
		q.Done(key)
		q.Forget(key)
	}
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

func createdAgo(d time.Duration) podOption {
	return func(p *api.Pod) { p.CreationTimestamp = api.NewTime(testNow.Add(-d)) }
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
