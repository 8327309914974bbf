package fakeapi

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func replicaSet(name string, replicas int32) *api.ReplicaSet {
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name, ResourceVersion: "7",
			Labels: map[string]string{"app": "web"}},
		Spec:   api.ReplicaSetSpec{Replicas: &replicas},
		Status: api.ReplicaSetStatus{Replicas: replicas},
	}
}

func TestCreateMakesUpNameUIDVersionAndTime(t *testing.T) {
	s := New(t, WithClock(clock.NewFake(now)))
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{GenerateName: "web-", Namespace: "default"}}
	created, err := s.Client().Pods("default").Create(context.Background(), pod, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Name != "web-00001" || created.UID != "uid-web-00001" || created.ResourceVersion != "1" ||
		!created.CreationTimestamp.Time.Equal(now) || created.Namespace != "default" {
		t.Errorf("created = %s uid %s rv %s at %v in %q", created.Name, created.UID, created.ResourceVersion, created.CreationTimestamp, created.Namespace)
	}
	s.ExpectActions(t, "create pods web-")
	if got := Result[*api.Pod](t, s, "create pods web-"); got.Name != "web-00001" {
		t.Errorf("stored name = %q", got.Name)
	}
	if _, err := s.Client().Pods("default").Create(context.Background(), created, client.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second create of %s = %v, want AlreadyExists", created.Name, err)
	}
}

func TestUpdateChecksResourceVersionAndSplitsStatus(t *testing.T) {
	s := New(t)
	s.Add(t, replicaSet("web", 3))
	rs := replicaSet("web", 5)
	rs.Status.Replicas = 99 // an update of the main resource does not write status
	updated, err := s.Client().ReplicaSets("default").Update(context.Background(), rs, client.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *updated.Spec.Replicas != 5 || updated.Status.Replicas != 3 || updated.ResourceVersion == "7" {
		t.Errorf("after update: spec %d status %d rv %s", *updated.Spec.Replicas, updated.Status.Replicas, updated.ResourceVersion)
	}
	if _, err := s.Client().ReplicaSets("default").Update(context.Background(), rs, client.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("update from a stale resourceVersion = %v, want Conflict", err)
	}

	updated.Status.Replicas = 5
	*updated.Spec.Replicas = 1 // a status update does not write spec
	afterStatus, err := s.Client().ReplicaSets("default").UpdateStatus(context.Background(), updated, client.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *afterStatus.Spec.Replicas != 5 || afterStatus.Status.Replicas != 5 {
		t.Errorf("after status update: spec %d status %d", *afterStatus.Spec.Replicas, afterStatus.Status.Replicas)
	}
	s.ExpectActions(t, "update replicasets web", "update replicasets web", "update replicasets/status web")
	if got, ok := Get[*api.ReplicaSet](t, s, "default", "web"); !ok || got.Status.Replicas != 5 {
		t.Errorf("Get = %v, %v", got, ok)
	}
}

func TestStrategicMergePatchUsesTheKindsPatchKeys(t *testing.T) {
	s := New(t)
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web-1", Namespace: "default",
		OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "old", UID: "uid-old"}}}}
	s.Add(t, pod)
	patch := `{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"uid-web"}],"uid":"uid-web-1"}}`
	if _, err := s.Client().Pods("default").Patch(context.Background(), "web-1", client.StrategicMergePatchType, []byte(patch), client.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	s.ExpectActions(t, "patch pods web-1")
	got := Result[*api.Pod](t, s, "patch pods web-1")
	if len(got.OwnerReferences) != 2 { // merged by uid, not replaced
		t.Errorf("ownerReferences after patch = %+v", got.OwnerReferences)
	}
	if sent := Sent[map[string]any](t, s, "patch pods web-1"); sent["metadata"] == nil {
		t.Errorf("sent patch = %v", sent)
	}
}

