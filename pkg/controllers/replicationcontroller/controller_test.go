package replicationcontroller

// Tests of one sync over ReplicationControllers on a fake apiserver: the
// logic is the ReplicaSet's (tested in depth there); these check that the
// adapter feeds it an RC's selector, template and status and writes the
// result back in the RC's shape, listing the complete writes of each
// sync.

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/test/framework/fakeapi"
)

var testNow = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

// newController builds the controller on a fake apiserver holding
// objects, which are in the informers' caches too.
func newController(t *testing.T, objects ...api.Object) (*Controller, *fakeapi.Server, *events.FakeRecorder) {
	t.Helper()
	server := fakeapi.New(t)
	recorder := &events.FakeRecorder{}
	ctrl, err := New(server.Client(), server.Informers(), recorder, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	server.Put(t, objects...)
	return ctrl, server, recorder
}

// sentStatus returns the status the last successful status write of the
// ReplicationController name sent.
func sentStatus(t *testing.T, server *fakeapi.Server, name string) api.ReplicationControllerStatus {
	t.Helper()
	return fakeapi.Sent[*api.ReplicationController](t, server, "update replicationcontrollers/status "+name).Status
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
	ctrl, server, recorder := newController(t, rc)
	if err := ctrl.Sync(context.Background(), "default/nginx-rc"); err != nil {
		t.Fatal(err)
	}
	// A slow-start batch of one, then of one: two alike creates.
	server.ExpectActions(t, "create pods nginx-rc-", "create pods nginx-rc-",
		"update replicationcontrollers/status nginx-rc")
	created := fakeapi.List[*api.Pod](t, server, "default")
	if len(created) != 2 {
		t.Fatalf("the apiserver holds %d pods, want 2", len(created))
	}
	for _, pod := range created {
		ref := controllerutil.GetControllerOf(&pod.ObjectMeta)
		if pod.GenerateName != "nginx-rc-" || pod.Labels["app"] != "nginx-rc" || ref == nil ||
			ref.Kind != "ReplicationController" || ref.APIVersion != "v1" || ref.UID != rc.UID {
			t.Errorf("pod generateName %q, labels %v, controllerRef %+v", pod.GenerateName, pod.Labels, ref)
		}
	}
	want := []string{"Normal SuccessfulCreate Created pod: nginx-rc-00001", "Normal SuccessfulCreate Created pod: nginx-rc-00002"}
	if got := slices.Sorted(slices.Values(recorder.Events())); !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	if s := sentStatus(t, server, "nginx-rc"); s.Replicas != 0 || s.ObservedGeneration != 2 {
		t.Errorf("status = %+v, want 0 replicas, observedGeneration 2", s)
	}
}

// Adoption, release and counting work on the RC's map selector.
func TestSyncClaimsByMapSelectorAndCounts(t *testing.T) {
	rc := newRC("nginx-rc", 2)
	ctrl, server, _ := newController(t, rc,
		newPod("ready", appRC, rc, true),
		newPod("orphan", appRC, nil, false),
		newPod("relabelled", map[string]string{"app": "debug"}, rc, true),
	)
	if err := ctrl.Sync(context.Background(), "default/nginx-rc"); err != nil {
		t.Fatal(err)
	}
	// The claim patches pods in the lister's order, which is not fixed.
	// After claiming there are 2 pods: no create, no delete.
	server.ExpectActions(t,
		fakeapi.InAnyOrder("patch pods orphan", "patch pods relabelled"),
		"update replicationcontrollers/status nginx-rc")
	adopt := string(fakeapi.Sent[json.RawMessage](t, server, "patch pods orphan"))
	release := string(fakeapi.Sent[json.RawMessage](t, server, "patch pods relabelled"))
	if !strings.Contains(adopt, `"controller":true`) || !strings.Contains(adopt, `"kind":"ReplicationController"`) ||
		!strings.Contains(release, `"$patch":"delete"`) {
		t.Fatalf("patches: orphan %s, relabelled %s; want orphan adopted and relabelled released", adopt, release)
	}
	if s := sentStatus(t, server, "nginx-rc"); s.Replicas != 2 || s.FullyLabeledReplicas != 2 || s.ReadyReplicas != 1 || s.AvailableReplicas != 1 {
		t.Errorf("status = %+v, want replicas 2, fullyLabeled 2, ready 1, available 1", s)
	}
}

// A failing create shows as the RC's ReplicaFailure condition.
func TestSyncFailureConditionInRCShape(t *testing.T) {
	ctrl, server, recorder := newController(t, newRC("nginx-rc", 1))
	quota := apierrors.NewForbidden(apierrors.Resource{Resource: "pods"}, "", errors.New("exceeded quota"))
	server.FailOn(fakeapi.VerbCreate, "pods", "", quota)
	if err := ctrl.Sync(context.Background(), "default/nginx-rc"); err == nil {
		t.Fatal("sync succeeded; want the create error")
	}
	server.ExpectActions(t, "create pods nginx-rc-", "update replicationcontrollers/status nginx-rc")
	if want := "Warning FailedCreate Error creating: " + quota.Error(); !reflect.DeepEqual(recorder.Events(), []string{want}) {
		t.Errorf("events = %q, want %q", recorder.Events(), want)
	}
	conds := sentStatus(t, server, "nginx-rc").Conditions
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

func TestSyncRecordsTheDecisionAboutTheRC(t *testing.T) {
	ctrl, server, _ := newController(t, newRC("nginx-rc", 2))
	if err := ctrl.Sync(context.Background(), "default/nginx-rc"); err != nil {
		t.Fatal(err)
	}
	records := server.Decisions("default/nginx-rc")
	if len(records) != 1 {
		t.Fatalf("decisions %+v, want one", records)
	}
	r := records[0]
	if r.Message != "ReplicationController wants 2, has 0: create 2 (slow start batches 1, 1)" ||
		r.Resource != "replicationcontrollers" || r.Actor != "replicationcontroller" {
		t.Errorf("record %q about %q by %q, want the RC's own kind, resource and controller", r.Message, r.Resource, r.Actor)
	}
}
