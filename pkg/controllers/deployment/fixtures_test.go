package deployment

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/test/framework/fakeapi"
)

// The fixture tests are sample-controller's: given the objects in the
// apiserver and the caches (fakeapi's Put), run one sync, and compare the
// API writes it made, in order, and the events it recorded. The controller
// is the real one (New) on a real client; fakeapi answers it. No
// goroutines run: the informers are never started, the test fills their
// caches itself.

// fixture is a controller built on a fakeapi server.
type fixture struct {
	t        *testing.T
	server   *fakeapi.Server
	c        *Controller
	recorder *events.FakeRecorder
	clock    *clock.Fake
}

// newFixture builds the controller and puts objs in the server and the
// caches. Its clock starts a minute after t0.
func newFixture(t *testing.T, objs ...api.Object) *fixture {
	t.Helper()
	clk := clock.NewFake(t0.Add(time.Minute))
	server := fakeapi.New(t, fakeapi.WithClock(clk))
	recorder := &events.FakeRecorder{}
	c, err := New(server.Client(), server.Informers(), recorder, Options{Logger: slog.New(slog.DiscardHandler), Clock: clk})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(c.queue.ShutDown)
	server.Put(t, objs...)
	return &fixture{t: t, server: server, c: c, recorder: recorder, clock: clk}
}

// sync runs one sync of Deployment default/web.
func (f *fixture) sync() error {
	f.t.Helper()
	return f.c.sync(context.Background(), "default/web")
}

// mustSync runs one sync and fails the test on its error.
func (f *fixture) mustSync() {
	f.t.Helper()
	if err := f.sync(); err != nil {
		f.t.Fatalf("sync: %v", err)
	}
}

// deliver puts what the server now holds for the Deployment and its
// ReplicaSets into the caches, and drops the ReplicaSets it deleted, as
// the informers' watches would before the next sync.
func (f *fixture) deliver() {
	f.t.Helper()
	if d, ok := fakeapi.Get[*api.Deployment](f.t, f.server, "default", "web"); ok {
		f.server.Cache(f.t, d)
	}
	stored, err := f.server.Client().ReplicaSets("default").List(context.Background(), client.ListOptions{})
	if err != nil {
		f.t.Fatalf("list replica sets: %v", err)
	}
	kept := map[string]bool{}
	for _, rs := range stored.Items {
		kept[rs.Name] = true
		f.server.Cache(f.t, rs)
	}
	cached, err := f.c.replicaSets.Namespace("default").List(nil)
	if err != nil {
		f.t.Fatalf("list cached replica sets: %v", err)
	}
	for _, rs := range cached {
		if !kept[rs.Name] {
			f.server.Uncache(f.t, rs)
		}
	}
}

// stored returns the Deployment as the server now holds it.
func (f *fixture) stored() *api.Deployment {
	f.t.Helper()
	d, ok := fakeapi.Get[*api.Deployment](f.t, f.server, "default", "web")
	if !ok {
		f.t.Fatal("deployment web is not stored")
	}
	return d
}

// sentStatuses returns the status of every successful status write of
// the Deployment so far, oldest first: where a sync passes through a
// condition that a later write of the same sync replaces.
func (f *fixture) sentStatuses() []api.DeploymentStatus {
	f.t.Helper()
	var out []api.DeploymentStatus
	for _, a := range f.server.Writes() {
		if a.String() == "update deployments/status web" && a.Err == nil {
			var d api.Deployment
			if err := json.Unmarshal(a.Body, &d); err != nil {
				f.t.Fatalf("decode status write: %v", err)
			}
			out = append(out, d.Status)
		}
	}
	return out
}

// wantEvents compares every event recorded so far with want, in order.
func (f *fixture) wantEvents(want ...string) {
	f.t.Helper()
	got := f.recorder.Events()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		f.t.Fatalf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// hashOf is the pod-template-hash of d's current template.
func hashOf(d *api.Deployment) string {
	return controllerutil.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
}

// t0 is the fixtures' "now"; ReplicaSets are created at t0 plus a few
// seconds so creation order is explicit.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func intOrStr(s string) *api.IntOrString {
	if n, err := strconv.Atoi(s); err == nil {
		v := api.FromInt(n)
		return &v
	}
	v := api.FromString(s)
	return &v
}

