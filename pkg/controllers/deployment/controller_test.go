package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
)

// These are fixture tests in sample-controller's style: given the objects
// in the listers, run one sync, and look at the API writes it made (through
// fakeWriter) and the events it recorded. No goroutines, no apiserver.

// action is one recorded write.
type action struct {
	verb, kind, name string
	obj              api.Object // the object sent (a copy), nil for deletes and patches
	patch            string
}

func (a action) String() string { return a.verb + " " + a.kind + " " + a.name }

// fakeWriter records writes and answers them like an apiserver would, with
// hooks to inject errors.
type fakeWriter struct {
	mu          sync.Mutex
	actions     []action
	rv          int
	deployments map[string]*api.Deployment
	// onCreate, if set, decides a ReplicaSet create's error.
	onCreate func(rs *api.ReplicaSet) error
}

func (w *fakeWriter) record(a action) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.actions = append(w.actions, a)
}

func (w *fakeWriter) nextRV() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rv++
	return strconv.Itoa(100 + w.rv)
}

func (w *fakeWriter) CreateReplicaSet(_ context.Context, rs *api.ReplicaSet) (*api.ReplicaSet, error) {
	w.record(action{verb: "create", kind: "replicaset", name: rs.Name, obj: api.DeepCopy(rs)})
	if w.onCreate != nil {
		if err := w.onCreate(rs); err != nil {
			return nil, err
		}
	}
	out := api.DeepCopy(rs)
	out.UID, out.ResourceVersion, out.Generation = "uid-"+rs.Name, w.nextRV(), 1
	return out, nil
}

func (w *fakeWriter) UpdateReplicaSet(_ context.Context, rs *api.ReplicaSet) (*api.ReplicaSet, error) {
	w.record(action{verb: "update", kind: "replicaset", name: rs.Name, obj: api.DeepCopy(rs)})
	out := api.DeepCopy(rs)
	out.ResourceVersion = w.nextRV()
	return out, nil
}

func (w *fakeWriter) DeleteReplicaSet(_ context.Context, rs *api.ReplicaSet) error {
	w.record(action{verb: "delete", kind: "replicaset", name: rs.Name})
	return nil
}

func (w *fakeWriter) PatchReplicaSet(_ context.Context, _, name string, patch []byte) error {
	w.record(action{verb: "patch", kind: "replicaset", name: name, patch: string(patch)})
	return nil
}

func (w *fakeWriter) GetDeployment(_ context.Context, namespace, name string) (*api.Deployment, error) {
	if d, ok := w.deployments[namespace+"/"+name]; ok {
		return api.DeepCopy(d), nil
	}
	return nil, apierrors.NewNotFound(apierrors.Resource{Group: "apps", Resource: "deployments"}, name)
}

func (w *fakeWriter) UpdateDeployment(_ context.Context, d *api.Deployment) (*api.Deployment, error) {
	w.record(action{verb: "update", kind: "deployment", name: d.Name, obj: api.DeepCopy(d)})
	out := api.DeepCopy(d)
	out.ResourceVersion = w.nextRV()
	return out, nil
}

func (w *fakeWriter) UpdateDeploymentStatus(_ context.Context, d *api.Deployment) (*api.Deployment, error) {
	w.record(action{verb: "update-status", kind: "deployment", name: d.Name, obj: api.DeepCopy(d)})
	out := api.DeepCopy(d)
	out.ResourceVersion = w.nextRV()
	return out, nil
}

// fixture is a controller over hand-filled caches.
type fixture struct {
	t        *testing.T
	c        *Controller
	writer   *fakeWriter
	recorder *events.FakeRecorder
	clock    *clock.Fake
	dStore   informer.Indexer
	rsStore  informer.Indexer
	podStore informer.Indexer
}

