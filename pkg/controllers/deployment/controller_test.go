package deployment

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
	"kplane/test/framework/fakeapi"
)

// The tests below follow fixtures_test.go: given objects, one sync, the
// exact ordered writes (server.ExpectActions), then what they sent or
// stored and the events.

func TestSyncNewDeploymentCreatesReplicaSetWithAllReplicas(t *testing.T) {
	d := newDeployment(10, "25%", "25%", "nginx:1.27")
	d.Annotations = map[string]string{"kubernetes.io/change-cause": "first", annotationLastApplied: "{}"}
	f := newFixture(t, d)
	f.mustSync()

	hash := hashOf(d)
	name := "web-" + hash
	f.server.ExpectActions(t,
		"create replicasets "+name,
		"update deployments web",        // revision 1
		"update deployments/status web", // Progressing NewReplicaSetCreated
		"update deployments/status web", // counts, Available, observedGeneration
	)
	rs := fakeapi.Sent[*api.ReplicaSet](t, f.server, "create replicasets "+name)
	if got := specReplicas(rs); got != 10 {
		t.Errorf("new ReplicaSet replicas = %d, want 10 (no old ReplicaSet: start with the full count)", got)
	}
	if rs.Labels["pod-template-hash"] != hash || rs.Spec.Template.Labels["pod-template-hash"] != hash ||
		rs.Spec.Selector.MatchLabels["pod-template-hash"] != hash || rs.Spec.Selector.MatchLabels["app"] != "web" {
		t.Errorf("hash %q not in labels %v, template labels %v, selector %v", hash, rs.Labels, rs.Spec.Template.Labels, rs.Spec.Selector.MatchLabels)
	}
	if cached, err := f.c.deployments.Namespace("default").Get("web"); err != nil || cached.Spec.Template.Labels["pod-template-hash"] != "" {
		t.Errorf("the cached Deployment's template was modified: %v, %v", cached.Spec.Template.Labels, err)
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

	if rev := fakeapi.Sent[*api.Deployment](t, f.server, "update deployments web").Annotations[api.DeploymentRevisionAnnotation]; rev != "1" {
		t.Errorf("deployment revision annotation = %q, want 1", rev)
	}
	s := f.stored().Status
	p := getCondition(s, api.DeploymentProgressing)
	if p == nil || p.Status != api.ConditionTrue || p.Reason != reasonNewReplicaSetCreated || p.Message != fmt.Sprintf("Created new replica set %q", name) {
		t.Errorf("Progressing = %+v, want True NewReplicaSetCreated", p)
	}
	if a := getCondition(s, api.DeploymentAvailable); a == nil || a.Status != api.ConditionFalse || a.Reason != reasonMinimumReplicasUnavailable {
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
	f.server.ExpectActions(t,
		"create replicasets "+newName,
		"update deployments web",
		"update deployments/status web",
		"update replicasets "+old.Name,
		"update deployments/status web",
	)
	newRS := fakeapi.Sent[*api.ReplicaSet](t, f.server, "create replicasets "+newName)
	if specReplicas(newRS) != 3 || newRS.Annotations[api.DeploymentRevisionAnnotation] != "2" {
		t.Errorf("new ReplicaSet: replicas %d revision %s, want 3 (maxSurge) and revision 2", specReplicas(newRS), newRS.Annotations[api.DeploymentRevisionAnnotation])
	}
	scaleDown := fakeapi.Sent[*api.ReplicaSet](t, f.server, "update replicasets "+old.Name)
	if specReplicas(scaleDown) != 8 {
		t.Errorf("old ReplicaSet scaled to %d, want 8 (10 - maxUnavailable 2)", specReplicas(scaleDown))
	}
	if scaleDown.ResourceVersion != old.ResourceVersion {
		t.Errorf("scale-down sent resourceVersion %q, want the cached %q (optimistic concurrency)", scaleDown.ResourceVersion, old.ResourceVersion)
	}
	f.wantEvents(
		"Normal ScalingReplicaSet Scaled up replica set "+newName+" from 0 to 3",
		"Normal ScalingReplicaSet Scaled down replica set "+old.Name+" from 10 to 8",
	)
}

func TestSyncRollingStepWaitsForAvailability(t *testing.T) {
	// Mid-rollout: 8 old available, 5 new of which none is available yet.
	d, old, newRS := midRollout(0)
	f := newFixture(t, d, old, newRS)
	f.mustSync()
	// 8 available is the minimum: no ReplicaSet is scaled, only the status
	// is written (FoundNewReplicaSet, then the counts).
	f.server.ExpectActions(t, "update deployments/status web", "update deployments/status web")

	// Three new pods become available: three more old ones may go.
	f.deliver()
	newRS.Status.AvailableReplicas, newRS.Status.ReadyReplicas = 3, 3
	f.server.Put(t, newRS)
	f.mustSync()
	f.server.ExpectActions(t, "update replicasets "+old.Name, "update deployments/status web")
	if got := specReplicas(fakeapi.Sent[*api.ReplicaSet](t, f.server, "update replicasets "+old.Name)); got != 5 {
		t.Fatalf("old ReplicaSet scaled to %d, want 8 → 5", got)
	}
}

func TestSyncRecreateWaitsForOldPods(t *testing.T) {
	d := recreate(newDeployment(3, "", "", "nginx:1.28"))
	old := rsFor(d, "nginx:1.27", 3, 3, 1, 0)
	f := newFixture(t, d, old)

	// Step 1: the old ReplicaSet goes to zero; nothing new yet.
	f.mustSync()
	f.server.ExpectActions(t, "update replicasets "+old.Name, "update deployments/status web")
	if got := specReplicas(fakeapi.Sent[*api.ReplicaSet](t, f.server, "update replicasets "+old.Name)); got != 0 {
		t.Fatalf("old ReplicaSet scaled to %d, want 0", got)
	}

	// Step 2: scaled down, but one old pod is still terminating. The pod
	// is put in the cache only: the controller reads pods from its lister
	// alone, and step 3 removes it from there as the watch would.
	f.deliver()
	old = api.DeepCopy(fakeapi.Result[*api.ReplicaSet](t, f.server, "update replicasets "+old.Name))
	old.Status = api.ReplicaSetStatus{ObservedGeneration: 1}
	f.server.Put(t, old)
	now := api.NewTime(t0)
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "web-old-abcde", Namespace: "default", Labels: old.Spec.Template.Labels, DeletionTimestamp: &now,
			OwnerReferences: []api.OwnerReference{controllerutil.NewControllerRef(old, "apps/v1", "ReplicaSet")}},
		Status: api.PodStatus{Phase: api.PodRunning},
	}
	f.server.Cache(t, pod)
	f.mustSync()
	// No create while an old pod is terminating: only the status moves.
	f.server.ExpectActions(t, "update deployments/status web")

	// Step 3: the pod is gone; the new ReplicaSet starts at full size.
	f.deliver()
	f.server.Uncache(t, pod)
	f.mustSync()
	newName := "web-" + hashOf(d)
	f.server.ExpectActions(t,
		"create replicasets "+newName,
		"update deployments web",        // revision 2
		"update deployments/status web", // Progressing NewReplicaSetCreated
		"update deployments/status web", // 3 asked for, none available yet
	)
	if got := specReplicas(fakeapi.Sent[*api.ReplicaSet](t, f.server, "create replicasets "+newName)); got != 3 {
		t.Fatalf("new ReplicaSet created with %d replicas, want 3", got)
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
	f.server.ExpectActions(t,
		"update deployments/status web", // Progressing FoundNewReplicaSet
		"update replicasets "+rs.Name,
		"update deployments/status web",
	)
	got := fakeapi.Sent[*api.ReplicaSet](t, f.server, "update replicasets "+rs.Name)
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
	// The old ReplicaSet is reused, not recreated: first its revision, then
	// the first step of the rollout back to it (room for maxSurge 1).
	f.server.ExpectActions(t,
		"update replicasets "+rev1.Name,
		"update replicasets "+rev1.Name,
		"update deployments/status web",
	)
	ann := sentAt[*api.ReplicaSet](t, f.server, 0).Annotations
	if ann[api.DeploymentRevisionAnnotation] != "3" || ann[annotationRevisionHistory] != "1" {
		t.Errorf("rolled-back ReplicaSet annotations %v, want revision 3 and revision-history 1", ann)
	}
	f.wantEvents("Normal ScalingReplicaSet Scaled up replica set " + rev1.Name + " from 0 to 1")
}

func TestSyncPausedScalesButDoesNotRollOut(t *testing.T) {
	d := newDeployment(3, "25%", "25%", "nginx:1.28")
	d.Spec.Paused = true
	old := rsFor(d, "nginx:1.27", 3, 3, 1, 0)
	f := newFixture(t, d, old)
	f.mustSync()
	// No new ReplicaSet: the pause is marked, then the counts written.
	f.server.ExpectActions(t, "update deployments/status web", "update deployments/status web")
	p := getCondition(f.stored().Status, api.DeploymentProgressing)
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
	f.server.ExpectActions(t,
		"update deployments/status web", // Progressing DeploymentResumed
		"update deployments web",        // revision 1
		"update deployments/status web", // complete: NewReplicaSetAvailable
	)
	statuses := f.sentStatuses()
	if p := getCondition(statuses[0], api.DeploymentProgressing); p == nil || p.Status != api.ConditionUnknown || p.Reason != reasonDeploymentResumed {
		t.Fatalf("first status write: Progressing %+v, want Unknown DeploymentResumed", p)
	}
}

func TestSyncHashCollisionBumpsCollisionCount(t *testing.T) {
	d := newDeployment(2, "25%", "25%", "nginx:1.27")
	// Another owner's ReplicaSet already holds the name our template hashes
	// to, so the server answers our create with AlreadyExists.
	squatter := rsFor(d, "nginx:1.27", 1, 1, 1, 0)
	squatter.Spec.Template.Spec.Containers[0].Image = "busybox"
	squatter.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "other", UID: "uid-other", Controller: ptr(true)}}
	f := newFixture(t, d, squatter)
	err := f.sync()
	if !apierrors.IsAlreadyExists(err) {
		t.Fatalf("sync error = %v, want the AlreadyExists (to retry)", err)
	}
	f.server.ExpectActions(t, "create replicasets "+squatter.Name, "update deployments/status web")
	if s := f.stored().Status; s.CollisionCount == nil || *s.CollisionCount != 1 {
		t.Fatalf("status = %+v, want collisionCount 1", s)
	}

	// The next sync sees collisionCount 1 and picks another name.
	f.deliver()
	f.mustSync()
	want := "web-" + controllerutil.ComputeHash(&d.Spec.Template, ptr(int32(1)))
	if want == squatter.Name {
		t.Fatalf("collisionCount 1 hashes to the squatter's name %s", want)
	}
	f.server.ExpectActions(t,
		"create replicasets "+want,
		"update deployments web",
		"update deployments/status web",
		"update deployments/status web",
	)
}

