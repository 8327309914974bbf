package apiserver_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
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
	// Fewer writers than guaranteedUpdate has retries: each round of
	// conflicts lets at least one through.
	const writers = 6
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