func newFixture(t *testing.T, objs ...api.Object) *fixture {
	t.Helper()
	newStore := func() informer.Indexer {
		return informer.NewIndexer(informer.MetaNamespaceKeyFunc, informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc})
	}
	f := &fixture{
		t: t, writer: &fakeWriter{deployments: map[string]*api.Deployment{}},
		recorder: &events.FakeRecorder{}, clock: clock.NewFake(t0.Add(time.Minute)),
		dStore: newStore(), rsStore: newStore(), podStore: newStore(),
	}
	for _, obj := range objs {
		f.add(obj)
	}
	f.c = newController(f.writer, f.recorder, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Clock: f.clock},
		informer.NewLister[*api.Deployment](f.dStore, apierrors.Resource{Group: "apps", Resource: "deployments"}),
		informer.NewLister[*api.ReplicaSet](f.rsStore, apierrors.Resource{Group: "apps", Resource: "replicasets"}),
		informer.NewLister[*api.Pod](f.podStore, apierrors.Resource{Resource: "pods"}))
	t.Cleanup(f.c.queue.ShutDown)
	return f
}

// add puts obj into the matching cache.
func (f *fixture) add(obj api.Object) {
	f.t.Helper()
	var err error
	switch o := obj.(type) {
	case *api.Deployment:
		err = f.dStore.Add(o)
		f.writer.deployments[o.Namespace+"/"+o.Name] = o
	case *api.ReplicaSet:
		err = f.rsStore.Add(o)
	case *api.Pod:
		err = f.podStore.Add(o)
	default:
		err = fmt.Errorf("fixture cannot hold %T", obj)
	}
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) sync() error {
	f.t.Helper()
	f.writer.actions = nil
	return f.c.sync(context.Background(), "default/web")
}

func (f *fixture) mustSync() {
	f.t.Helper()
	if err := f.sync(); err != nil {
		f.t.Fatalf("sync: %v", err)
	}
}

// actionsOf returns the recorded writes as "verb kind name" lines.
func (f *fixture) actionList() []string {
	var out []string
	for _, a := range f.writer.actions {
		out = append(out, a.String())
	}
	return out
}

// find returns the first recorded action with verb, kind (and name if not "").
func (f *fixture) find(verb, kind, name string) *action {
	for i := range f.writer.actions {
		a := &f.writer.actions[i]
		if a.verb == verb && a.kind == kind && (name == "" || a.name == name) {
			return a
		}
	}
	return nil
}

// lastStatus returns the status of the last status write.
func (f *fixture) lastStatus() *api.DeploymentStatus {
	var s *api.DeploymentStatus
	for _, a := range f.writer.actions {
		if a.verb == "update-status" {
			s = &a.obj.(*api.Deployment).Status
		}
	}
	return s
}

func (f *fixture) wantEvents(want ...string) {
	f.t.Helper()
	got := f.recorder.Events()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		f.t.Fatalf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func hashOf(d *api.Deployment) string {
	return controllerutil.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
}

func TestSyncNewDeploymentCreatesReplicaSetWithAllReplicas(t *testing.T) {
	d := newDeployment(10, "25%", "25%", "nginx:1.27")
	d.Annotations = map[string]string{"kubernetes.io/change-cause": "first", annotationLastApplied: "{}"}
	f := newFixture(t, d)
	f.mustSync()

	hash := hashOf(d)
	name := "web-" + hash
	create := f.find("create", "replicaset", name)
	if create == nil {
		t.Fatalf("no ReplicaSet %s created; actions %v", name, f.actionList())
	}
	rs := create.obj.(*api.ReplicaSet)
	if got := specReplicas(rs); got != 10 {
		t.Errorf("new ReplicaSet replicas = %d, want 10 (no old ReplicaSet: start with the full count)", got)
	}
	if rs.Labels["pod-template-hash"] != hash || rs.Spec.Template.Labels["pod-template-hash"] != hash ||
		rs.Spec.Selector.MatchLabels["pod-template-hash"] != hash || rs.Spec.Selector.MatchLabels["app"] != "web" {
		t.Errorf("hash %q not in labels %v, template labels %v, selector %v", hash, rs.Labels, rs.Spec.Template.Labels, rs.Spec.Selector.MatchLabels)
	}
	if _, ok := d.Spec.Template.Labels["pod-template-hash"]; ok {
		t.Error("the cached Deployment's template was modified")
	}
	ref := controllerutil.GetControllerOf(&rs.ObjectMeta)
	if ref == nil || ref.Kind != "Deployment" || ref.APIVersion != "apps/v1" || ref.UID != d.UID || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("ownerReference = %+v, want controller Deployment web with blockOwnerDeletion", ref)
	}
	wantAnn := map[string]string{
		api.DeploymentRevisionAnnotation: "1", api.DeploymentDesiredReplicasAnnotation: "10",
		api.DeploymentMaxReplicasAnnotation: "13", "kubernetes.io/change-cause": "first",
	}
	if fmt.Sprint(rs.Annotations) != fmt.Sprint(wantAnn) {
		t.Errorf("annotations = %v, want %v", rs.Annotations, wantAnn)
	}

	upd := f.find("update", "deployment", "web")
	if upd == nil || upd.obj.GetObjectMeta().Annotations[api.DeploymentRevisionAnnotation] != "1" {
		t.Errorf("deployment revision annotation not set to 1; actions %v", f.actionList())
	}
	s := f.lastStatus()
	if s == nil {
		t.Fatalf("no status written; actions %v", f.actionList())
	}
	p := getCondition(*s, api.DeploymentProgressing)
	if p == nil || p.Status != api.ConditionTrue || p.Reason != reasonNewReplicaSetCreated || p.Message != fmt.Sprintf("Created new replica set %q", name) {
		t.Errorf("Progressing = %+v, want True NewReplicaSetCreated", p)
	}
	if a := getCondition(*s, api.DeploymentAvailable); a == nil || a.Status != api.ConditionFalse || a.Reason != reasonMinimumReplicasUnavailable {
		t.Errorf("Available = %+v, want False MinimumReplicasUnavailable (no pod is available yet)", a)
	}
	if s.ObservedGeneration != 1 {
		t.Errorf("observedGeneration = %d, want 1", s.ObservedGeneration)
	}
	f.wantEvents("Normal ScalingReplicaSet Scaled up replica set " + name + " from 0 to 10")
}