func TestDeleteHonoursPreconditionsFinalizersAndGrace(t *testing.T) {
	s := New(t, WithClock(clock.NewFake(now)))
	held := replicaSet("held", 1)
	held.Finalizers = []string{"example.com/hold"}
	bound := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "bound", Namespace: "default", UID: "uid-bound", ResourceVersion: "3"},
		Spec: api.PodSpec{NodeName: "node1"}}
	s.Add(t, replicaSet("web", 1), held, bound)
	ctx := context.Background()
	rsClient := s.Client().ReplicaSets("default")

	wrongUID := "uid-other"
	err := rsClient.Delete(ctx, "web", client.DeleteOptions{Preconditions: &api.Preconditions{UID: &wrongUID}})
	if !apierrors.IsConflict(err) {
		t.Errorf("delete with a wrong uid precondition = %v, want Conflict", err)
	}
	if err := rsClient.Delete(ctx, "web", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get[*api.ReplicaSet](t, s, "default", "web"); ok {
		t.Error("web is still stored after its delete")
	}

	if err := rsClient.Delete(ctx, "held", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	stillHeld, ok := Get[*api.ReplicaSet](t, s, "default", "held")
	if !ok || stillHeld.DeletionTimestamp == nil {
		t.Fatalf("held after delete = %v, %v; want kept and marked", stillHeld, ok)
	}
	stillHeld.Finalizers = nil
	if _, err := rsClient.Update(ctx, stillHeld, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get[*api.ReplicaSet](t, s, "default", "held"); ok {
		t.Error("held is still stored after its last finalizer went")
	}

	if err := s.Client().Pods("default").Delete(ctx, "bound", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	terminating, ok := Get[*api.Pod](t, s, "default", "bound")
	if !ok || terminating.DeletionTimestamp == nil || !terminating.DeletionTimestamp.Time.Equal(now.Add(30*time.Second)) {
		t.Fatalf("bound pod after delete = %+v, %v; want kept until now+30s", terminating.ObjectMeta, ok)
	}
	zero := int64(0)
	if err := s.Client().Pods("default").Delete(ctx, "bound", client.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get[*api.Pod](t, s, "default", "bound"); ok {
		t.Error("bound pod is still stored after the kubelet's zero-grace delete")
	}
	s.ExpectActions(t, "delete replicasets web", "delete replicasets web", "delete replicasets held",
		"update replicasets held", "delete pods bound", "delete pods bound")
}

func TestListAndDeleteCollectionSelectByNamespaceAndLabels(t *testing.T) {
	s := New(t)
	other := replicaSet("other", 1)
	other.Labels = map[string]string{"app": "db"}
	elsewhere := replicaSet("web", 1)
	elsewhere.Namespace = "prod"
	s.Add(t, replicaSet("web", 1), other, elsewhere)
	ctx := context.Background()

	list, err := s.Client().ReplicaSets("default").List(ctx, client.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "web" || list.Items[0].Namespace != "default" {
		t.Errorf("list = %v", list.Items)
	}
	all, err := s.Client().ReplicaSets("").List(ctx, client.ListOptions{})
	if err != nil || len(all.Items) != 3 {
		t.Errorf("list across namespaces = %d items, %v", len(all.Items), err)
	}
	if err := s.Client().ReplicaSets("default").DeleteCollection(ctx, client.DeleteOptions{}, client.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get[*api.ReplicaSet](t, s, "prod", "web"); !ok {
		t.Error("deletecollection in default deleted prod/web")
	}
	if _, ok := Get[*api.ReplicaSet](t, s, "default", "other"); ok {
		t.Error("deletecollection in default left default/other")
	}
	s.ExpectActions(t, "deletecollection replicasets")
	if reads := len(s.Actions()) - len(s.Writes()); reads != 2 {
		t.Errorf("recorded %d reads, want the 2 lists", reads)
	}
}

func TestFailOnAndReactInjectFailures(t *testing.T) {
	s := New(t)
	s.Add(t, replicaSet("web", 1))
	s.FailOn(VerbUpdate, "replicasets/status", "web", apierrors.NewConflict(apierrors.Resource{Group: "apps", Resource: "replicasets"}, "web", "injected"))
	creates := 0
	s.React(func(a Action) error {
		if a.Verb == VerbCreate {
			if creates++; creates == 2 {
				return apierrors.NewInternalError(errors.New("injected"))
			}
		}
		return nil
	})
	ctx := context.Background()
	rs := replicaSet("web", 1)
	if _, err := s.Client().ReplicaSets("default").UpdateStatus(ctx, rs, client.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("status update = %v, want the injected Conflict", err)
	}
	if _, err := s.Client().ReplicaSets("default").Update(ctx, rs, client.UpdateOptions{}); err != nil {
		t.Errorf("update of the main resource = %v, want success (only /status fails)", err)
	}
	for i, want := range []bool{true, false, true} {
		pod := &api.Pod{ObjectMeta: api.ObjectMeta{GenerateName: "web-", Namespace: "default"}}
		if _, err := s.Client().Pods("default").Create(ctx, pod, client.CreateOptions{}); (err == nil) != want {
			t.Errorf("create %d: err = %v, want success %v", i+1, err, want)
		}
	}
	s.ExpectActions(t, "update replicasets/status web", "update replicasets web", "create pods web-", "create pods web-", "create pods web-")
}

// recordingT captures what ExpectActions reports.
type recordingT struct {
	testing.TB
	failures []string
}

func (r *recordingT) Helper() {}
func (r *recordingT) Errorf(format string, args ...any) {
	r.failures = append(r.failures, format)
}

func TestExpectActionsFailsOnExtraMissingAndReorderedWrites(t *testing.T) {
	s := New(t)
	ctx := context.Background()
	write := func(names ...string) {
		for _, name := range names {
			cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}}
			if _, err := s.Client().ConfigMaps("default").Create(ctx, cm, client.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name    string
		written []string
		want    []string
		fails   bool
	}{
		{"exact", []string{"a", "b"}, []string{"create configmaps a", "create configmaps b"}, false},
		{"extra write", []string{"c", "d"}, []string{"create configmaps c"}, true},
		{"missing write", []string{"e"}, []string{"create configmaps e", "create configmaps f"}, true},
		{"reordered", []string{"g", "h"}, []string{"create configmaps h", "create configmaps g"}, true},
		{"nothing expected, nothing written", nil, nil, false},
		{"nothing expected, one written", []string{"i"}, nil, true},
		{"a group in any order", []string{"j", "l", "k", "m"},
			[]string{"create configmaps j", InAnyOrder("create configmaps k", "create configmaps l"), "create configmaps m"}, false},
		{"a group does not reorder what follows it", []string{"n", "o", "p"},
			[]string{InAnyOrder("create configmaps n", "create configmaps p"), "create configmaps o"}, true},
		{"a group missing a write", []string{"q"},
			[]string{InAnyOrder("create configmaps q", "create configmaps r")}, true},
		{"an empty group is no write", nil, []string{InAnyOrder()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(tc.written...)
			rec := &recordingT{TB: t}
			s.ExpectActions(rec, tc.want...)
			if failed := len(rec.failures) > 0; failed != tc.fails {
				t.Errorf("ExpectActions failed = %v, want %v", failed, tc.fails)
			}
		})
	}
}

func TestActionNames(t *testing.T) {
	for _, tc := range []struct {
		action Action
		want   string
	}{
		{Action{Verb: VerbCreate, Resource: "replicasets", Name: "web-5d4f8c7b9"}, "create replicasets web-5d4f8c7b9"},
		{Action{Verb: VerbUpdate, Resource: "deployments", Subresource: "status", Name: "web"}, "update deployments/status web"},
		{Action{Verb: VerbDeleteCollection, Resource: "pods"}, "deletecollection pods"},
	} {
		if got := tc.action.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
	s := New(t)
	ns := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "ns1", ResourceVersion: "1"}, Spec: api.NamespaceSpec{Finalizers: []string{"kubernetes"}}}
	s.Add(t, ns)
	ns.Spec.Finalizers = nil
	body, _ := json.Marshal(ns)
	if code, _, err := s.Client().Do(context.Background(), "PUT", "/api/v1/namespaces/ns1/finalize", body, nil); err != nil || code != 200 {
		t.Fatalf("finalize = %d, %v", code, err)
	}
	s.ExpectActions(t, "update namespaces/finalize ns1")
	if got := s.Actions()[0].String(); !strings.HasPrefix(got, "update namespaces/finalize") {
		t.Errorf("action = %q", got)
	}
}

func TestPutFillsTheServerAndTheCaches(t *testing.T) {
	s := New(t)
	pods := s.Informers().Pods() // the controller under test asks for its informers first
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web-1", Namespace: "default", ResourceVersion: "4"}}
	s.Put(t, pod)
	if _, err := pods.Lister().Namespace("default").Get("web-1"); err != nil {
		t.Errorf("cache after Put: %v", err)
	}
	if _, ok := Get[*api.Pod](t, s, "default", "web-1"); !ok {
		t.Error("server after Put: no web-1")
	}
	newer := api.DeepCopy(pod)
	newer.ResourceVersion = "5"
	s.Add(t, newer) // the apiserver moved on; the cache has not seen it
	cached, _ := pods.Lister().Namespace("default").Get("web-1")
	if cached.ResourceVersion != "4" {
		t.Errorf("cached resourceVersion = %s, want the stale 4", cached.ResourceVersion)
	}
	s.Uncache(t, pod)
	if _, err := pods.Lister().Namespace("default").Get("web-1"); !apierrors.IsNotFound(err) {
		t.Errorf("cache after Uncache: %v, want NotFound", err)
	}
	s.ExpectActions(t) // none of this is a write
}

func TestListReturnsTheStoredObjectsOfAKindSorted(t *testing.T) {
	s := New(t)
	elsewhere := replicaSet("web", 1)
	elsewhere.Namespace = "prod"
	s.Add(t, replicaSet("web", 1), replicaSet("api", 2), elsewhere,
		&api.Node{ObjectMeta: api.ObjectMeta{Name: "node1"}})
	var names []string
	for _, rs := range List[*api.ReplicaSet](t, s, "default") {
		names = append(names, rs.Namespace+"/"+rs.Name)
	}
	if want := []string{"default/api", "default/web"}; !slices.Equal(names, want) {
		t.Errorf("List in default = %v, want %v", names, want)
	}
	if all := List[*api.ReplicaSet](t, s, ""); len(all) != 3 {
		t.Errorf("List across namespaces = %d replicasets, want 3", len(all))
	}
	if nodes := List[*api.Node](t, s, ""); len(nodes) != 1 || nodes[0].Name != "node1" {
		t.Errorf("List of nodes = %v", nodes)
	}
	s.ExpectActions(t) // List reads the store; it sends no request
	if len(s.Actions()) != 0 {
		t.Errorf("List recorded requests: %v", s.Actions())
	}
}

// A namespace is held by its spec.finalizers as well as its
// metadata.finalizers: marked for deletion it outlives status writes, and
// goes when /finalize removes the last one.
func TestNamespaceSpecFinalizersHoldItUntilFinalized(t *testing.T) {
	s := New(t, WithClock(clock.NewFake(now)))
	ctx := context.Background()
	ns := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "shop", ResourceVersion: "1"},
		Spec: api.NamespaceSpec{Finalizers: []string{api.FinalizerKubernetes}}}
	s.Add(t, ns)
	if err := s.Client().Namespaces().Delete(ctx, "shop", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	marked, ok := Get[*api.Namespace](t, s, "", "shop")
	if !ok || marked.DeletionTimestamp == nil {
		t.Fatalf("namespace after delete = %+v, %v; want kept and marked", marked, ok)
	}
	marked.Status.Phase = api.NamespaceTerminating
	updated, err := s.Client().Namespaces().UpdateStatus(ctx, marked, client.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := Get[*api.Namespace](t, s, "", "shop"); !ok {
		t.Fatal("a status write deleted the namespace its spec.finalizers still hold")
	}
	updated.Spec.Finalizers = nil
	body, _ := json.Marshal(updated)
	if _, _, err := s.Client().Do(ctx, "PUT", "/api/v1/namespaces/shop/finalize", body, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get[*api.Namespace](t, s, "", "shop"); ok {
		t.Error("the namespace is still stored after its last finalizer went")
	}
	s.ExpectActions(t, "delete namespaces shop", "update namespaces/status shop", "update namespaces/finalize shop")
}

// A delete's propagation policy adds the garbage collector's finalizer, so
// the object is only marked: Foreground adds foregroundDeletion, Orphan
// adds orphan; Background removes it at once.
func TestDeletePropagationPolicyAddsTheCollectorsFinalizer(t *testing.T) {
	s := New(t)
	s.Add(t, replicaSet("fg", 1), replicaSet("orphaned", 1), replicaSet("bg", 1))
	ctx := context.Background()
	for name, policy := range map[string]api.DeletionPropagation{
		"fg": api.DeletePropagationForeground, "orphaned": api.DeletePropagationOrphan, "bg": api.DeletePropagationBackground,
	} {
		if err := s.Client().ReplicaSets("default").Delete(ctx, name, client.DeleteOptions{PropagationPolicy: &policy}); err != nil {
			t.Fatalf("delete %s (%s): %v", name, policy, err)
		}
	}
	for name, want := range map[string]string{"fg": api.FinalizerDeleteDependents, "orphaned": api.FinalizerOrphanDependents} {
		rs, ok := Get[*api.ReplicaSet](t, s, "default", name)
		if !ok || rs.DeletionTimestamp == nil || !slices.Equal(rs.Finalizers, []string{want}) {
			t.Errorf("%s after delete = %+v (stored %v); want marked with the finalizer %s", name, rs, ok, want)
		}
	}
	if _, ok := Get[*api.ReplicaSet](t, s, "default", "bg"); ok {
		t.Error("bg is still stored after a Background delete")
	}
}