func TestSyncAlreadyExistsWithOurTemplateIsUsed(t *testing.T) {
	// Another leader created it a moment ago: the server has it, and our
	// cache catches up as the create fails. The sync goes on with that
	// ReplicaSet.
	d := newDeployment(2, "25%", "25%", "nginx:1.27")
	f := newFixture(t, d)
	theirs, err := newReplicaSetFor(d, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	theirs.UID, theirs.ResourceVersion = "uid-theirs", "77"
	f.server.Add(t, theirs)
	f.server.React(func(a fakeapi.Action) error {
		if a.String() == "create replicasets "+theirs.Name {
			f.server.Cache(t, theirs)
		}
		return nil
	})
	f.mustSync()
	f.server.ExpectActions(t,
		"create replicasets "+theirs.Name, // AlreadyExists
		"update deployments web",
		"update deployments/status web",
	)
	if s := f.stored().Status; s.CollisionCount != nil {
		t.Fatalf("status %+v: want no collision", s)
	}
	if events := f.recorder.Events(); len(events) != 0 {
		t.Fatalf("events %v: the other leader already reported the scale-up", events)
	}
}

func TestSyncCreateFailureMarksProgressingAndWarns(t *testing.T) {
	d := newDeployment(2, "25%", "25%", "nginx:1.27")
	f := newFixture(t, d)
	f.server.FailOn(fakeapi.VerbCreate, "replicasets", "", apierrors.NewInternalError(errors.New("etcd is down")))
	if err := f.sync(); err == nil {
		t.Fatal("sync succeeded; want the create's error, to retry")
	}
	name := "web-" + hashOf(d)
	f.server.ExpectActions(t, "create replicasets "+name, "update deployments/status web")
	p := getCondition(f.stored().Status, api.DeploymentProgressing)
	if p == nil || p.Status != api.ConditionFalse || p.Reason != reasonReplicaSetCreateError || !strings.Contains(p.Message, "etcd is down") {
		t.Errorf("Progressing = %+v, want False ReplicaSetCreateError with the apiserver's message", p)
	}
	events := f.recorder.Events()
	if len(events) != 1 || !strings.HasPrefix(events[0], "Warning ReplicaSetCreateError Failed to create new replica set \""+name+"\"") {
		t.Errorf("events = %v, want one ReplicaSetCreateError warning", events)
	}
}

func TestSyncScaleFromStaleCacheConflicts(t *testing.T) {
	// The cache lags: another writer already changed the old ReplicaSet.
	// The scale-down carries the cached resourceVersion, so it conflicts
	// and the sync fails, to be retried on fresh data.
	d, old, newRS := midRollout(3)
	f := newFixture(t, d, old, newRS)
	newer := api.DeepCopy(old)
	newer.ResourceVersion = "6"
	f.server.Add(t, newer)
	err := f.sync()
	if !apierrors.IsConflict(err) {
		t.Fatalf("sync error = %v, want a Conflict", err)
	}
	f.server.ExpectActions(t, "update deployments/status web", "update replicasets "+old.Name)
	if events := f.recorder.Events(); len(events) != 0 {
		t.Fatalf("events %v: a scale that failed must not be reported", events)
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
	// Limit 2 keeps revisions 2 and 3: only revision 1 goes.
	rev1 := rsFor(d, "v1", 0, 0, 1, 0)
	f.server.ExpectActions(t,
		"update deployments/status web", // Progressing FoundNewReplicaSet
		"delete replicasets "+rev1.Name,
		"update deployments/status web",
	)
	// Preconditions: a ReplicaSet changed since the cache saw it (a
	// rollback scaling it up again) is not deleted.
	opts := fakeapi.Sent[api.DeleteOptions](t, f.server, "delete replicasets "+rev1.Name)
	if p := opts.Preconditions; p == nil || p.UID == nil || *p.UID != rev1.UID || p.ResourceVersion == nil || *p.ResourceVersion != rev1.ResourceVersion {
		t.Errorf("delete preconditions = %+v, want uid %s and resourceVersion %s", p, rev1.UID, rev1.ResourceVersion)
	}
}

func TestSyncAdoptsOrphanReplicaSet(t *testing.T) {
	d := newDeployment(2, "25%", "25%", "nginx:1.27")
	orphan := rsFor(d, "nginx:1.27", 2, 2, 1, 0)
	orphan.OwnerReferences = nil
	f := newFixture(t, d, orphan)
	f.mustSync()
	// Adopted, not duplicated: no create.
	f.server.ExpectActions(t,
		"patch replicasets "+orphan.Name,
		"update deployments web",
		"update deployments/status web",
		"update deployments/status web",
	)
	type ownerPatch struct {
		Metadata struct {
			OwnerReferences []api.OwnerReference `json:"ownerReferences"`
		} `json:"metadata"`
	}
	body := fakeapi.Sent[ownerPatch](t, f.server, "patch replicasets "+orphan.Name)
	if len(body.Metadata.OwnerReferences) != 1 || body.Metadata.OwnerReferences[0].UID != d.UID {
		t.Fatalf("adoption patch ownerReferences %+v, want a controller ref to %s", body.Metadata.OwnerReferences, d.UID)
	}
	adopted := fakeapi.Result[*api.ReplicaSet](t, f.server, "patch replicasets "+orphan.Name)
	if ref := controllerutil.GetControllerOf(&adopted.ObjectMeta); ref == nil || ref.UID != d.UID {
		t.Fatalf("stored ReplicaSet's controller = %+v, want %s", ref, d.UID)
	}
	// Adoption re-read the Deployment past the cache first.
	var read bool
	for _, a := range f.server.Actions() {
		if a.String() == "get deployments web" {
			read = true
		}
	}
	if !read {
		t.Errorf("no fresh read of the Deployment before adopting; requests %s", f.server)
	}
}

func TestSyncDeletingDeploymentOnlyUpdatesStatus(t *testing.T) {
	d := newDeployment(3, "25%", "25%", "nginx:1.28")
	now := api.NewTime(t0)
	d.DeletionTimestamp = &now
	d.Finalizers = []string{"foregroundDeletion"} // what keeps it while its ReplicaSets go
	old := rsFor(d, "nginx:1.27", 3, 3, 1, 0)
	f := newFixture(t, d, old)
	f.mustSync()
	f.server.ExpectActions(t, "update deployments/status web")
	if s := f.stored().Status; s.Replicas != 3 {
		t.Fatalf("status %+v, want replicas 3 from the old ReplicaSet", s)
	}
}

func TestSyncIsIdempotentWhenSettled(t *testing.T) {
	d := newDeployment(3, "25%", "25%", "nginx:1.27")
	rs := rsFor(d, "nginx:1.27", 3, 3, 1, 0)
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "1"}
	f := newFixture(t, d, rs)
	f.mustSync()
	f.server.ExpectActions(t, "update deployments/status web", "update deployments/status web")
	// The informer delivers the written status; the second sync finds
	// nothing to do and schedules nothing.
	f.deliver()
	f.mustSync()
	f.server.ExpectActions(t)
	if f.c.queue.Len() != 0 || len(f.c.queue.Waiting()) != 0 {
		t.Fatalf("settled deployment requeued: queued %d, waiting %v", f.c.queue.Len(), f.c.queue.Waiting())
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
		{"deployment added", func() { f.c.addDeployment(d) }, []string{"default/web"}},
		{"deployment updated", func() { f.c.updateDeployment(d, d) }, []string{"default/web"}},
		{"deployment deleted via tombstone", func() {
			f.c.deleteDeployment(informer.DeletedFinalStateUnknown{Key: "default/web", Obj: d})
		}, []string{"default/web"}},
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
	f.server.Put(t, rolling)
	f.c.deletePod(pod)
	if f.c.queue.Len() != 0 {
		t.Fatal("pod deletion enqueued a RollingUpdate deployment")
	}
	// Handlers only enqueue: none of them wrote.
	f.server.ExpectActions(t)
}

func TestSyncStuckRolloutRequeuesForDeadlineThenTimesOut(t *testing.T) {
	// Mid-rollout and stuck: 8 old available (the minimum), 5 new never
	// becoming available, so neither side may move.
	d, old, newRS := midRollout(0)
	f := newFixture(t, d, old, newRS)

	f.mustSync() // records the counts and Progressing ReplicaSetUpdated
	f.server.ExpectActions(t, "update deployments/status web", "update deployments/status web")
	f.deliver()

	f.mustSync()
	f.server.ExpectActions(t) // nothing but a delayed requeue
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
	f.server.ExpectActions(t, "update deployments/status web")
	p := getCondition(f.stored().Status, api.DeploymentProgressing)
	if p == nil || p.Status != api.ConditionFalse || p.Reason != reasonProgressDeadlineExceeded ||
		p.Message != fmt.Sprintf("ReplicaSet %q has timed out progressing.", newRS.Name) {
		t.Fatalf("Progressing = %+v, want False ProgressDeadlineExceeded", p)
	}
}

// sentAt decodes the body of the i-th write the server received (counting
// from 0, failed ones included): for a test that needs an earlier write
// than the latest of its name, which is what fakeapi.Sent returns.
func sentAt[T any](t *testing.T, s *fakeapi.Server, i int) T {
	t.Helper()
	writes := s.Writes()
	if i >= len(writes) {
		t.Fatalf("write %d asked for; only %d made", i, len(writes))
	}
	var out T
	if err := json.Unmarshal(writes[i].Body, &out); err != nil {
		t.Fatalf("decode write %d (%s): %v", i, writes[i], err)
	}
	return out
}

// TestSyncRollingUpdateFollowsTheDocsWorkedExample drives a whole rolling
// update of 10 replicas at 25%/25% sync by sync, playing the ReplicaSet
// controller and the kubelet in between, and checks each step against the
// table in docs/controllers/deployment.md ("Worked example"), including
// the scale-up that waits while the old ReplicaSet still has the pods it
// was scaled away from.
func TestSyncRollingUpdateFollowsTheDocsWorkedExample(t *testing.T) {
	d := newDeployment(10, "25%", "25%", "nginx:1.28")
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "1"}
	d.Status = api.DeploymentStatus{ObservedGeneration: 1, Replicas: 10, UpdatedReplicas: 0, AvailableReplicas: 10, ReadyReplicas: 10}
	old := rsFor(d, "nginx:1.27", 10, 10, 1, 0)
	f := newFixture(t, d, old)
	newName := "web-" + hashOf(d)

	// settle plays the ReplicaSet controller and the kubelet: every
	// ReplicaSet has the pods it asks for, the old ones all available,
	// newAvailable of the new one's.
	settle := func(newAvailable int32) {
		t.Helper()
		stored, err := f.server.Client().ReplicaSets("default").List(t.Context(), client.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, rs := range stored.Items {
			available := specReplicas(rs)
			if rs.Name == newName {
				available = newAvailable
			}
			rs.Status = api.ReplicaSetStatus{Replicas: specReplicas(rs), ReadyReplicas: available, AvailableReplicas: available, ObservedGeneration: rs.Generation}
			f.server.Put(t, rs)
		}
		f.deliver()
	}
	scaleNew := func(from, to int32) string {
		return fmt.Sprintf("Normal ScalingReplicaSet Scaled up replica set %s from %d to %d", newName, from, to)
	}
	scaleOld := func(from, to int32) string {
		return fmt.Sprintf("Normal ScalingReplicaSet Scaled down replica set %s from %d to %d", old.Name, from, to)
	}

	// The writes of a step that scales the new, or the old, ReplicaSet,
	// and of one that only reports status.
	upNew := []string{"update replicasets " + newName, "update deployments/status web"}
	downOld := []string{"update replicasets " + old.Name, "update deployments/status web"}
	statusOnly := []string{"update deployments/status web"}

	steps := []struct {
		name string
		// settled: the ReplicaSet controller and the kubelet have acted on
		// the previous step, and newAvailable of the new pods are available.
		settled      bool
		newAvailable int32
		// writes and events are the sync's API writes and the
		// ScalingReplicaSet events it records; newRS and oldRS the sizes
		// after it.
		writes, events []string
		newRS, oldRS   int32
	}{
		{"1: template changed: room 13 − 10 = 3, then budget 13 − 8 − 3 = 2", false, 0,
			[]string{"create replicasets " + newName, "update deployments web", "update deployments/status web",
				"update replicasets " + old.Name, "update deployments/status web"},
			[]string{scaleNew(0, 3), scaleOld(10, 8)}, 3, 8},
		{"old still holds 10 pods: counted max(8, 10) + 3 = 13, no room", false, 0, statusOnly, nil, 3, 8},
		{"2: old down to 8 pods: room 13 − 11 = 2", true, 0, upNew, []string{scaleNew(3, 5)}, 5, 8},
		{"no new pod available: budget 13 − 8 − 5 = 0, waits", true, 0, statusOnly, nil, 5, 8},
		{"3: 3 new available: 11 available, budget 13 − 8 − 2 = 3", true, 3, downOld, []string{scaleOld(8, 5)}, 5, 5},
		{"4: room 13 − 10 = 3", true, 3, upNew, []string{scaleNew(5, 8)}, 8, 5},
		{"5: 5 new available: 10 available, budget 13 − 8 − 3 = 2", true, 5, downOld, []string{scaleOld(5, 3)}, 8, 3},
		{"6: room 2, capped at 10 − 8 = 2", true, 5, upNew, []string{scaleNew(8, 10)}, 10, 3},
		{"7: 8 new available: 11 available, budget 13 − 8 − 2 = 3", true, 8, downOld, []string{scaleOld(3, 0)}, 10, 0},
		{"8: 10 new available, nothing old left: complete", true, 10, statusOnly, nil, 10, 0},
	}
	var events []string
	for _, step := range steps {
		if step.settled {
			settle(step.newAvailable)
		} else {
			f.deliver()
		}
		f.mustSync()
		f.server.ExpectActions(t, step.writes...)
		events = append(events, step.events...)
		f.wantEvents(events...)
		newRS, _ := fakeapi.Get[*api.ReplicaSet](t, f.server, "default", newName)
		oldRS, _ := fakeapi.Get[*api.ReplicaSet](t, f.server, "default", old.Name)
		if specReplicas(newRS) != step.newRS || specReplicas(oldRS) != step.oldRS {
			t.Fatalf("after %q: new %d old %d, want %d and %d", step.name, specReplicas(newRS), specReplicas(oldRS), step.newRS, step.oldRS)
		}
		if total := specReplicas(newRS) + specReplicas(oldRS); total > 13 {
			t.Fatalf("after %q: %d pods asked for, more than replicas + maxSurge = 13", step.name, total)
		}
	}
	p := getCondition(f.stored().Status, api.DeploymentProgressing)
	if p == nil || p.Reason != reasonNewReplicaSetAvailable {
		t.Fatalf("Progressing = %+v, want NewReplicaSetAvailable", p)
	}
}
