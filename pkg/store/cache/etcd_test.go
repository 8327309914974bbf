package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"kplane/pkg/store"
)

// startEtcd starts an embedded etcd in a temp dir for the integration tests.
func startEtcd(tb testing.TB) store.Interface {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := store.StartEmbedded(ctx, tb.TempDir())
	if err != nil {
		tb.Fatalf("start embedded etcd: %v", err)
	}
	tb.Cleanup(func() {
		if err := e.Close(); err != nil {
			tb.Errorf("close embedded etcd: %v", err)
		}
	})
	return e.Store()
}

// TestCacheOnEmbeddedEtcd runs the cache's main promises against the real
// store: consistent lists (including after writes to another prefix, which
// needs etcd's progress notifications), watch events with the last state on
// delete, replay from memory, fallback to etcd, and ErrGone after compaction.
func TestCacheOnEmbeddedEtcd(t *testing.T) {
	s := startEtcd(t)
	ctx := context.Background()
	mustCreate(t, s, "/registry/pods/ns1/a", "a")
	mustCreate(t, s, "/registry/pods/ns10/b", "b")
	c, stop := startCache(t, s, "/registry/pods/", Options{EventBufferSize: 4, BookmarkInterval: 50 * time.Millisecond})
	defer stop()

	t.Run("consistent list after a create", func(t *testing.T) {
		mustCreate(t, s, "/registry/pods/ns1/c", "c")
		entries, _, err := c.List(ctx, "/registry/pods/ns1/", 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"/registry/pods/ns1/a", "/registry/pods/ns1/c"}; !slices.Equal(keysOf(entries), want) {
			t.Fatalf("keys = %v, want %v", keysOf(entries), want)
		}
	})

	t.Run("consistent list after a write to another prefix", func(t *testing.T) {
		other := mustCreate(t, s, "/registry/leases/l1", "l")
		_, rev, err := c.List(ctx, "/registry/pods/", 0)
		if err != nil {
			t.Fatal(err)
		}
		if rev < other {
			t.Fatalf("List revision %d, want >= %d (the lease write)", rev, other)
		}
	})

	t.Run("watch from now, delete carries the last state", func(t *testing.T) {
		w := mustWatch(t, c, "/registry/pods/ns1/", 0, false)
		defer w.Stop()
		mustCreate(t, s, "/registry/pods/ns10/ignored", "x") // another namespace
		created := mustCreate(t, s, "/registry/pods/ns1/d", "d1")
		updated := mustUpdate(t, s, "/registry/pods/ns1/d", "d2")
		deleted := mustDelete(t, s, "/registry/pods/ns1/d")
		got := summarize([]Event{next(t, w), next(t, w), next(t, w)})
		want := []summary{
			{store.Added, "/registry/pods/ns1/d", created, "d1"},
			{store.Modified, "/registry/pods/ns1/d", updated, "d2"},
			{store.Deleted, "/registry/pods/ns1/d", deleted, "d2"},
		}
		if !slices.Equal(got, want) {
			t.Fatalf("events = %v, want %v", got, want)
		}
	})

	t.Run("bookmarks", func(t *testing.T) {
		w := mustWatch(t, c, "/registry/pods/ns1/", 0, true)
		defer w.Stop()
		other := mustCreate(t, s, "/registry/leases/l2", "l")
		for {
			ev := next(t, w)
			if ev.Type != store.Bookmark {
				t.Fatalf("got %v, want only bookmarks", summarize([]Event{ev}))
			}
			if ev.Revision >= other {
				break
			}
		}
	})

	t.Run("replay from memory and from etcd", func(t *testing.T) {
		var revs []int64
		for i := range 6 {
			revs = append(revs, mustCreate(t, s, fmt.Sprintf("/registry/pods/ns2/k%d", i), "v"))
		}
		if _, _, err := c.List(ctx, "/registry/pods/", 0); err != nil {
			t.Fatal(err)
		}
		for _, after := range []int64{revs[4], revs[0]} { // in the 4-event history, then older
			w := mustWatch(t, c, "/registry/pods/ns2/", after, false)
			var got []int64
			for _, r := range revs {
				if r > after {
					got = append(got, next(t, w).Revision)
				}
			}
			w.Stop()
			if want := slices.DeleteFunc(slices.Clone(revs), func(r int64) bool { return r <= after }); !slices.Equal(got, want) {
				t.Errorf("watch from %d: revisions %v, want %v", after, got, want)
			}
		}
	})

	t.Run("compacted revision is gone", func(t *testing.T) {
		old := c.Revision()
		for i := range 6 {
			mustCreate(t, s, fmt.Sprintf("/registry/pods/ns3/k%d", i), "v")
		}
		current, err := s.CurrentRevision(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Compact(ctx, current); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.List(ctx, "/registry/pods/", 0); err != nil {
			t.Fatal(err)
		}
		w, err := c.Watch(ctx, "/registry/pods/", old, false)
		if err == nil {
			// etcd may report it on the watch instead of at once.
			ev := next(t, w)
			w.Stop()
			err = ev.Err
		}
		if !errors.Is(err, store.ErrGone) {
			t.Fatalf("watch from compacted revision %d: %v, want ErrGone", old, err)
		}
	})
}

// BenchmarkEtcdCreateToWatchEvent is W5 without HTTP: a create on the real
// embedded etcd until its ADDED event arrives, on a cache watcher and, for
// comparison, on a watch straight on the store.
func BenchmarkEtcdCreateToWatchEvent(b *testing.B) {
	s := startEtcd(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := New(s, "/registry/pods/", decodeTestObject, quiet(Options{}))
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	defer func() { cancel(); <-done }()
	<-c.Ready()

	b.Run("cache", func(b *testing.B) {
		w, err := c.Watch(ctx, "/registry/pods/", 0, false)
		if err != nil {
			b.Fatal(err)
		}
		defer w.Stop()
		measureCreateToEvent(b, s, "/registry/pods/cache/", func() store.EventType { return (<-w.ResultChan()).Type })
	})
	b.Run("store", func(b *testing.B) {
		w, err := s.Watch(ctx, "/registry/pods/", 0)
		if err != nil {
			b.Fatal(err)
		}
		defer w.Stop()
		measureCreateToEvent(b, s, "/registry/pods/store/", func() store.EventType { return (<-w.ResultChan()).Type })
	})
}

// benchKeys numbers the keys benchmarks create, unique across runs.
var benchKeys atomic.Int64

func measureCreateToEvent(b *testing.B, s store.Interface, prefix string, nextType func() store.EventType) {
	ctx := context.Background()
	var latencies []time.Duration
	for b.Loop() {
		began := time.Now()
		if _, err := s.Create(ctx, fmt.Sprintf("%sp%d", prefix, benchKeys.Add(1)), podValue); err != nil {
			b.Fatal(err)
		}
		if typ := nextType(); typ != store.Added {
			b.Fatalf("got %v, want ADDED", typ)
		}
		latencies = append(latencies, time.Since(began))
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds()), "p99-µs")
}