// newDeployment returns a defaulted-looking RollingUpdate Deployment
// "web" with the given replicas, surge and unavailability, running image.
func newDeployment(replicaCount int32, surge, unavailable, image string) *api.Deployment {
	return &api.Deployment{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: api.ObjectMeta{
			Name: "web", Namespace: "default", UID: "uid-web", Generation: 1, ResourceVersion: "10",
			CreationTimestamp: api.NewTime(t0),
		},
		Spec: api.DeploymentSpec{
			Replicas: ptr(replicaCount),
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: image}}},
			},
			Strategy: api.DeploymentStrategy{
				Type:          api.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: intOrStr(surge), MaxUnavailable: intOrStr(unavailable)},
			},
			RevisionHistoryLimit:    ptr(int32(10)),
			ProgressDeadlineSeconds: ptr(int32(600)),
		},
	}
}

// recreate switches d to the Recreate strategy.
func recreate(d *api.Deployment) *api.Deployment {
	d.Spec.Strategy = api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}
	return d
}

// rsFor returns the ReplicaSet d would own for a template running image,
// created createdSec seconds after t0, sized size with available pods
// available (status.replicas = size) and the given revision.
func rsFor(d *api.Deployment, image string, size, available int32, rev int, createdSec int) *api.ReplicaSet {
	template := api.DeepCopyValue(d.Spec.Template)
	template.Spec.Containers[0].Image = image
	hash := controllerutil.ComputeHash(&template, nil)
	template.Labels = withLabel(template.Labels, api.DefaultDeploymentUniqueLabelKey, hash)
	return &api.ReplicaSet{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: api.ObjectMeta{
			Name: d.Name + "-" + hash, Namespace: d.Namespace, UID: "uid-rs-" + image,
			ResourceVersion: "5", Generation: 1,
			CreationTimestamp: api.NewTime(t0.Add(time.Duration(createdSec) * time.Second)),
			Labels:            template.Labels,
			Annotations: map[string]string{
				api.DeploymentRevisionAnnotation:        strconv.Itoa(rev),
				api.DeploymentDesiredReplicasAnnotation: strconv.Itoa(int(replicas(d.Spec.Replicas))),
				api.DeploymentMaxReplicasAnnotation:     strconv.Itoa(int(replicas(d.Spec.Replicas) + maxSurge(d))),
			},
			OwnerReferences: []api.OwnerReference{controllerutil.NewControllerRef(d, "apps/v1", "Deployment")},
		},
		Spec: api.ReplicaSetSpec{
			Replicas: ptr(size),
			Selector: &api.LabelSelector{MatchLabels: withLabel(d.Spec.Selector.MatchLabels, api.DefaultDeploymentUniqueLabelKey, hash)},
			Template: template,
		},
		Status: api.ReplicaSetStatus{
			Replicas: size, ReadyReplicas: available, AvailableReplicas: available, ObservedGeneration: 1,
		},
	}
}

// midRollout is a rolling update of "web" (10 replicas at 25%/25%) from
// nginx:1.27 to 1.28 in the middle of the docs' worked example: the old
// ReplicaSet (revision 1) at 8 pods, all available, the new one (revision
// 2) at 5, newAvailable of them available. Whether the old side may
// shrink depends on newAvailable alone: 13 asked for − 8 minimum − the
// new pods not yet available.
func midRollout(newAvailable int32) (d *api.Deployment, old, newRS *api.ReplicaSet) {
	d = newDeployment(10, "25%", "25%", "nginx:1.28")
	d.Annotations = map[string]string{api.DeploymentRevisionAnnotation: "2"}
	old = rsFor(d, "nginx:1.27", 8, 8, 1, 0)
	newRS = rsFor(d, "nginx:1.28", 5, newAvailable, 2, 10)
	return d, old, newRS
}

// plainRS returns a bare ReplicaSet for the pure-function tables: a name,
// a size, available pods, a creation offset and optional annotations.
func plainRS(name string, size, available int32, createdSec int, annotations map[string]string) *api.ReplicaSet {
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{
			Name: name, Namespace: "default", UID: "uid-" + name,
			CreationTimestamp: api.NewTime(t0.Add(time.Duration(createdSec) * time.Second)),
			Annotations:       annotations,
		},
		Spec:   api.ReplicaSetSpec{Replicas: ptr(size)},
		Status: api.ReplicaSetStatus{Replicas: size, AvailableReplicas: available, ReadyReplicas: available},
	}
}
