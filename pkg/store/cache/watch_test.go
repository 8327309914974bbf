package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"kplane/pkg/store"
)

func TestWatchFromNowSeesAddModifyDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		mustCreate(t, s, "/registry/pods/ns1/old", "old")
		c, stop := startCache(t, s, "/registry/pods/", Options{})
		defer stop()
		w := mustWatch(t, c, "/registry/pods/", 0, false)
		defer w.Stop()

		created := mustCreate(t, s, "/registry/pods/ns1/a", "v1")
		updated := mustUpdate(t, s, "/registry/pods/ns1/a", "v2")
		deleted := mustDelete(t, s, "/registry/pods/ns1/a")

		added := next(t, w)
		modified := next(t, w)
		gone := next(t, w)
		got := summarize([]Event{added, modified, gone})
		want := []summary{
			{store.Added, "/registry/pods/ns1/a", created, "v1"},
			{store.Modified, "/registry/pods/ns1/a", updated, "v2"},
			{store.Deleted, "/registry/pods/ns1/a", deleted, "v2"},
		}
		if !slices.Equal(got, want) {
			t.Fatalf("events = %v, want %v", got, want)
		}
		if added.PrevObject != nil {
			t.Errorf("ADDED has a PrevObject: %v", added.PrevObject)
		}
		if prev := modified.PrevObject.(testObject); prev.Value != "v1" || prev.ResourceVersion != created {
			t.Errorf("MODIFIED PrevObject = %+v, want v1 at %d", prev, created)
		}
		// A deleted object carries its last state with the delete's revision.
		if obj := gone.Object.(testObject); obj.ResourceVersion != deleted {
			t.Errorf("DELETED Object resourceVersion = %d, want the delete's %d", obj.ResourceVersion, deleted)
		}
		if prev := gone.PrevObject.(testObject); prev.ResourceVersion != updated {
			t.Errorf("DELETED PrevObject resourceVersion = %d, want %d", prev.ResourceVersion, updated)
		}
	})
}

func TestWatchFromAnOldRevisionReplaysExactlyTheMissingEvents(t *testing.T) {
	// A fresh store is at revision 1. Revisions 2..7 alternate between ns1
	// and ns2 (2: ns1/k2, 3: ns2/k3, …). Each case watches from some
	// revision; it must get exactly the later events under its prefix, in
	// order, then a live event (revision 8 on ns1/, 9 on ns2/).
	tests := []struct {
		prefix string
		after  int64
		want   []int64
	}{
		{"/registry/pods/", 3, []int64{4, 5, 6, 7, 8, 9}},
		{"/registry/pods/", 7, []int64{8, 9}},
		{"/registry/pods/ns1/", 2, []int64{4, 6, 8}},
		{"/registry/pods/ns2/", 4, []int64{5, 7, 9}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s after %d", tt.prefix, tt.after), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newFakeStore()
				c, stop := startCache(t, s, "/registry/pods/", Options{})
				defer stop()
				for rev := 2; rev <= 7; rev++ {
					ns := 1 + rev%2 // even revisions in ns1, odd in ns2
					if got := mustCreate(t, s, fmt.Sprintf("/registry/pods/ns%d/k%d", ns, rev), "v"); got != int64(rev) {
						t.Fatalf("write got revision %d, want %d", got, rev)
					}
				}
				if _, _, err := c.List(context.Background(), "/registry/pods/", 0); err != nil {
					t.Fatal(err) // the cache has now seen all six
				}

				w := mustWatch(t, c, tt.prefix, tt.after, false)
				defer w.Stop()
				mustCreate(t, s, "/registry/pods/ns1/live", "v")
				mustCreate(t, s, "/registry/pods/ns2/live", "v")
				var got []int64
				for range tt.want {
					got = append(got, next(t, w).Revision)
				}
				if !slices.Equal(got, tt.want) {
					t.Fatalf("revisions = %v, want %v", got, tt.want)
				}
				if _, calls := s.counts(); len(calls) != 1 {
					t.Errorf("store watches = %v, want only the cache's own", calls)
				}
			})
		})
	}
}

