package main

// The controller's tests in kplane's one fake-API style: each gives the
// fake apiserver and the informers' caches some objects, runs one sync (no
// goroutines, no sleeps), lists the complete, ordered API writes the sync
// made (server.ExpectActions) and the Events it recorded, then checks what
// the writes carried.

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"
	"time"

	websitev1alpha1 "kplane/examples/controller/api"
	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

var testNow = time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)

// fixture runs one Website controller against a fake apiserver that serves
// Websites as the real one does once crd.yaml is applied.
type fixture struct {
	t        *testing.T
	clock    *clock.Fake
	server   *fakeapi.Server
	recorder *controllertest.Recorder
	ctrl     *Controller
}

// newFixture builds the controller and puts objects in the apiserver and
// the informers' caches.
func newFixture(t *testing.T, objects ...api.Object) *fixture {
	t.Helper()
	clk := clock.NewFake(testNow)
	server := fakeapi.New(t, fakeapi.WithClock(clk),
		fakeapi.WithKind(websitev1alpha1.WebsitesResource, func() api.Object { return &websitev1alpha1.Website{} }))
	recorder := &controllertest.Recorder{}
	ctrl, err := NewController(server.Client(), server.Informers(), recorder, Options{Clock: clk, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("NewController: %v", err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	server.Put(t, objects...)
	return &fixture{t: t, clock: clk, server: server, recorder: recorder, ctrl: ctrl}
}

// mustSync runs one sync of key and fails the test on an error.
func (f *fixture) mustSync(key string) {
	f.t.Helper()
	if err := f.ctrl.sync(context.Background(), key); err != nil {
		f.t.Fatalf("sync %s: %v", key, err)
	}
}

// catchUp puts what the apiserver now holds into the caches, as the
// informers deliver the controller's own writes.
func (f *fixture) catchUp() {
	f.t.Helper()
	for _, w := range fakeapi.List[*websitev1alpha1.Website](f.t, f.server, "default") {
		f.server.Cache(f.t, w)
	}
	for _, d := range fakeapi.List[*api.Deployment](f.t, f.server, "default") {
		f.server.Cache(f.t, d)
	}
	for _, s := range fakeapi.List[*api.Service](f.t, f.server, "default") {
		f.server.Cache(f.t, s)
	}
}

// sentStatus returns the status the last status write of Website name sent.
func (f *fixture) sentStatus(name string) websitev1alpha1.WebsiteStatus {
	f.t.Helper()
	return fakeapi.Sent[*websitev1alpha1.Website](f.t, f.server, "update websites/status "+name).Status
}

// newWebsite returns the Website default/hello at generation 1.
func newWebsite(image string, replicas, port int32) *websitev1alpha1.Website {
	return &websitev1alpha1.Website{
		TypeMeta: api.TypeMeta{APIVersion: websitev1alpha1.APIVersion, Kind: websitev1alpha1.Kind},
		ObjectMeta: api.ObjectMeta{Name: "hello", Namespace: "default", UID: "uid-hello",
			ResourceVersion: "1", Generation: 1},
		Spec: websitev1alpha1.WebsiteSpec{Image: image, Replicas: &replicas, Port: port},
	}
}

// ownedDeployment is the Deployment the controller made for website, as
// the apiserver holds it after defaulting, with status ready of
// replicas ready.
func ownedDeployment(website *websitev1alpha1.Website, replicas, ready int32) *api.Deployment {
	d := newDeployment(website)
	d.UID, d.ResourceVersion = "uid-deployment", "2"
	d.Spec.Replicas = &replicas
	d.Spec.Strategy.Type = api.RollingUpdateDeploymentStrategyType // filled in by the apiserver
	d.Status = api.DeploymentStatus{ObservedGeneration: 1, Replicas: replicas, ReadyReplicas: ready}
	return d
}

// ownedService is the Service the controller made for website, with the
// cluster IP the apiserver allocated.
func ownedService(website *websitev1alpha1.Website) *api.Service {
	s := newService(website)
	s.UID, s.ResourceVersion = "uid-service", "3"
	s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.96.0.12", []string{"10.96.0.12"}
	return s
}

// checkControllerRef fails the test unless meta's controller is website,
// with blockOwnerDeletion set, so that the garbage collector deletes the
// object with the Website.
func checkControllerRef(t *testing.T, what string, meta *api.ObjectMeta, website *websitev1alpha1.Website) {
	t.Helper()
	ref := controllerutil.GetControllerOf(meta)
	if ref == nil || ref.APIVersion != "examples.kplane.dev/v1alpha1" || ref.Kind != "Website" ||
		ref.Name != website.Name || ref.UID != website.UID ||
		ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("%s: controller ownerReference = %+v, want Website %s (uid %s) with blockOwnerDeletion", what, ref, website.Name, website.UID)
	}
}

// A new Website gets its Deployment and Service, both controlled by it,
// and a status that says none of its replicas is ready yet; a second sync
// on the caught-up caches changes nothing.
func TestSyncCreatesDeploymentAndServiceOwnedByTheWebsite(t *testing.T) {
	website := newWebsite("nginx:1.27", 3, 8080)
	f := newFixture(t, website)
	f.mustSync("default/hello")

	f.server.ExpectActions(t,
		"create deployments hello",
		"create services hello",
		"update websites/status hello")
	f.recorder.ExpectEvents(t,
		"Normal Created Created Deployment hello",
		"Normal Created Created Service hello")
	// What `ctl why website/hello` prints: the decision in the journal.
	controllertest.ExpectDecision(t, f.server.Decisions("default/hello"),
		"replicas 3, image nginx:1.27, port 8080: Deployment created, Service created; Ready False ReplicasNotReady: 0 of 3 replicas are ready",
		map[string]string{"replicas": "3", "readyReplicas": "0"})

	deployment, ok := fakeapi.Get[*api.Deployment](t, f.server, "default", "hello")
	if !ok {
		t.Fatal("the apiserver holds no deployment hello")
	}
	checkControllerRef(t, "deployment", &deployment.ObjectMeta, website)
	container := webContainer(deployment)
	if replicasOf(deployment) != 3 || container == nil || container.Image != "nginx:1.27" || containerPort(container) != 8080 ||
		deployment.Spec.Selector == nil || deployment.Spec.Selector.MatchLabels[websiteLabel] != "hello" ||
		deployment.Spec.Template.Labels[websiteLabel] != "hello" {
		t.Errorf("deployment spec = %+v, want 3 replicas of nginx:1.27 on port 8080 selected by %s=hello", deployment.Spec, websiteLabel)
	}
	service, ok := fakeapi.Get[*api.Service](t, f.server, "default", "hello")
	if !ok {
		t.Fatal("the apiserver holds no service hello")
	}
	checkControllerRef(t, "service", &service.ObjectMeta, website)
	if service.Spec.Selector[websiteLabel] != "hello" || len(service.Spec.Ports) != 1 ||
		service.Spec.Ports[0].Port != 8080 || service.Spec.Ports[0].TargetPort != api.FromInt32(8080) {
		t.Errorf("service spec = %+v, want port 8080 → 8080 selecting %s=hello", service.Spec, websiteLabel)
	}

	status := f.sentStatus("hello")
	if status.ObservedGeneration != 1 || status.ReadyReplicas != 0 ||
		status.URL != "http://hello.default.svc.cluster.local:8080" || status.Selector != websiteLabel+"=hello" {
		t.Errorf("status = %+v", status)
	}
	want := api.Condition{Type: "Ready", Status: "False", ObservedGeneration: 1, LastTransitionTime: api.NewTime(testNow),
		Reason: "ReplicasNotReady", Message: "0 of 3 replicas are ready"}
	if len(status.Conditions) != 1 || !sameCondition(status.Conditions[0], want) {
		t.Errorf("conditions = %+v, want %+v", status.Conditions, want)
	}

	// Idempotent: the informers deliver the controller's own writes, and
	// the next sync finds nothing to do.
	f.catchUp()
	f.mustSync("default/hello")
	f.server.ExpectActions(t)
	f.recorder.ExpectEvents(t)
	controllertest.ExpectDecision(t, f.server.Decisions("default/hello"),
		"replicas 3, image nginx:1.27, port 8080: Deployment in sync, Service in sync; Ready False ReplicasNotReady: 0 of 3 replicas are ready", nil)
	// A third sync that finds the same records nothing new: the ring keeps
	// room for decisions that differ.
	f.mustSync("default/hello")
	if n := len(f.server.Decisions("default/hello")); n != 2 {
		t.Errorf("%d decisions after three syncs, two of them alike; want 2", n)
	}
}

// Raising spec.replicas updates the Deployment's replicas, leaving the
// fields the apiserver filled in alone, and says so in an Event.
func TestSyncUpdatesDeploymentWhenReplicasChange(t *testing.T) {
	website := newWebsite("nginx:1.27", 2, 80)
	deployment := ownedDeployment(website, 2, 2)
	service := ownedService(website)
	website.Spec.Replicas = new(int32(5))
	website.Generation = 2
	f := newFixture(t, website, deployment, service)
	f.mustSync("default/hello")

	f.server.ExpectActions(t, "update deployments hello", "update websites/status hello")
	f.recorder.ExpectEvents(t, "Normal Updated Updated Deployment hello: replicas 2 → 5")
	controllertest.ExpectDecision(t, f.server.Decisions("default/hello"),
		"replicas 5, image nginx:1.27, port 80: Deployment updated: replicas 2 → 5, Service in sync; Ready False ReplicasNotReady: 2 of 5 replicas are ready",
		map[string]string{"replicas": "5", "readyReplicas": "2"})
	sent := fakeapi.Sent[*api.Deployment](t, f.server, "update deployments hello")
	if replicasOf(sent) != 5 || sent.ResourceVersion != "2" || sent.Spec.Strategy.Type != api.RollingUpdateDeploymentStrategyType {
		t.Errorf("sent deployment: replicas %d, resourceVersion %q, strategy %q; want 5 on resourceVersion 2 with the strategy kept",
			replicasOf(sent), sent.ResourceVersion, sent.Spec.Strategy.Type)
	}
	checkControllerRef(t, "sent deployment", &sent.ObjectMeta, website)
	if s := f.sentStatus("hello"); s.ObservedGeneration != 2 || s.ReadyReplicas != 2 || s.Conditions[0].Message != "2 of 5 replicas are ready" {
		t.Errorf("status = %+v, want observedGeneration 2 and 2 of 5 ready", s)
	}
}

// The status follows the Deployment's readyReplicas: Ready turns True when
// all are ready and False again when one goes, and lastTransitionTime
// moves only when Ready's status changes.
func TestStatusFollowsDeploymentReadyReplicas(t *testing.T) {
	website := newWebsite("nginx:1.27", 3, 80)
	service := ownedService(website)
	f := newFixture(t, website, ownedDeployment(website, 3, 1), service)

	steps := []struct {
		ready          int32
		status, reason string
		message        string
		transitionAt   time.Time
	}{
		{1, "False", "ReplicasNotReady", "1 of 3 replicas are ready", testNow},
		{2, "False", "ReplicasNotReady", "2 of 3 replicas are ready", testNow}, // still False: time kept
		{3, "True", "AllReplicasReady", "3 of 3 replicas are ready", testNow.Add(2 * time.Minute)},
		{2, "False", "ReplicasNotReady", "2 of 3 replicas are ready", testNow.Add(3 * time.Minute)},
	}
	for i, step := range steps {
		f.server.Put(t, ownedDeployment(website, 3, step.ready))
		f.mustSync("default/hello")
		f.server.ExpectActions(t, "update websites/status hello")
		f.recorder.ExpectEvents(t)
		s := f.sentStatus("hello")
		cond := s.Conditions[0]
		if s.ReadyReplicas != step.ready || s.Replicas != 3 || len(s.Conditions) != 1 || cond.Status != step.status ||
			cond.Reason != step.reason || cond.Message != step.message || !cond.LastTransitionTime.Equal(step.transitionAt) {
			t.Errorf("step %d (%d ready): status = %+v, want Ready %s/%s %q since %v", i, step.ready, s, step.status, step.reason, step.message, step.transitionAt)
		}
		f.catchUp()
		f.clock.Step(time.Minute)
	}
}

// A Service someone edited by hand (another selector, another port) is put
// back to what the Website says; the cluster IP the apiserver allocated is
// kept.
func TestSyncPutsBackServiceEditedByHand(t *testing.T) {
	website := newWebsite("nginx:1.27", 1, 80)
	edited := ownedService(website)
	edited.Spec.Selector = map[string]string{"app": "other"}
	edited.Spec.Ports[0].Port = 9090
	f := newFixture(t, website, ownedDeployment(website, 1, 1), edited)
	f.mustSync("default/hello")

	f.server.ExpectActions(t, "update services hello", "update websites/status hello")
	f.recorder.ExpectEvents(t,
		"Normal Updated Updated Service hello: selector map[app:other] → map[examples.kplane.dev/website:hello], port 9090→80 → 80→80")
	sent := fakeapi.Sent[*api.Service](t, f.server, "update services hello")
	if sent.Spec.Selector[websiteLabel] != "hello" || len(sent.Spec.Selector) != 1 || sent.Spec.Ports[0].Port != 80 ||
		sent.Spec.ClusterIP != "10.96.0.12" || sent.ResourceVersion != "3" {
		t.Errorf("sent service spec = %+v (resourceVersion %q), want the Website's selector and port with the cluster IP kept", sent.Spec, sent.ResourceVersion)
	}
}

// The key of a Website that is gone is synced without error and without a
// write, so the worker loop forgets it (no back-off kept for it).
func TestDeletedWebsiteKeyIsForgotten(t *testing.T) {
	f := newFixture(t)
	f.ctrl.queue.Add("default/gone")
	f.ctrl.queue.AddRateLimited("default/gone") // a failure remembered from before
	if !controllerutil.ProcessNext(context.Background(), f.ctrl.queue, f.ctrl.sync, f.ctrl.log) {
		t.Fatal("ProcessNext: the queue was shut down")
	}
	f.server.ExpectActions(t)
	f.recorder.ExpectEvents(t)
	if n := f.ctrl.queue.NumRequeues("default/gone"); n != 0 {
		t.Errorf("NumRequeues = %d after a successful sync, want 0 (forgotten)", n)
	}
	if n := f.ctrl.queue.Len(); n != 0 {
		t.Errorf("queue length = %d, want 0", n)
	}
}

// A Website being deleted in the foreground gets nothing recreated: the
// garbage collector is deleting its objects and waits for them to go.
func TestSyncRecreatesNothingForWebsiteBeingDeleted(t *testing.T) {
	website := newWebsite("nginx:1.27", 1, 80)
	website.DeletionTimestamp = new(api.NewTime(testNow))
	website.Finalizers = []string{api.FinalizerDeleteDependents}
	f := newFixture(t, website)
	f.mustSync("default/hello")
	f.server.ExpectActions(t)
	f.recorder.ExpectEvents(t)
}

// A Deployment of the Website's name that the Website does not own is left
// alone: the sync fails (to be retried), the status says why and a Warning
// Event names the object in the way.
func TestSyncLeavesDeploymentItDoesNotOwn(t *testing.T) {
	website := newWebsite("nginx:1.27", 1, 80)
	foreign := ownedDeployment(website, 4, 0)
	foreign.OwnerReferences = nil
	f := newFixture(t, website, foreign)
	err := f.ctrl.sync(context.Background(), "default/hello")
	if err == nil {
		t.Fatal("sync succeeded; want the error of an object it does not own")
	}
	f.server.ExpectActions(t, "update websites/status hello")
	f.recorder.ExpectEvents(t,
		"Warning ErrResourceExists Deployment hello already exists and is not managed by Website hello")
	cond := f.sentStatus("hello").Conditions[0]
	if cond.Status != "False" || cond.Reason != "ReconcileFailed" || cond.Message != err.Error() {
		t.Errorf("Ready = %+v, want False/ReconcileFailed with %q", cond, err)
	}
}

// A failed write is returned (to be retried with back-off), reported in
// a Warning Event and in the Ready condition.
func TestSyncReportsFailedWrite(t *testing.T) {
	website := newWebsite("nginx:1.27", 1, 80)
	f := newFixture(t, website, ownedDeployment(website, 1, 1))
	quota := apierrors.NewForbidden(apierrors.Resource{Resource: "services"}, "hello", errExceededQuota)
	f.server.FailOn(fakeapi.VerbCreate, "services", "", quota)
	err := f.ctrl.sync(context.Background(), "default/hello")
	if !apierrors.IsForbidden(err) {
		t.Fatalf("sync error = %v, want the create's Forbidden", err)
	}
	f.server.ExpectActions(t, "create services hello", "update websites/status hello")
	f.recorder.ExpectEvents(t, "Warning SyncFailed create service hello: "+quota.Error())
	if cond := f.sentStatus("hello").Conditions[0]; cond.Reason != "ReconcileFailed" || cond.Status != "False" {
		t.Errorf("Ready = %+v, want False/ReconcileFailed", cond)
	}
	// The decision names the step that ran and the error; the Service's
	// step is missing, since it failed.
	controllertest.ExpectDecision(t, f.server.Decisions("default/hello"),
		"replicas 1, image nginx:1.27, port 80: Deployment in sync; Ready False ReconcileFailed: create service hello: "+quota.Error(), nil)
}

// Changes to a Deployment or Service reach the queue as the key of the
// Website that controls it, and only then.
func TestOwnedObjectEventsEnqueueTheirWebsite(t *testing.T) {
	website := newWebsite("nginx:1.27", 1, 80)
	f := newFixture(t, website)
	other := newWebsite("nginx:1.27", 1, 80)
	other.UID = "uid-an-older-hello" // a Website of the same name, deleted since

	cases := []struct {
		name   string
		object api.Object
		want   []string
	}{
		{"deployment controlled by the website", ownedDeployment(website, 1, 0), []string{"default/hello"}},
		{"service controlled by the website", ownedService(website), []string{"default/hello"}},
		{"deployment without owner", &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "x", Namespace: "default"}}, nil},
		{"deployment of an older website of the same name", ownedDeployment(other, 1, 0), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f.ctrl.enqueueOwner(tc.object)
			queued, _, _ := f.ctrl.queue.Debug()
			if !slices.Equal(queued, tc.want) {
				t.Errorf("queued %v, want %v", queued, tc.want)
			}
			for f.ctrl.queue.Len() > 0 {
				key, _ := f.ctrl.queue.Get()
				f.ctrl.queue.Done(key)
			}
		})
	}
}

// errExceededQuota is the cause of the test's quota refusal.
var errExceededQuota = errors.New("exceeded quota")

// sameCondition compares two conditions, their times as instants (a
// decoded time is in UTC, the test's may carry another location).
func sameCondition(a, b api.Condition) bool {
	at, bt := a.LastTransitionTime, b.LastTransitionTime
	a.LastTransitionTime, b.LastTransitionTime = api.Time{}, api.Time{}
	return a == b && at.Equal(bt.Time)
}
