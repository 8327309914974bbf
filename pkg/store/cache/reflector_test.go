package cache

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"

	"kplane/pkg/store"
)

func TestRunRelistsAfterErrGoneAndEndsLiveWatchers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		mustCreate(t, s, "/registry/pods/ns1/a", "a")
		c, stop := startCache(t, s, "/registry/pods/", Options{})
		defer stop()
		w := mustWatch(t, c, "/registry/pods/", 0, false)
		defer w.Stop()
		synctest.Wait() // the cache's own store watch is open

		// The cache's watch fell behind a compaction; the writes made
		// meanwhile never reach it through that watch.
		s.breakWatches(store.ErrGone)
		mustCreate(t, s, "/registry/pods/ns1/b", "b")
		mustUpdate(t, s, "/registry/pods/ns1/a", "a2")

		got := expectClosed(t, w)
		if len(got) == 0 || got[len(got)-1].Type != store.Error || !errors.Is(got[len(got)-1].Err, store.ErrGone) {
			t.Fatalf("live watcher got %v, want to end with an Error wrapping ErrGone", summarize(got))
		}
		entries, _, err := c.List(context.Background(), "/registry/pods/", 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"/registry/pods/ns1/a", "/registry/pods/ns1/b"}; !slices.Equal(keysOf(entries), want) {
			t.Fatalf("after re-list: keys = %v, want %v", keysOf(entries), want)
		}
		if v := entries[0].Object.(testObject).Value; v != "a2" {
			t.Errorf("after re-list: a = %q, want a2", v)
		}
		if lists, _ := s.counts(); lists != 2 {
			t.Errorf("store lists = %d, want 2 (initial and re-list)", lists)
		}

		// The cache serves new watches after the re-list.
		w2 := mustWatch(t, c, "/registry/pods/", 0, false)
		defer w2.Stop()
		rev := mustCreate(t, s, "/registry/pods/ns1/c", "c")
		if ev := next(t, w2); ev.Revision != rev {
			t.Errorf("new watcher got %+v, want the event at %d", summarize([]Event{ev}), rev)
		}
	})
}

func TestRunResumesABrokenWatchWithoutRelisting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		first := mustCreate(t, s, "/registry/pods/ns1/a", "a")
		c, stop := startCache(t, s, "/registry/pods/", Options{})
		defer stop()
		w := mustWatch(t, c, "/registry/pods/", 0, false)
		defer w.Stop()
		synctest.Wait() // the cache's own store watch is open

		s.breakWatches(errors.New("connection reset"))
		b := mustCreate(t, s, "/registry/pods/ns1/b", "b")
		a2 := mustUpdate(t, s, "/registry/pods/ns1/a", "a2")

		// Watchers notice nothing: the cache resumed from its revision.
		got := []int64{next(t, w).Revision, next(t, w).Revision}
		if !slices.Equal(got, []int64{b, a2}) {
			t.Fatalf("watcher got revisions %v, want %v", got, []int64{b, a2})
		}
		lists, watches := s.counts()
		if lists != 1 {
			t.Errorf("store lists = %d, want 1", lists)
		}
		if !slices.Equal(watches, []int64{first, first}) {
			t.Errorf("store watches from %v, want [%d %d] (resumed where it stopped)", watches, first, first)
		}
	})
}

func TestRunReturnsWhenItsContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		ctx, cancel := context.WithCancel(context.Background())
		c := New(s, "/registry/pods/", decodeTestObject, quiet(Options{}))
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx) }()
		<-c.Ready()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
		synctest.Wait()
		if n := s.openWatches(); n != 0 {
			t.Errorf("%d store watches left open", n)
		}
	})
}
