package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// The tests below check what guaranteedUpdate promises although its first
// attempt starts from the watch cache's copy, which may lag behind etcd:
// each write is made right after another, so that the cache has often not
// seen the first yet, and the answer must be the one etcd's state gives.

// TestUpdatePinnedToTheLatestWriteIsAccepted: an update pinned to the
// resourceVersion the previous write just returned succeeds every time,
// even when the watch cache still holds the version before it.
func TestUpdatePinnedToTheLatestWriteIsAccepted(t *testing.T) {
	c := framework.StartAPIServer(t).Client(t, nil)
	ctx := context.Background()
	cm, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "pinned"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		cm.Data = map[string]string{"step": fmt.Sprint(i)}
		if cm, err = c.ConfigMaps("default").Update(ctx, cm, client.UpdateOptions{}); err != nil {
			t.Fatalf("update %d pinned to the previous write's resourceVersion: %v", i, err)
		}
	}
}

// TestUnchangedUpdateKeepsItsResourceVersion: an update that changes
// nothing writes nothing, even when the cache's copy is older and so looks
// different from the update.
func TestUnchangedUpdateKeepsItsResourceVersion(t *testing.T) {
	c := framework.StartAPIServer(t).Client(t, nil)
	ctx := context.Background()
	cm, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "same"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		cm.Data = map[string]string{"step": fmt.Sprint(i)}
		if cm, err = c.ConfigMaps("default").Update(ctx, cm, client.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		again, err := c.ConfigMaps("default").Update(ctx, cm, client.UpdateOptions{})
		if err != nil {
			t.Fatalf("step %d: the same update again: %v", i, err)
		}
		if again.ResourceVersion != cm.ResourceVersion {
			t.Fatalf("step %d: an update that changed nothing moved the resourceVersion from %s to %s", i, cm.ResourceVersion, again.ResourceVersion)
		}
	}
}

// TestConcurrentPatchesAreNotLost: unpinned patches from many clients at
// once, each adding its own label, all end up in the object: no write is
// made over a state some other write has replaced.
func TestConcurrentPatchesAreNotLost(t *testing.T) {
	c := framework.StartAPIServer(t).Client(t, nil)
	ctx := context.Background()
	if _, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "shared"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// More writers than one round of conflicts lets through at once:
	// guaranteedUpdate retries for as long as the request lives, as
	// upstream's does.
	const writers = 16
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			patch := fmt.Sprintf(`{"metadata":{"labels":{"writer-%d":"yes"}}}`, i)
			if _, err := c.ConfigMaps("default").Patch(ctx, "shared", client.MergePatchType, []byte(patch), client.PatchOptions{}); err != nil {
				errs <- fmt.Errorf("writer %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	cm, err := c.ConfigMaps("default").Get(ctx, "shared", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cm.Labels) != writers {
		t.Fatalf("%d of %d writers' labels survived: %v", len(cm.Labels), writers, cm.Labels)
	}
}

// TestSecondBindingIsAConflict: binding a pod that was bound an instant ago
// is refused, whether or not the cache has seen the first binding.
func TestSecondBindingIsAConflict(t *testing.T) {
	c := framework.StartAPIServer(t).Client(t, nil)
	ctx := context.Background()
	for i := range 20 {
		pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%d", i)},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
		if _, err := c.Pods("default").Create(ctx, pod, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		bind := func(node string) error {
			return c.Bind(ctx, &api.Binding{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: pod.Name},
				Target: api.ObjectReference{Kind: "Node", Name: node}})
		}
		if err := bind("node-a"); err != nil {
			t.Fatalf("pod %s: first binding: %v", pod.Name, err)
		}
		if err := bind("node-b"); !apierrors.IsConflict(err) {
			t.Fatalf("pod %s: second binding: %v, want a Conflict", pod.Name, err)
		}
		got, err := c.Pods("default").Get(ctx, pod.Name, client.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Spec.NodeName != "node-a" {
			t.Fatalf("pod %s is on %q, want node-a", pod.Name, got.Spec.NodeName)
		}
	}
}

// TestBindingResult: a binding answers 201 with a Success Status, moves the
// resourceVersion, sets nodeName and a True PodScheduled condition, and
// leaves everything else as it was (the pod's labels, spec and generation).
func TestBindingResult(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	created, err := c.Pods("default").Create(ctx, &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resp := a.Do(t, http.MethodPost, "/api/v1/namespaces/default/pods/web/binding",
		[]byte(`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"},"target":{"kind":"Node","name":"node-a"}}`))
	var status api.Status
	if err := json.Unmarshal(resp.Body, &status); err != nil || resp.Code != http.StatusCreated ||
		status.Kind != "Status" || status.Status != "Success" || status.Code != http.StatusCreated {
		t.Fatalf("binding answered %d %s", resp.Code, resp.Body)
	}
	got, err := c.Pods("default").Get(ctx, "web", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.NodeName != "node-a" || got.ResourceVersion == created.ResourceVersion {
		t.Fatalf("after the binding: nodeName %q, resourceVersion %s (was %s)", got.Spec.NodeName, got.ResourceVersion, created.ResourceVersion)
	}
	var scheduled []api.PodCondition
	for _, cond := range got.Status.Conditions {
		if cond.Type == api.PodScheduled {
			scheduled = append(scheduled, cond)
		}
	}
	if len(scheduled) != 1 || scheduled[0].Status != api.ConditionTrue || scheduled[0].LastTransitionTime.IsZero() {
		t.Fatalf("PodScheduled conditions %+v, want one True with a transition time", scheduled)
	}
	got.Spec.NodeName = ""
	if got.Labels["app"] != "web" || got.Generation != created.Generation ||
		!reflect.DeepEqual(got.Spec, created.Spec) {
		t.Fatalf("the binding changed more than nodeName: labels %v generation %d→%d spec %+v",
			got.Labels, created.Generation, got.Generation, got.Spec)
	}
}

// TestBindingLeavesTheCachedPodAlone: a binding starts from the watch
// cache's own pod, which every reader shares; it must write its change to
// a copy, leaving the cached pod as it was (no nodeName, no condition).
func TestBindingLeavesTheCachedPodAlone(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := c.Pods("default").Create(ctx, pod, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var cached *api.Pod
	deadline := time.Now().Add(10 * time.Second)
	for cached == nil {
		if obj, ok := apiserver.CachedObject(a.Server, "pods", "default", "web").(*api.Pod); ok {
			cached = obj
		} else if time.Now().After(deadline) {
			t.Fatal("the watch cache never held the pod")
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	before, err := json.Marshal(cached)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Bind(ctx, &api.Binding{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Target: api.ObjectReference{Kind: "Node", Name: "node-a"}}); err != nil {
		t.Fatal(err)
	}
	after, err := json.Marshal(cached)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Fatalf("the binding changed the cache's pod\nfrom %s\nto   %s", before, after)
	}
}