func TestSyncTemplateChangeSurgesNewAndScalesDownOld(t *testing.T) {
	d := newDeployment(10, "25%", "25%", "nginx:1.28")
	old := rsFor(d, "nginx:1.27", 10, 10, 1, 0)
	d.Status = api.DeploymentStatus{ObservedGeneration: 1, Replicas: 10, UpdatedReplicas: 0, AvailableReplicas: 10, ReadyReplicas: 10}
	f := newFixture(t, d, old)
	f.mustSync()

	newName := "web-" + hashOf(d)
	create := f.find("create", "replicaset", newName)
	if create == nil {
		t.Fatalf("no new ReplicaSet; actions %v", f.actionList())
	}
	newRS := create.obj.(*api.ReplicaSet)
	if specReplicas(newRS) != 3 || newRS.Annotations[api.DeploymentRevisionAnnotation] != "2" {
		t.Errorf("new ReplicaSet: replicas %d revision %s, want 3 (maxSurge) and revision 2", specReplicas(newRS), newRS.Annotations[api.DeploymentRevisionAnnotation])
	}
	scaleDown := f.find("update", "replicaset", old.Name)
	if scaleDown == nil || specReplicas(scaleDown.obj.(*api.ReplicaSet)) != 8 {
		t.Fatalf("old ReplicaSet not scaled to 8 (10 - maxUnavailable 2); actions %v", f.actionList())
	}
	if scaleDown.obj.GetObjectMeta().ResourceVersion != old.ResourceVersion {
		t.Errorf("scale-down sent resourceVersion %q, want the cached %q (optimistic concurrency)", scaleDown.obj.GetObjectMeta().ResourceVersion, old.ResourceVersion)
	}
	f.wantEvents(
		"Normal ScalingReplicaSet Scaled up replica set "+newName+" from 0 to 3",
		"Normal ScalingReplicaSet Scaled down replica set "+old.Name+" from 10 to 8",
	)
}

func TestSyncRollingStepWaitsForAvailability(t *testing.T) {
	// Mid-rollout: 8 old available, 5 new of which none is available yet.
	d := newDeployment(10, "25%", "25%", "nginx:1.28")
	old := rsFor(d, "nginx:1.27", 8, 8, 1, 0)
	newRS := rsFor(d, "nginx:1.28", 5, 0, 2, 10)
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "2"}
	f := newFixture(t, d, old, newRS)
	f.mustSync()
	if a := f.find("update", "replicaset", ""); a != nil {
		t.Fatalf("scaled %s while 8 available = minimum; actions %v", a.name, f.actionList())
	}

	// Three new pods become available: three more old ones may go.
	newRS = api.DeepCopy(newRS)
	newRS.Status.AvailableReplicas, newRS.Status.ReadyReplicas = 3, 3
	f.add(newRS)
	f.mustSync()
	a := f.find("update", "replicaset", old.Name)
	if a == nil || specReplicas(a.obj.(*api.ReplicaSet)) != 5 {
		t.Fatalf("old ReplicaSet not scaled 8 → 5; actions %v", f.actionList())
	}
}

