package informer

import (
	"context"
	"slices"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// onMine is a FilterListWatch predicate: pods bound to node "mine".
func onMine(obj api.Object) bool {
	pod, ok := obj.(*api.Pod)
	return ok && pod.Spec.NodeName == "mine"
}

func boundPod(name, node string) *api.Pod {
	p := fixturePod("ns", name)
	p.Spec.NodeName = node
	return p
}

// TestFilterListWatchKeepsOnlyAcceptedObjects: a list returns only the
// accepted objects at the list's resourceVersion; a watch forwards the
// accepted changes and every bookmark, in order, and drops the rest.
func TestFilterListWatchKeepsOnlyAcceptedObjects(t *testing.T) {
	fake := newFakeListWatch()
	fake.create(boundPod("a", "mine"))
	fake.create(boundPod("b", "other"))
	fake.create(boundPod("c", "mine"))
	lw := FilterListWatch(fake, onMine)
	ctx := context.Background()

	objects, rv, err := lw.List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range objects {
		names = append(names, o.GetObjectMeta().Name)
	}
	if !slices.Equal(names, []string{"a", "c"}) || rv != "3" {
		t.Fatalf("list = %v at %q, want [a c] at \"3\"", names, rv)
	}

	w, err := lw.Watch(ctx, client.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	fake.create(boundPod("d", "other"))
	fake.update(boundPod("a", "mine"))
	fake.update(boundPod("b", "other"))
	bookmarkRV := fake.bookmark(&api.Pod{})
	fake.remove(boundPod("c", "mine"))
	fake.remove(boundPod("d", "other"))

	want := []string{"MODIFIED a", "BOOKMARK " + bookmarkRV, "DELETED c"}
	var got []string
	timeout := time.After(10 * time.Second)
	for len(got) < len(want) {
		select {
		case ev := <-w.ResultChan():
			if ev.Type == client.Bookmark {
				got = append(got, "BOOKMARK "+ev.Object.GetObjectMeta().ResourceVersion)
			} else {
				got = append(got, string(ev.Type)+" "+ev.Object.GetObjectMeta().Name)
			}
		case <-timeout:
			t.Fatalf("events so far %v, want %v", got, want)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
}

// TestFilterListWatchStopEndsTheInnerWatch: Stop closes the result channel
// and the inner watch, even while an event waits to be read.
func TestFilterListWatchStopEndsTheInnerWatch(t *testing.T) {
	fake := newFakeListWatch()
	w, err := FilterListWatch(fake, onMine).Watch(context.Background(), client.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	fake.create(boundPod("a", "mine")) // nobody reads it
	w.Stop()
	for range w.ResultChan() {
	}
	w.Stop() // a second Stop is harmless
}

// TestInformerWithObjectFilterCachesOnlyAcceptedObjects: a factory with
// WithObjectFilter hands its informers the filtered ListerWatcher, so
// their caches and handlers see only the accepted objects.
func TestInformerWithObjectFilterCachesOnlyAcceptedObjects(t *testing.T) {
	fake := newFakeListWatch()
	fake.create(boundPod("a", "mine"))
	fake.create(boundPod("b", "other"))
	inf := newPodInformer(FilterListWatch(fake, onMine), 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.Run(ctx)
	if !WaitForCacheSync(ctx, inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	fake.create(boundPod("c", "other"))
	fake.create(boundPod("d", "mine"))
	deadline := time.Now().Add(10 * time.Second)
	for len(inf.GetIndexer().ListKeys()) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	keys := inf.GetIndexer().ListKeys()
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"ns/a", "ns/d"}) {
		t.Fatalf("cached %v, want [ns/a ns/d]", keys)
	}
}
