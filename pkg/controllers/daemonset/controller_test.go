package daemonset

// Fixture tests: listers filled from objects (an informer factory that is
// never started), a PodControl, DaemonSet API and history that record what
// one sync asks for. No apiserver, no goroutines of our own, no sleeps.

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
)

type fakePodControl struct {
	mu      sync.Mutex
	created []*api.Pod
	deleted []string
	calls   int
}

func (f *fakePodControl) CreatePod(_ context.Context, namespace string, template *api.PodTemplateSpec, owner api.Object, ref api.OwnerReference) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	pod := controllerutil.PodFromTemplate(template, owner, ref)
	pod.Name = fmt.Sprintf("%s%05d", pod.GenerateName, f.calls)
	f.created = append(f.created, pod)
	return nil
}

func (f *fakePodControl) DeletePod(_ context.Context, _, name string, _ api.Object) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deleted = append(f.deleted, name)
	return nil
}

func (f *fakePodControl) PatchPod(context.Context, string, string, []byte) error { return nil }

// createdOn returns the nodes the created pods are pinned to, sorted.
func (f *fakePodControl) createdOn(t *testing.T) []string {
	var nodes []string
	for _, pod := range f.created {
		if pod.Spec.NodeName != "" {
			t.Errorf("pod %s created with spec.nodeName %q; daemon pods are pinned by affinity", pod.Name, pod.Spec.NodeName)
		}
		node, err := targetNodeName(pod)
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, node)
	}
	sort.Strings(nodes)
	return nodes
}

// fakeHistory reports a fixed hash.
type fakeHistory struct{ hash string }

func (h fakeHistory) construct(context.Context, *api.DaemonSet, labels.Selector) (revisionState, error) {
	return revisionState{hash: h.hash}, nil
}

func (fakeHistory) cleanup(context.Context, *api.DaemonSet, []*api.ControllerRevision, []*api.Pod) error {
	return nil
}

type fixture struct {
	t            *testing.T
	factory      *informer.SharedInformerFactory
	podControl   *fakePodControl
	recorder     *events.FakeRecorder
	ctrl         *Controller
	statusWrites []api.DaemonSetStatus
}

