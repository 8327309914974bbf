package cache

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// podValue is roughly the size of a small pod's JSON.
var podValue = []byte(fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"x"},"spec":%q}`, make([]byte, 900)))

// startBenchCache returns a ready cache over n pods spread over 10 namespaces.
func startBenchCache(b *testing.B, n int) (*fakeStore, *Cache, func()) {
	b.Helper()
	s := newFakeStore()
	for i := range n {
		if _, err := s.Create(context.Background(), fmt.Sprintf("/registry/pods/ns%d/pod-%05d", i%10, i), podValue); err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := New(s, "/registry/pods/", decodeTestObject, quiet(Options{}))
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	<-c.Ready()
	return s, c, func() { cancel(); <-done }
}

// BenchmarkList measures W4's server-side part: a LIST of every pod served
// from memory, either at a known revision or as a consistent read (which
// also asks the store for its current revision).
func BenchmarkList(b *testing.B) {
	for _, n := range []int{2000, 10000} {
		for _, consistent := range []bool{false, true} {
			name := fmt.Sprintf("objects=%d/consistent=%v", n, consistent)
			b.Run(name, func(b *testing.B) {
				_, c, stop := startBenchCache(b, n)
				defer stop()
				ctx := context.Background()
				minRevision := c.Revision()
				if consistent {
					minRevision = 0
				}
				b.ReportAllocs()
				for b.Loop() {
					entries, _, err := c.List(ctx, "/registry/pods/", minRevision)
					if err != nil || len(entries) != n {
						b.Fatalf("List = %d entries, %v", len(entries), err)
					}
				}
			})
		}
	}
}

// BenchmarkListNamespace lists one namespace (1/10 of the objects).
func BenchmarkListNamespace(b *testing.B) {
	_, c, stop := startBenchCache(b, 10000)
	defer stop()
	ctx := context.Background()
	rev := c.Revision()
	b.ReportAllocs()
	for b.Loop() {
		entries, _, err := c.List(ctx, "/registry/pods/ns3/", rev)
		if err != nil || len(entries) != 1000 {
			b.Fatalf("List = %d entries, %v", len(entries), err)
		}
	}
}

// BenchmarkFanOut measures W5's cache part: from a create returning in the
// store to its ADDED event reaching every open watcher, one write at a time.
// It includes the fake store's own asynchronous delivery, as etcd's would
// be. Each iteration then deletes the key again (and waits for that event
// too) so the data set stays at 1 000 objects: ns/op covers both writes,
// the p50 and p99 metrics only the create.
func BenchmarkFanOut(b *testing.B) {
	for _, watchers := range []int{1, 100} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) {
			s, c, stop := startBenchCache(b, 1000)
			defer stop()
			received := make(chan struct{}, watchers)
			for range watchers {
				w := mustWatchB(b, c)
				defer w.Stop()
				go func() {
					for range w.ResultChan() {
						received <- struct{}{}
					}
				}()
			}
			ctx := context.Background()
			var latencies []time.Duration
			for b.Loop() {
				began := time.Now()
				if _, err := s.Create(ctx, "/registry/pods/ns1/new", podValue); err != nil {
					b.Fatal(err)
				}
				for range watchers {
					<-received
				}
				latencies = append(latencies, time.Since(began))
				if _, err := s.Delete(ctx, "/registry/pods/ns1/new", 0); err != nil {
					b.Fatal(err)
				}
				for range watchers {
					<-received
				}
			}
			slices.Sort(latencies)
			b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds()), "p99-µs")
		})
	}
}

func mustWatchB(b *testing.B, c *Cache) Watcher {
	w, err := c.Watch(context.Background(), "/registry/pods/", 0, false)
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkSnapshotInsert is the price of the sorted slice: creating (and
// deleting) a key in the middle of 10 000 entries shifts the tail.
func BenchmarkSnapshotInsert(b *testing.B) {
	entries := make([]Entry, 10000)
	for i := range entries {
		entries[i] = Entry{Key: fmt.Sprintf("/registry/pods/ns%d/pod-%05d", i%10, i)}
	}
	s := newSnapshot(entries)
	for b.Loop() {
		s.put(Entry{Key: "/registry/pods/ns5/pod-new"})
		s.remove("/registry/pods/ns5/pod-new")
	}
}