func TestWatchOlderThanTheHistoryFallsBackToTheStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		c, stop := startCache(t, s, "/registry/pods/", Options{EventBufferSize: 3})
		defer stop()
		a1 := mustCreate(t, s, "/registry/pods/ns1/a", "a1")
		a2 := mustUpdate(t, s, "/registry/pods/ns1/a", "a2")
		b1 := mustCreate(t, s, "/registry/pods/ns1/b", "b1")
		mustCreate(t, s, "/registry/pods/ns2/c", "c1")
		bGone := mustDelete(t, s, "/registry/pods/ns1/b")
		if _, _, err := c.List(context.Background(), "/registry/pods/", 0); err != nil {
			t.Fatal(err)
		}
		if c.history.covers(a1) { // white-box: the ring holds the last 3 only
			t.Fatalf("history still covers revision %d; the test needs it evicted", a1)
		}

		w := mustWatch(t, c, "/registry/pods/ns1/", a1, false)
		defer w.Stop()
		live := mustCreate(t, s, "/registry/pods/ns1/d", "d1")
		var got []summary
		var evs []Event
		for range 4 {
			ev := next(t, w)
			evs = append(evs, ev)
		}
		got = summarize(evs)
		want := []summary{
			{store.Modified, "/registry/pods/ns1/a", a2, "a2"},
			{store.Added, "/registry/pods/ns1/b", b1, "b1"},
			{store.Deleted, "/registry/pods/ns1/b", bGone, "b1"},
			{store.Added, "/registry/pods/ns1/d", live, "d1"},
		}
		if !slices.Equal(got, want) {
			t.Fatalf("events = %v, want %v", got, want)
		}
		if prev, _ := evs[0].PrevObject.(testObject); prev.Value != "a1" {
			t.Errorf("PrevObject from the store = %+v, want a1", evs[0].PrevObject)
		}
		if _, calls := s.counts(); !slices.Contains(calls, a1) {
			t.Errorf("store watches = %v, want one from revision %d", calls, a1)
		}
	})
}

func TestWatchFromACompactedRevisionIsGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		c, stop := startCache(t, s, "/registry/pods/", Options{EventBufferSize: 2})
		defer stop()
		for i := range 6 {
			mustCreate(t, s, fmt.Sprintf("/registry/pods/ns1/k%d", i), "v")
		}
		if err := s.Compact(context.Background(), 5); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.List(context.Background(), "/registry/pods/", 0); err != nil {
			t.Fatal(err)
		}
		_, err := c.Watch(context.Background(), "/registry/pods/", 2, false)
		if !errors.Is(err, store.ErrGone) {
			t.Fatalf("Watch from a compacted revision: error = %v, want ErrGone", err)
		}
	})
}

func TestWatchAheadOfTheCacheWaitsForIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		c, stop := startCache(t, s, "/registry/pods/", Options{FreshnessTimeout: 3 * time.Second})
		defer stop()

		base := c.Revision()
		go func() {
			time.Sleep(time.Second)
			mustCreate(t, s, "/registry/pods/ns1/a", "a") // base+1
			mustCreate(t, s, "/registry/pods/ns1/b", "b") // base+2
		}()
		w := mustWatch(t, c, "/registry/pods/", base+1, false)
		defer w.Stop()
		if ev := next(t, w); ev.Revision != base+2 {
			t.Fatalf("first event = %+v, want revision %d", summarize([]Event{ev}), base+2)
		}

		if _, err := c.Watch(context.Background(), "/registry/pods/", 50, false); !errors.Is(err, ErrTooLargeRevision) {
			t.Fatalf("Watch far ahead: error = %v, want ErrTooLargeRevision", err)
		}
	})
}