func TestSyncRecreateWaitsForOldPods(t *testing.T) {
	d := recreate(newDeployment(3, "", "", "nginx:1.28"))
	old := rsFor(d, "nginx:1.27", 3, 3, 1, 0)
	f := newFixture(t, d, old)

	// Step 1: the old ReplicaSet goes to zero; nothing new yet.
	f.mustSync()
	if a := f.find("update", "replicaset", old.Name); a == nil || specReplicas(a.obj.(*api.ReplicaSet)) != 0 {
		t.Fatalf("old ReplicaSet not scaled to 0; actions %v", f.actionList())
	}
	if a := f.find("create", "replicaset", ""); a != nil {
		t.Fatalf("created %s before the old pods were gone", a.name)
	}

	// Step 2: scaled down, but one old pod is still terminating.
	old = api.DeepCopy(old)
	old.Spec.Replicas = ptr(int32(0))
	old.Status = api.ReplicaSetStatus{ObservedGeneration: 1}
	f.add(old)
	now := api.NewTime(t0)
	f.add(&api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "web-old-abcde", Namespace: "default", Labels: old.Spec.Template.Labels, DeletionTimestamp: &now,
			OwnerReferences: []api.OwnerReference{controllerutil.NewControllerRef(old, "apps/v1", "ReplicaSet")}},
		Status: api.PodStatus{Phase: api.PodRunning},
	})
	f.mustSync()
	if a := f.find("create", "replicaset", ""); a != nil {
		t.Fatalf("created %s while an old pod is terminating", a.name)
	}

	// Step 3: the pod is gone; the new ReplicaSet starts at full size.
	if err := f.podStore.Delete(&api.Pod{ObjectMeta: api.ObjectMeta{Name: "web-old-abcde", Namespace: "default"}}); err != nil {
		t.Fatal(err)
	}
	f.mustSync()
	newName := "web-" + hashOf(d)
	a := f.find("create", "replicaset", newName)
	if a == nil || specReplicas(a.obj.(*api.ReplicaSet)) != 3 {
		t.Fatalf("new ReplicaSet not created with 3 replicas; actions %v", f.actionList())
	}
	f.wantEvents(
		"Normal ScalingReplicaSet Scaled down replica set "+old.Name+" from 3 to 0",
		"Normal ScalingReplicaSet Scaled up replica set "+newName+" from 0 to 3",
	)
}

func TestSyncScalingEvent(t *testing.T) {
	// The seed's flow: ng-dep at 4 scaled to 3.
	d := newDeployment(3, "25%", "25%", "nginx")
	rs := rsFor(newDeployment(4, "25%", "25%", "nginx"), "nginx", 4, 4, 1, 0)
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "1"}
	f := newFixture(t, d, rs)
	f.mustSync()
	a := f.find("update", "replicaset", rs.Name)
	if a == nil {
		t.Fatalf("ReplicaSet not updated; actions %v", f.actionList())
	}
	got := a.obj.(*api.ReplicaSet)
	if specReplicas(got) != 3 || got.Annotations[api.DeploymentDesiredReplicasAnnotation] != "3" || got.Annotations[api.DeploymentMaxReplicasAnnotation] != "4" {
		t.Errorf("scaled ReplicaSet: replicas %d annotations %v, want 3, desired 3, max 4", specReplicas(got), got.Annotations)
	}
	f.wantEvents("Normal ScalingReplicaSet Scaled down replica set " + rs.Name + " from 4 to 3")
}