func newFixture(t *testing.T, hash string, objects ...api.Object) *fixture {
	t.Helper()
	f := &fixture{t: t, factory: informer.NewSharedInformerFactory(nil, 0), podControl: &fakePodControl{}}
	f.recorder = &events.FakeRecorder{}
	dsAPI := daemonSetAPI{
		get: func(_ context.Context, namespace, name string) (*api.DaemonSet, error) {
			return f.factory.DaemonSets().Lister().Namespace(namespace).Get(name)
		},
		updateStatus: func(_ context.Context, ds *api.DaemonSet) (*api.DaemonSet, error) {
			f.statusWrites = append(f.statusWrites, ds.Status)
			return ds, f.factory.DaemonSets().Informer().GetIndexer().Update(ds)
		},
	}
	ctrl, err := newController(f.factory, dsAPI, f.podControl, fakeHistory{hash: hash}, f.recorder, Options{Clock: newFakeClock()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	f.ctrl = ctrl
	for _, obj := range objects {
		f.add(obj)
	}
	return f
}

func (f *fixture) add(obj api.Object) {
	var err error
	switch o := obj.(type) {
	case *api.Pod:
		err = f.factory.Pods().Informer().GetIndexer().Add(o)
	case *api.Node:
		err = f.factory.Nodes().Informer().GetIndexer().Add(o)
	case *api.DaemonSet:
		err = f.factory.DaemonSets().Informer().GetIndexer().Add(o)
	}
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) mustSync() {
	f.t.Helper()
	if err := f.ctrl.sync(context.Background(), "default/ds"); err != nil {
		f.t.Fatalf("sync: %v", err)
	}
}

func TestSyncCreatesOnePodPerEligibleNode(t *testing.T) {
	f := newFixture(t, "h1", newDS(),
		newNode("n1", nil), newNode("n2", nil),
		newNode("master", nil, noSchedule("node-role.kubernetes.io/control-plane")))
	f.mustSync()
	if got := f.podControl.createdOn(t); !slices.Equal(got, []string{"n1", "n2"}) {
		t.Fatalf("created on %v, want [n1 n2]", got)
	}
	pod := f.podControl.created[0]
	if pod.GenerateName != "ds-" || pod.Labels["controller-revision-hash"] != "h1" || pod.Labels["pod-template-generation"] != "1" {
		t.Errorf("pod generateName %q labels %v", pod.GenerateName, pod.Labels)
	}
	if len(pod.Spec.Tolerations) != 6 {
		t.Errorf("tolerations = %+v, want the six daemon tolerations", pod.Spec.Tolerations)
	}
	if s := f.statusWrites[len(f.statusWrites)-1]; s.DesiredNumberScheduled != 2 || s.CurrentNumberScheduled != 0 || s.ObservedGeneration != 1 {
		t.Errorf("status = %+v", s)
	}

	// The informer has not delivered the pods yet: a second sync must not
	// create them again.
	f.mustSync()
	if len(f.podControl.created) != 2 {
		t.Fatalf("second sync before the cache caught up created %d pods in all, want 2", len(f.podControl.created))
	}
	// Once the pods arrive, the expectations are met and nothing is left.
	for _, pod := range f.podControl.created {
		pod.Namespace, pod.UID, pod.ResourceVersion = "default", "uid-"+pod.Name, "1"
		f.add(pod)
		f.ctrl.addPod(pod)
	}
	f.mustSync()
	if len(f.podControl.created) != 2 || len(f.podControl.deleted) != 0 {
		t.Errorf("steady state: created %d deleted %v", len(f.podControl.created), f.podControl.deleted)
	}
	if s := f.statusWrites[len(f.statusWrites)-1]; s.CurrentNumberScheduled != 2 || s.UpdatedNumberScheduled != 2 {
		t.Errorf("status = %+v, want 2 current and updated", s)
	}
}

func TestSyncDeletesExtrasAndPodsOfGoneNodes(t *testing.T) {
	ds := newDS()
	f := newFixture(t, "h1", ds, newNode("n1", nil),
		newPod(ds, "keep", "n1", "h1", 0, api.PodRunning, true),
		newPod(ds, "extra", "n1", "h1", 1, api.PodRunning, true),
		newPod(ds, "orphaned", "gone", "h1", 0, api.PodRunning, true))
	f.mustSync()
	got := slices.Sorted(slices.Values(f.podControl.deleted))
	if !slices.Equal(got, []string{"extra", "orphaned"}) {
		t.Errorf("deleted %v, want [extra orphaned]", got)
	}
	if len(f.podControl.created) != 0 {
		t.Errorf("created %d pods, want none", len(f.podControl.created))
	}
}

func TestSyncRollingUpdateDeletesOneOldPodAtATime(t *testing.T) {
	ds := newDS(func(ds *api.DaemonSet) { ds.Generation = 2 })
	old := func(name, node string) *api.Pod {
		p := newPod(ds, name, node, "h-old", 0, api.PodRunning, true)
		p.Labels[PodTemplateGenerationLabel] = "1"
		return p
	}
	f := newFixture(t, "h-new", ds, newNode("n1", nil), newNode("n2", nil), old("a", "n1"), old("b", "n2"))
	f.mustSync()
	if !slices.Equal(f.podControl.deleted, []string{"a"}) {
		t.Fatalf("deleted %v, want [a] (maxUnavailable 1)", f.podControl.deleted)
	}
	// OnDelete leaves old pods alone.
	onDelete := newDS(func(ds *api.DaemonSet) {
		ds.Generation = 2
		ds.Spec.UpdateStrategy = api.DaemonSetUpdateStrategy{Type: api.OnDeleteDaemonSetStrategyType}
	})
	f = newFixture(t, "h-new", onDelete, newNode("n1", nil), old("a", "n1"))
	f.mustSync()
	if len(f.podControl.deleted) != 0 {
		t.Errorf("OnDelete deleted %v", f.podControl.deleted)
	}
}

func TestSyncReplacesFailedPodWithBackoff(t *testing.T) {
	ds := newDS()
	failed := newPod(ds, "failed", "n1", "h1", 0, api.PodFailed, false)
	f := newFixture(t, "h1", ds, newNode("n1", nil), failed)
	f.mustSync()
	if !slices.Equal(f.podControl.deleted, []string{"failed"}) {
		t.Fatalf("deleted %v, want the failed pod", f.podControl.deleted)
	}
	// It fails again at once (the cache still shows it): the back-off holds.
	f.ctrl.deletions.DeletionObserved("default/ds", "default/failed")
	f.mustSync()
	if len(f.podControl.deleted) != 1 {
		t.Errorf("deleted %v within the back-off, want one delete", f.podControl.deleted)
	}
}