func TestWatchPrefixesAreIsolated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		c, stop := startCache(t, s, "/registry/pods/", Options{})
		defer stop()
		ns1 := mustWatch(t, c, "/registry/pods/ns1/", 0, false)
		defer ns1.Stop()
		ns10 := mustWatch(t, c, "/registry/pods/ns10/", 0, false)
		defer ns10.Stop()

		mustCreate(t, s, "/registry/pods/ns10/a", "x")
		mustCreate(t, s, "/registry/pods/ns1/a", "y")
		mustCreate(t, s, "/registry/pods/ns100/a", "z")
		mustCreate(t, s, "/registry/pods/ns10/b", "w")

		if got := next(t, ns1); got.Key != "/registry/pods/ns1/a" {
			t.Errorf("ns1 watcher got %s first", got.Key)
		}
		for _, want := range []string{"/registry/pods/ns10/a", "/registry/pods/ns10/b"} {
			if got := next(t, ns10); got.Key != want {
				t.Errorf("ns10 watcher got %s, want %s", got.Key, want)
			}
		}
		// Nothing else is queued for ns1: its next event is the next ns1 write.
		mustCreate(t, s, "/registry/pods/ns1/z", "v")
		if got := next(t, ns1); got.Key != "/registry/pods/ns1/z" {
			t.Errorf("ns1 watcher got %s, want ns1/z", got.Key)
		}
		entries, _, err := c.List(context.Background(), "/registry/pods/ns1/", 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"/registry/pods/ns1/a", "/registry/pods/ns1/z"}; !slices.Equal(keysOf(entries), want) {
			t.Errorf("List(ns1/) = %v, want %v", keysOf(entries), want)
		}
	})
}

func TestSlowWatcherIsDroppedWithoutStallingOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		c, stop := startCache(t, s, "/registry/pods/", Options{WatcherBufferSize: 2})
		defer stop()
		slow := mustWatch(t, c, "/registry/pods/", 0, false) // never read until the end
		defer slow.Stop()
		fast := mustWatch(t, c, "/registry/pods/", 0, false)
		defer fast.Stop()

		const writes = 20
		base := c.Revision()
		var fastGot []int64
		readerDone := make(chan struct{})
		go func() {
			defer close(readerDone)
			for range writes {
				fastGot = append(fastGot, next(t, fast).Revision)
			}
		}()
		for i := range writes {
			mustCreate(t, s, fmt.Sprintf("/registry/pods/ns1/k%02d", i), "v")
		}
		<-readerDone
		want := make([]int64, writes)
		for i := range want {
			want[i] = base + int64(i+1)
		}
		if !slices.Equal(fastGot, want) {
			t.Fatalf("fast watcher got %v, want every revision %v", fastGot, want)
		}

		// The slow one got a gap-free beginning, then its channel closed
		// without an error: its client re-watches from the last revision.
		got := expectClosed(t, slow)
		if len(got) == 0 || len(got) >= writes {
			t.Fatalf("slow watcher got %d events, want some but not all", len(got))
		}
		for i, ev := range got {
			if ev.Type != store.Added || ev.Revision != want[i] {
				t.Fatalf("slow watcher event %d = %+v, want ADDED at revision %d", i, summarize([]Event{ev}), want[i])
			}
		}
		c.mu.RLock()
		defer c.mu.RUnlock()
		if _, ok := c.watchers[slow.(*cacheWatcher).id]; ok {
			t.Errorf("the dropped watcher is still registered")
		}
	})
}

func TestBookmarksArriveOnlyWhenRequested(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		c, stop := startCache(t, s, "/registry/pods/", Options{BookmarkInterval: time.Second})
		defer stop()
		with := mustWatch(t, c, "/registry/pods/ns1/", 0, true)
		defer with.Stop()
		without := mustWatch(t, c, "/registry/pods/ns1/", 0, false)
		defer without.Stop()

		// A write outside ns1/ moves the revision: only the watcher that
		// asked is told, with a bookmark at that revision.
		other := mustCreate(t, s, "/registry/pods/ns2/a", "v")
		if ev := next(t, with); ev.Type != store.Bookmark || ev.Revision != other {
			t.Fatalf("got %+v, want a bookmark at %d", summarize([]Event{ev}), other)
		}
		// A write even further away (another resource) is learned through a
		// progress notification and bookmarked too.
		elsewhere := mustCreate(t, s, "/registry/leases/l", "v")
		if ev := next(t, with); ev.Type != store.Bookmark || ev.Revision != elsewhere {
			t.Fatalf("got %+v, want a bookmark at %d", summarize([]Event{ev}), elsewhere)
		}
		mine := mustCreate(t, s, "/registry/pods/ns1/a", "v")
		for name, w := range map[string]Watcher{"with bookmarks": with, "without bookmarks": without} {
			if ev := next(t, w); ev.Type != store.Added || ev.Revision != mine {
				t.Errorf("%s: got %+v, want ADDED at %d", name, summarize([]Event{ev}), mine)
			}
		}
	})
}