func TestSyncRollbackGivesOldReplicaSetNextRevision(t *testing.T) {
	// Revision 2 (nginx:1.28) is current; `rollout undo` put 1.27 back.
	d := newDeployment(3, "25%", "25%", "nginx:1.27")
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "2"}
	rev1 := rsFor(d, "nginx:1.27", 0, 0, 1, 0)
	rev2 := rsFor(d, "nginx:1.28", 3, 3, 2, 10)
	f := newFixture(t, d, rev1, rev2)
	f.mustSync()
	a := f.find("update", "replicaset", rev1.Name)
	if a == nil {
		t.Fatalf("old ReplicaSet not updated; actions %v", f.actionList())
	}
	ann := a.obj.GetObjectMeta().Annotations
	if ann[api.DeploymentRevisionAnnotation] != "3" || ann[annotationRevisionHistory] != "1" {
		t.Errorf("rolled-back ReplicaSet annotations %v, want revision 3 and revision-history 1", ann)
	}
	if c := f.find("create", "replicaset", ""); c != nil {
		t.Errorf("created %s: the old ReplicaSet should be reused", c.name)
	}
}

func TestSyncPausedScalesButDoesNotRollOut(t *testing.T) {
	d := newDeployment(3, "25%", "25%", "nginx:1.28")
	d.Spec.Paused = true
	old := rsFor(d, "nginx:1.27", 3, 3, 1, 0)
	f := newFixture(t, d, old)
	f.mustSync()
	if a := f.find("create", "replicaset", ""); a != nil {
		t.Fatalf("paused deployment created %s", a.name)
	}
	s := f.lastStatus()
	if s == nil {
		t.Fatalf("no status written; actions %v", f.actionList())
	}
	p := getCondition(*s, api.DeploymentProgressing)
	if p == nil || p.Status != api.ConditionUnknown || p.Reason != reasonDeploymentPaused || p.Message != "Deployment is paused" {
		t.Fatalf("Progressing = %+v, want Unknown DeploymentPaused", p)
	}
}

func TestSyncResumeMarksCondition(t *testing.T) {
	d := newDeployment(3, "25%", "25%", "nginx:1.27")
	c := newCondition(api.DeploymentProgressing, api.ConditionUnknown, reasonDeploymentPaused, "Deployment is paused", t0)
	d.Status.Conditions = []api.DeploymentCondition{c}
	rs := rsFor(d, "nginx:1.27", 3, 3, 1, 0)
	f := newFixture(t, d, rs)
	f.mustSync()
	var resumed bool
	for _, a := range f.writer.actions {
		if a.verb == "update-status" {
			if p := getCondition(a.obj.(*api.Deployment).Status, api.DeploymentProgressing); p != nil && p.Reason == reasonDeploymentResumed {
				resumed = true
			}
		}
	}
	if !resumed {
		t.Fatalf("no status write with Progressing DeploymentResumed; actions %v", f.actionList())
	}
}

func TestSyncHashCollisionBumpsCollisionCount(t *testing.T) {
	d := newDeployment(2, "25%", "25%", "nginx:1.27")
	// Another owner's ReplicaSet already holds the name our template hashes to.
	squatter := rsFor(d, "nginx:1.27", 1, 1, 1, 0)
	squatter.Spec.Template.Spec.Containers[0].Image = "busybox"
	squatter.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "other", UID: "uid-other", Controller: ptr(true)}}
	f := newFixture(t, d, squatter)
	f.writer.onCreate = func(rs *api.ReplicaSet) error {
		if rs.Name == squatter.Name {
			return apierrors.NewAlreadyExists(apierrors.Resource{Group: "apps", Resource: "replicasets"}, rs.Name)
		}
		return nil
	}
	err := f.sync()
	if !apierrors.IsAlreadyExists(err) {
		t.Fatalf("sync error = %v, want the AlreadyExists (to retry)", err)
	}
	s := f.lastStatus()
	if s == nil || s.CollisionCount == nil || *s.CollisionCount != 1 {
		t.Fatalf("status = %+v, want collisionCount 1", s)
	}

	// The next sync sees collisionCount 1 and picks another name.
	d = api.DeepCopy(d)
	d.Status.CollisionCount = ptr(int32(1))
	f.add(d)
	f.mustSync()
	want := "web-" + controllerutil.ComputeHash(&d.Spec.Template, ptr(int32(1)))
	if want == squatter.Name || f.find("create", "replicaset", want) == nil {
		t.Fatalf("want a ReplicaSet %s (hash with collisionCount 1); actions %v", want, f.actionList())
	}
}

