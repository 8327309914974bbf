package replicationcontroller

// Fixture tests of one sync over ReplicationControllers: the logic is the
// ReplicaSet's (tested in depth there); these check that the adapter feeds
// it an RC's selector, template and status and writes the result back in
// the RC's shape.

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

var testNow = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

// fakePodControl records the pods a sync creates and the patches it sends.
type fakePodControl struct {
	mu         sync.Mutex
	created    []*api.Pod
	deleted    []string
	patches    map[string]string
	failCreate error
}

func (f *fakePodControl) CreatePod(_ context.Context, _ string, template *api.PodTemplateSpec, owner api.Object, ref api.OwnerReference) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failCreate != nil {
		return f.failCreate
	}
	f.created = append(f.created, controllerutil.PodFromTemplate(template, owner, ref))
	return nil
}

func (f *fakePodControl) DeletePod(_ context.Context, _, name string, _ api.Object) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deleted = append(f.deleted, name)
	return nil
}

func (f *fakePodControl) PatchPod(_ context.Context, _, name string, patch []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.patches == nil {
		f.patches = map[string]string{}
	}
	f.patches[name] = string(patch)
	return nil
}

type fixture struct {
	t            *testing.T
	factory      *informer.SharedInformerFactory
	podControl   *fakePodControl
	ctrl         *Controller
	statusWrites []api.ReplicationControllerStatus
}

func newFixture(t *testing.T, objects ...api.Object) *fixture {
	t.Helper()
	f := &fixture{t: t, factory: informer.NewSharedInformerFactory(nil, 0), podControl: &fakePodControl{}}
	kind := replicationControllerKind(nil, f.factory)
	kind.Get = func(_ context.Context, _, name string) (*api.ReplicationController, error) {
		return f.factory.ReplicationControllers().Lister().Namespace("default").Get(name)
	}
	kind.UpdateStatus = func(_ context.Context, rc *api.ReplicationController, status api.ReplicaSetStatus) (*api.ReplicationController, error) {
		updated := api.DeepCopy(rc)
		updated.Status = toRCStatus(status)
		f.statusWrites = append(f.statusWrites, updated.Status)
		return updated, f.factory.ReplicationControllers().Informer().GetIndexer().Update(updated)
	}
	ctrl, err := newController(kind, f.factory, f.podControl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.ctrl = ctrl
	t.Cleanup(ctrl.manager.Queue().ShutDown)
	for _, obj := range objects {
		var err error
		switch obj.(type) {
		case *api.Pod:
			err = f.factory.Pods().Informer().GetIndexer().Add(obj)
		default:
			err = f.factory.ReplicationControllers().Informer().GetIndexer().Add(obj)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *fixture) lastStatus() api.ReplicationControllerStatus {
	f.t.Helper()
	if len(f.statusWrites) == 0 {
		f.t.Fatal("no status was written")
	}
	return f.statusWrites[len(f.statusWrites)-1]
}

var appRC = map[string]string{"app": "nginx-rc"}

func newRC(name string, replicas int32) *api.ReplicationController {
	return &api.ReplicationController{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name, Generation: 2, ResourceVersion: "1"},
		Spec: api.ReplicationControllerSpec{
			Replicas: &replicas,
			Selector: appRC,
			Template: &api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: appRC},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
}

func newPod(name string, labels map[string]string, owner *api.ReplicationController, ready bool) *api.Pod {
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name, Labels: labels,
			ResourceVersion: "1", CreationTimestamp: api.NewTime(testNow.Add(-time.Hour))},
		Status: api.PodStatus{Phase: api.PodRunning},
	}
	if owner != nil {
		p.OwnerReferences = []api.OwnerReference{controllerutil.NewControllerRef(owner, "v1", "ReplicationController")}
	}
	if ready {
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(testNow.Add(-time.Hour))}}
	}
	return p
}

func TestSyncCreatesPodsOwnedByTheRC(t *testing.T) {
	rc := newRC("nginx-rc", 2)
	f := newFixture(t, rc)
	if err := f.ctrl.sync(context.Background(), "default/nginx-rc"); err != nil {
		t.Fatal(err)
	}
	if len(f.podControl.created) != 2 {
		t.Fatalf("created %d pods, want 2", len(f.podControl.created))
	}
	for _, pod := range f.podControl.created {
		ref := controllerutil.GetControllerOf(&pod.ObjectMeta)
		if pod.GenerateName != "nginx-rc-" || pod.Labels["app"] != "nginx-rc" || ref == nil ||
			ref.Kind != "ReplicationController" || ref.APIVersion != "v1" || ref.UID != rc.UID {
			t.Errorf("pod generateName %q, labels %v, controllerRef %+v", pod.GenerateName, pod.Labels, ref)
		}
	}
	if s := f.lastStatus(); s.Replicas != 0 || s.ObservedGeneration != 2 {
		t.Errorf("status = %+v, want 0 replicas, observedGeneration 2", s)
	}
}

// Adoption, release and counting work on the RC's map selector.
func TestSyncClaimsByMapSelectorAndCounts(t *testing.T) {
	rc := newRC("nginx-rc", 2)
	f := newFixture(t, rc,
		newPod("ready", appRC, rc, true),
		newPod("orphan", appRC, nil, false),
		newPod("relabelled", map[string]string{"app": "debug"}, rc, true),
	)
	if err := f.ctrl.sync(context.Background(), "default/nginx-rc"); err != nil {
		t.Fatal(err)
	}
	if len(f.podControl.patches) != 2 || !strings.Contains(f.podControl.patches["orphan"], `"controller":true`) ||
		!strings.Contains(f.podControl.patches["relabelled"], `"$patch":"delete"`) {
		t.Fatalf("patches = %v, want orphan adopted and relabelled released", f.podControl.patches)
	}
	if len(f.podControl.created)+len(f.podControl.deleted) != 0 {
		t.Errorf("created %d, deleted %v; want neither (2 pods after claiming)", len(f.podControl.created), f.podControl.deleted)
	}
	if s := f.lastStatus(); s.Replicas != 2 || s.FullyLabeledReplicas != 2 || s.ReadyReplicas != 1 || s.AvailableReplicas != 1 {
		t.Errorf("status = %+v, want replicas 2, fullyLabeled 2, ready 1, available 1", s)
	}
}

// A failing create shows as the RC's ReplicaFailure condition.
func TestSyncFailureConditionInRCShape(t *testing.T) {
	f := newFixture(t, newRC("nginx-rc", 1))
	f.podControl.failCreate = apierrors.NewForbidden(apierrors.Resource{Resource: "pods"}, "", errors.New("exceeded quota"))
	if err := f.ctrl.sync(context.Background(), "default/nginx-rc"); err == nil {
		t.Fatal("sync succeeded; want the create error")
	}
	conds := f.lastStatus().Conditions
	if len(conds) != 1 || conds[0].Type != api.ReplicationControllerReplicaFailure || conds[0].Reason != "FailedCreate" ||
		conds[0].Status != api.ConditionTrue {
		t.Fatalf("conditions = %+v, want ReplicaFailure True FailedCreate", conds)
	}
}

func TestStatusConversionRoundTrip(t *testing.T) {
	in := api.ReplicationControllerStatus{
		Replicas: 3, FullyLabeledReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 1, ObservedGeneration: 4,
		Conditions: []api.ReplicationControllerCondition{{Type: api.ReplicationControllerReplicaFailure,
			Status: api.ConditionTrue, LastTransitionTime: api.NewTime(testNow), Reason: "FailedDelete", Message: "boom"}},
	}
	if out := toRCStatus(toRSStatus(in)); !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip = %+v, want %+v", out, in)
	}
}