func TestStoreBackedWatchSendsBookmarks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		c, stop := startCache(t, s, "/registry/pods/", Options{EventBufferSize: 1})
		defer stop()
		a := mustCreate(t, s, "/registry/pods/ns1/a", "v")
		b := mustCreate(t, s, "/registry/pods/ns1/b", "v")
		mustCreate(t, s, "/registry/pods/ns2/c", "v")
		if _, _, err := c.List(context.Background(), "/registry/pods/", 0); err != nil {
			t.Fatal(err)
		}
		w := mustWatch(t, c, "/registry/pods/ns1/", a, true) // older than the one-event history
		defer w.Stop()
		if ev := next(t, w); ev.Revision != b {
			t.Fatalf("got %+v, want the event at %d", summarize([]Event{ev}), b)
		}
		elsewhere := mustCreate(t, s, "/registry/leases/l", "v")
		if ev := next(t, w); ev.Type != store.Bookmark || ev.Revision != elsewhere {
			t.Fatalf("got %+v, want a bookmark at %d", summarize([]Event{ev}), elsewhere)
		}
	})
}

func TestStopAndContextCancelReleaseEverything(t *testing.T) {
	// synctest.Test fails if any goroutine the cache started is still around
	// when the test returns: that is the leak check.
	synctest.Test(t, func(t *testing.T) {
		s := newFakeStore()
		c, stop := startCache(t, s, "/registry/pods/", Options{EventBufferSize: 1})
		a := mustCreate(t, s, "/registry/pods/ns1/a", "v")
		mustCreate(t, s, "/registry/pods/ns1/b", "v")
		if _, _, err := c.List(context.Background(), "/registry/pods/", 0); err != nil {
			t.Fatal(err)
		}

		stopped := mustWatch(t, c, "/registry/pods/", 0, true)
		ctx, cancel := context.WithCancel(context.Background())
		cancelled, err := c.Watch(ctx, "/registry/pods/", 0, false)
		if err != nil {
			t.Fatal(err)
		}
		storeCtx, storeCancel := context.WithCancel(context.Background())
		fromStore, err := c.Watch(storeCtx, "/registry/pods/", a-1, true) // store-backed
		if err != nil {
			t.Fatal(err)
		}
		unread := mustWatch(t, c, "/registry/pods/", 0, false) // ended by the cache's stop
		unreadFromStore := mustWatch(t, c, "/registry/pods/", a-1, false)
		mustCreate(t, s, "/registry/pods/ns1/c", "v")
		synctest.Wait() // the event has reached every watcher's buffer

		stopped.Stop()
		stopped.Stop() // twice is fine
		if got := expectClosed(t, stopped); len(got) > 1 {
			t.Errorf("stopped watcher delivered %v after Stop returned", summarize(got))
		}
		cancel()
		storeCancel()
		expectClosed(t, cancelled)
		expectClosed(t, fromStore)
		stop()
		if got := expectClosed(t, unread); len(got) != 1 {
			t.Errorf("watcher open at shutdown got %v, want its one buffered event and no error", summarize(got))
		}
		expectClosed(t, unreadFromStore)
		synctest.Wait()
		if n := s.openWatches(); n != 0 {
			t.Errorf("%d store watches still open", n)
		}
		if len(c.watchers) != 0 || len(c.storeWatchers) != 0 {
			t.Errorf("%d watchers and %d store watchers still registered", len(c.watchers), len(c.storeWatchers))
		}
	})
}