func TestSyncAlreadyExistsWithOurTemplateIsUsed(t *testing.T) {
	// Another leader created it a moment ago; our cache catches up as the
	// create fails. The sync goes on with that ReplicaSet.
	d := newDeployment(2, "25%", "25%", "nginx:1.27")
	f := newFixture(t, d)
	f.writer.onCreate = func(rs *api.ReplicaSet) error {
		stored := api.DeepCopy(rs)
		stored.UID, stored.ResourceVersion = "uid-theirs", "77"
		f.add(stored)
		return apierrors.NewAlreadyExists(apierrors.Resource{Group: "apps", Resource: "replicasets"}, rs.Name)
	}
	f.mustSync()
	if s := f.lastStatus(); s == nil || s.CollisionCount != nil {
		t.Fatalf("status %+v: want a status write and no collision", s)
	}
	if events := f.recorder.Events(); len(events) != 0 {
		t.Fatalf("events %v: the other leader already reported the scale-up", events)
	}
}

func TestSyncCleansUpHistoryBeyondLimit(t *testing.T) {
	d := newDeployment(2, "25%", "25%", "v4")
	d.Spec.RevisionHistoryLimit = ptr(int32(2))
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "4"}
	d.Status = api.DeploymentStatus{ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2, ReadyReplicas: 2}
	objs := []api.Object{d, rsFor(d, "v4", 2, 2, 4, 40)}
	for i := 1; i <= 3; i++ {
		objs = append(objs, rsFor(d, "v"+strconv.Itoa(i), 0, 0, i, i*10))
	}
	f := newFixture(t, objs...)
	f.mustSync()
	var deleted []string
	for _, a := range f.writer.actions {
		if a.verb == "delete" {
			deleted = append(deleted, a.name)
		}
	}
	want := rsFor(d, "v1", 0, 0, 1, 0).Name
	if len(deleted) != 1 || deleted[0] != want {
		t.Fatalf("deleted %v, want only revision 1 (%s): limit 2 keeps revisions 2 and 3", deleted, want)
	}
}

