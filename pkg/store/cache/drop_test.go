package cache

import (
	"context"
	"errors"
	"testing"

	"kplane/pkg/store"
)

// TestDropWatchesEndsEveryWatchAndForgetsHistory: DropWatches closes the
// watches served from memory and those relayed from the store, without an
// Error event (their clients resume), and afterwards a watch from a
// revision the cache used to replay goes to the store, which answers
// ErrGone once etcd has compacted it.
func TestDropWatchesEndsEveryWatchAndForgetsHistory(t *testing.T) {
	s := startEtcd(t)
	ctx := context.Background()
	beforeCache := mustCreate(t, s, "/registry/pods/ns1/a", "a")
	mustCreate(t, s, "/registry/pods/ns1/b", "b")
	c, stop := startCache(t, s, "/registry/pods/", Options{})
	defer stop()
	listed := c.Revision()
	mustUpdate(t, s, "/registry/pods/ns1/a", "a2")

	fromMemory := mustWatch(t, c, "/registry/pods/", listed, false)
	fromNow := mustWatch(t, c, "/registry/pods/ns1/", 0, true)
	fromStore := mustWatch(t, c, "/registry/pods/", beforeCache, false) // older than the history
	if ev := next(t, fromMemory); ev.Object.(testObject).Value != "a2" {
		t.Fatalf("replayed %+v, want the update to a2", ev)
	}

	dropped, err := c.DropWatches(ctx)
	if err != nil || dropped != 3 {
		t.Fatalf("DropWatches = %d, %v; want 3 watches dropped", dropped, err)
	}
	for name, w := range map[string]Watcher{"from memory": fromMemory, "from now": fromNow, "from the store": fromStore} {
		for _, ev := range expectClosed(t, w) {
			if ev.Type == store.Error {
				t.Errorf("watch %s ended with an Error event %v; a dropped watch just closes", name, ev.Err)
			}
		}
	}

	if _, err := s.(*store.EtcdStore).CompactToNow(ctx); err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(ctx, "/registry/pods/", listed, false)
	if err == nil {
		ev := next(t, w)
		err = ev.Err
	}
	if !errors.Is(err, store.ErrGone) {
		t.Fatalf("watch from %d after the drop and a compaction: %v, want ErrGone (not a replay from the forgotten history)", listed, err)
	}

	live := mustWatch(t, c, "/registry/pods/", 0, false)
	rev := mustCreate(t, s, "/registry/pods/ns1/c", "c")
	if ev := next(t, live); ev.Type != store.Added || ev.Revision != rev {
		t.Fatalf("a watch started after the drop got %+v, want ADDED c at %d", ev, rev)
	}
	live.Stop()
}