func TestSyncAdoptsOrphanReplicaSet(t *testing.T) {
	d := newDeployment(2, "25%", "25%", "nginx:1.27")
	orphan := rsFor(d, "nginx:1.27", 2, 2, 1, 0)
	orphan.OwnerReferences = nil
	f := newFixture(t, d, orphan)
	f.mustSync()
	p := f.find("patch", "replicaset", orphan.Name)
	if p == nil {
		t.Fatalf("orphan not adopted; actions %v", f.actionList())
	}
	var body struct {
		Metadata struct {
			OwnerReferences []api.OwnerReference `json:"ownerReferences"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(p.patch), &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Metadata.OwnerReferences) != 1 || body.Metadata.OwnerReferences[0].UID != d.UID {
		t.Fatalf("adoption patch %s, want a controller ref to %s", p.patch, d.UID)
	}
	if c := f.find("create", "replicaset", ""); c != nil {
		t.Fatalf("created %s although the adopted ReplicaSet has the template", c.name)
	}
}

func TestSyncDeletingDeploymentOnlyUpdatesStatus(t *testing.T) {
	d := newDeployment(3, "25%", "25%", "nginx:1.28")
	now := api.NewTime(t0)
	d.DeletionTimestamp = &now
	old := rsFor(d, "nginx:1.27", 3, 3, 1, 0)
	f := newFixture(t, d, old)
	f.mustSync()
	for _, a := range f.writer.actions {
		if a.verb != "update-status" {
			t.Fatalf("deployment being deleted made %s; want status writes only", a)
		}
	}
	if s := f.lastStatus(); s == nil || s.Replicas != 3 {
		t.Fatalf("status %+v, want replicas 3 from the old ReplicaSet", s)
	}
}

func TestSyncIsIdempotentWhenSettled(t *testing.T) {
	d := newDeployment(3, "25%", "25%", "nginx:1.27")
	rs := rsFor(d, "nginx:1.27", 3, 3, 1, 0)
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "1"}
	f := newFixture(t, d, rs)
	f.mustSync()
	if len(f.writer.actions) == 0 {
		t.Fatal("first sync wrote nothing; want the status")
	}
	// Feed the written status back, as the informer would.
	d = api.DeepCopy(d)
	d.Status = *f.lastStatus()
	f.add(d)
	f.mustSync()
	if len(f.writer.actions) != 0 {
		t.Fatalf("second sync of a settled deployment wrote %v", f.actionList())
	}
}

func TestHandlersEnqueueOwner(t *testing.T) {
	d := recreate(newDeployment(3, "", "", "nginx"))
	rs := rsFor(d, "nginx", 3, 3, 1, 0)
	other := newDeployment(1, "1", "1", "x")
	other.Name, other.UID = "other", "uid-other"
	other.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "other"}}
	f := newFixture(t, d, rs, other)

	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default",
		OwnerReferences: []api.OwnerReference{controllerutil.NewControllerRef(rs, "apps/v1", "ReplicaSet")}}}
	orphan := api.DeepCopy(rs)
	orphan.OwnerReferences = nil
	orphan.ResourceVersion = "6"

	tests := []struct {
		name string
		fire func()
		want []string
	}{
		{"owned ReplicaSet added", func() { f.c.addReplicaSet(rs) }, []string{"default/web"}},
		{"orphan added: deployments whose selector matches", func() { f.c.addReplicaSet(orphan) }, []string{"default/web"}},
		{"released (ref removed): old owner and candidates", func() { f.c.updateReplicaSet(rs, orphan) }, []string{"default/web"}},
		{"resync (same resourceVersion): nothing", func() { f.c.updateReplicaSet(rs, rs) }, nil},
		{"owned ReplicaSet deleted via tombstone", func() {
			f.c.deleteReplicaSet(informer.DeletedFinalStateUnknown{Key: "default/" + rs.Name, Obj: rs})
		}, []string{"default/web"}},
		{"pod of a Recreate deployment deleted", func() { f.c.deletePod(pod) }, []string{"default/web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fire()
			var got []string
			for f.c.queue.Len() > 0 {
				key, _ := f.c.queue.Get()
				got = append(got, key)
				f.c.queue.Done(key)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("enqueued %v, want %v", got, tt.want)
			}
		})
	}

	// A RollingUpdate deployment ignores pod deletions.
	rolling := newDeployment(3, "25%", "25%", "nginx")
	f.add(rolling)
	f.c.deletePod(pod)
	if f.c.queue.Len() != 0 {
		t.Fatal("pod deletion enqueued a RollingUpdate deployment")
	}
}

func TestSyncStuckRolloutRequeuesForDeadlineThenTimesOut(t *testing.T) {
	// Mid-rollout and stuck: 8 old available (the minimum), 5 new never
	// becoming available, so neither side may move.
	d := newDeployment(10, "25%", "25%", "nginx:1.28")
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "2"}
	old := rsFor(d, "nginx:1.27", 8, 8, 1, 0)
	newRS := rsFor(d, "nginx:1.28", 5, 0, 2, 10)
	f := newFixture(t, d, old, newRS)

	f.mustSync() // records the counts and Progressing ReplicaSetUpdated
	d = api.DeepCopy(d)
	d.Status = *f.lastStatus()
	f.add(d)

	f.mustSync()
	if len(f.writer.actions) != 0 {
		t.Fatalf("stuck rollout wrote %v; want nothing but a delayed requeue", f.actionList())
	}
	if waiting := f.c.queue.Waiting(); len(waiting) != 1 || waiting[0] != "default/web" {
		t.Fatalf("waiting keys = %v, want default/web parked until the deadline", waiting)
	}

	// The deadline passes: the key is released, and the sync declares failure.
	f.clock.Step(601 * time.Second)
	// The queue's delay goroutine moves the key on its own; poll for it.
	for deadline := time.Now().Add(5 * time.Second); f.c.queue.Len() != 1 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if f.c.queue.Len() != 1 {
		t.Fatalf("key not released after the deadline; waiting %v", f.c.queue.Waiting())
	}
	f.mustSync()
	s := f.lastStatus()
	if s == nil {
		t.Fatalf("no status written after the deadline; actions %v", f.actionList())
	}
	p := getCondition(*s, api.DeploymentProgressing)
	if p == nil || p.Status != api.ConditionFalse || p.Reason != reasonProgressDeadlineExceeded ||
		p.Message != fmt.Sprintf("ReplicaSet %q has timed out progressing.", newRS.Name) {
		t.Fatalf("Progressing = %+v, want False ProgressDeadlineExceeded", p)
	}
}
