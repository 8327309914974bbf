package informer

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"kplane/pkg/api"
)

// drainPops pops every queued item of f and describes each pop on one
// line: the key, then each delta as Type@rv ("~" marks a tombstone), e.g.
// "ns/a Added@1 Updated@3".
func drainPops(t *testing.T, f FIFO) []string {
	t.Helper()
	var pops []string
	for f.Len() > 0 {
		obj, err := f.Pop(func(any, bool) error { return nil })
		if err != nil {
			t.Fatalf("Pop: %v", err)
		}
		summaries := summarizeDeltas(t, obj.(Deltas))
		line := summaries[0].Key
		for _, s := range summaries {
			line += " " + string(s.Type) + "@" + s.RV
			if s.Tombstone {
				line += "~"
			}
		}
		pops = append(pops, line)
	}
	return pops
}

// TestFIFOsCompared runs the same producer calls against both FIFOs and
// lists what each hands out, pop by pop: the DeltaFIFO merges a key's
// changes into one item and drops a duplicate deletion; the RealFIFO keeps
// every event as an item of its own, in arrival order.
func TestFIFOsCompared(t *testing.T) {
	pod := func(name, rv string) *api.Pod { return fixturePod("ns", name, withRV(rv)) }
	tests := []struct {
		name string
		// cached is what the consumer's cache (KnownObjects) holds.
		cached  []api.Object
		produce func(t *testing.T, f FIFO)
		// wantDelta and wantReal are the pops, in order (see drainPops).
		wantDelta, wantReal []string
	}{
		{
			name: "a key updated while it waits",
			produce: func(t *testing.T, f FIFO) {
				mustSucceed(t, f.Add(pod("a", "1")))
				mustSucceed(t, f.Add(pod("b", "2")))
				mustSucceed(t, f.Update(pod("a", "3")))
			},
			// The DeltaFIFO delivers a's update before b's add, though it
			// happened after it.
			wantDelta: []string{"ns/a Added@1 Updated@3", "ns/b Added@2"},
			wantReal:  []string{"ns/a Added@1", "ns/b Added@2", "ns/a Updated@3"},
		},
		{
			name: "two quick updates of one object",
			produce: func(t *testing.T, f FIFO) {
				mustSucceed(t, f.Update(pod("a", "4")))
				mustSucceed(t, f.Update(pod("a", "5")))
			},
			wantDelta: []string{"ns/a Updated@4 Updated@5"},
			wantReal:  []string{"ns/a Updated@4", "ns/a Updated@5"},
		},
		{
			name:   "a deletion reported by a relist and then by the watch",
			cached: []api.Object{pod("a", "1")},
			produce: func(t *testing.T, f FIFO) {
				mustSucceed(t, f.Replace(nil, "10"))
				mustSucceed(t, f.Delete(pod("a", "11")))
			},
			// The DeltaFIFO keeps the deletion that carries the real
			// object; the RealFIFO delivers both.
			wantDelta: []string{"ns/a Deleted@11"},
			wantReal:  []string{"ns/a Deleted@1~", "ns/a Deleted@11"},
		},
		{
			name:   "a relist: a vanished object, a changed one, a new one",
			cached: []api.Object{pod("a", "1"), pod("b", "2")},
			produce: func(t *testing.T, f FIFO) {
				mustSucceed(t, f.Replace([]api.Object{pod("a", "5"), pod("c", "6")}, "6"))
			},
			// The DeltaFIFO queues the list first and the tombstones after
			// it; the RealFIFO the tombstones first, as upstream.
			wantDelta: []string{"ns/a Replaced@5", "ns/c Replaced@6", "ns/b Deleted@2~"},
			wantReal:  []string{"ns/b Deleted@2~", "ns/a Replaced@5", "ns/c Replaced@6"},
		},
		{
			name: "a relist tombstones a queued key with its newest queued state",
			produce: func(t *testing.T, f FIFO) {
				mustSucceed(t, f.Add(pod("a", "1")))
				mustSucceed(t, f.Update(pod("a", "2")))
				mustSucceed(t, f.Replace(nil, "3"))
			},
			wantDelta: []string{"ns/a Added@1 Updated@2 Deleted@2~"},
			wantReal:  []string{"ns/a Added@1", "ns/a Updated@2", "ns/a Deleted@2~"},
		},
		{
			name: "a relist adds no tombstone after a queued deletion",
			produce: func(t *testing.T, f FIFO) {
				mustSucceed(t, f.Add(pod("a", "1")))
				mustSucceed(t, f.Delete(pod("a", "2")))
				mustSucceed(t, f.Replace(nil, "3"))
			},
			wantDelta: []string{"ns/a Added@1 Deleted@2"},
			wantReal:  []string{"ns/a Added@1", "ns/a Deleted@2"},
		},
		{
			name:   "a resync skips keys with something queued",
			cached: []api.Object{pod("a", "1"), pod("b", "2")},
			produce: func(t *testing.T, f FIFO) {
				mustSucceed(t, f.Update(pod("a", "3")))
				mustSucceed(t, f.Resync())
			},
			wantDelta: []string{"ns/a Updated@3", "ns/b Sync@2"},
			wantReal:  []string{"ns/a Updated@3", "ns/b Sync@2"},
		},
	}
	for _, tt := range tests {
		for _, kind := range FIFOKinds {
			t.Run(tt.name+"/"+string(kind), func(t *testing.T) {
				cache := NewIndexer(MetaNamespaceKeyFunc, nil)
				mustSucceed(t, cache.Replace(tt.cached, "0"))
				f := newFIFO(kind, cache, nil)
				tt.produce(t, f)
				want := tt.wantDelta
				if kind == FIFOReal {
					want = tt.wantReal
				}
				if got := drainPops(t, f); !slices.Equal(got, want) {
					t.Errorf("pops:\n got %q\nwant %q", got, want)
				}
			})
		}
	}
}

func TestRealFIFOListKeysHasOneEntryPerEvent(t *testing.T) {
	f := NewRealFIFO(RealFIFOOptions{})
	mustSucceed(t, f.Add(fixturePod("ns", "a", withRV("1"))))
	mustSucceed(t, f.Add(fixturePod("ns", "b", withRV("2"))))
	mustSucceed(t, f.Update(fixturePod("ns", "a", withRV("3"))))
	if got := f.ListKeys(); !slices.Equal(got, []string{"ns/a", "ns/b", "ns/a"}) {
		t.Errorf("ListKeys = %q, want a, b, a", got)
	}
	if f.Len() != 3 {
		t.Errorf("Len = %d, want 3 (events, not keys)", f.Len())
	}
}

func TestRealFIFOHasSynced(t *testing.T) {
	f := NewRealFIFO(RealFIFOOptions{KnownObjects: NewIndexer(MetaNamespaceKeyFunc, nil)})
	pop := func() bool {
		var initial bool
		if _, err := f.Pop(func(_ any, isInInitialList bool) error {
			initial = isInInitialList
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return initial
	}
	if f.HasSynced() {
		t.Fatal("synced before the first list")
	}
	mustSucceed(t, f.Replace([]api.Object{fixturePod("ns", "a"), fixturePod("ns", "b")}, "1"))
	mustSucceed(t, f.Update(fixturePod("ns", "a", withRV("2")))) // after the list: not part of it
	if !pop() || f.HasSynced() {
		t.Fatal("after the first of two listed items: want isInInitialList and not synced")
	}
	if !pop() || !f.HasSynced() {
		t.Fatal("after the second listed item: want isInInitialList and synced")
	}
	if pop() {
		t.Error("the update after the list was popped as part of the initial list")
	}
	mustSucceed(t, f.Replace([]api.Object{fixturePod("ns", "c")}, "3"))
	if !f.HasSynced() || f.LastSyncResourceVersion() != "3" {
		t.Errorf("a later relist: synced %v, last sync %q; want true, 3", f.HasSynced(), f.LastSyncResourceVersion())
	}
}

func TestRealFIFOHasSyncedCountsItemsQueuedBeforeTheFirstList(t *testing.T) {
	// A resync before the first list queues an item ahead of the list's:
	// the list is delivered only once the item behind all of them is.
	cache := NewIndexer(MetaNamespaceKeyFunc, nil)
	mustSucceed(t, cache.Add(fixturePod("ns", "x")))
	f := NewRealFIFO(RealFIFOOptions{KnownObjects: cache})
	mustSucceed(t, f.Resync())
	mustSucceed(t, f.Replace([]api.Object{fixturePod("ns", "a"), fixturePod("ns", "b")}, "1"))
	for i := f.Len(); i > 0; i-- {
		if f.HasSynced() {
			t.Fatalf("synced with %d items still queued", i)
		}
		if _, err := f.Pop(func(any, bool) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if !f.HasSynced() {
		t.Error("not synced once every item is popped")
	}
}

func TestRealFIFOPopDropsAnItemItCannotRequeue(t *testing.T) {
	cause := errors.New("handler failed")
	for _, processErr := range []error{cause, ErrRequeue{Err: cause}, fmt.Errorf("sync: %w", ErrRequeue{Err: cause})} {
		f := NewRealFIFO(RealFIFOOptions{})
		mustSucceed(t, f.Add(fixturePod("ns", "a")))
		mustSucceed(t, f.Add(fixturePod("ns", "b")))
		if _, err := f.Pop(func(any, bool) error { return processErr }); !errors.Is(err, cause) {
			t.Errorf("process error %v: Pop = %v, want the cause", processErr, err)
		}
		if got := f.ListKeys(); !slices.Equal(got, []string{"ns/b"}) {
			t.Errorf("process error %v: queue %q, want only b (the item is not put back)", processErr, got)
		}
	}
}

func TestRealFIFOCloseUnblocksPopAndStillDrains(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := NewRealFIFO(RealFIFOOptions{})
		errc := make(chan error, 1)
		go func() {
			_, err := f.Pop(func(any, bool) error { return nil })
			errc <- err
		}()
		synctest.Wait() // Pop is blocked on the empty queue
		mustSucceed(t, f.Add(fixturePod("ns", "a")))
		if err := <-errc; err != nil {
			t.Fatalf("Pop of an added item = %v", err)
		}
		mustSucceed(t, f.Add(fixturePod("ns", "b")))
		f.Close()
		if _, err := f.Pop(func(any, bool) error { return nil }); err != nil {
			t.Errorf("Pop of a queued item after Close = %v, want it delivered", err)
		}
		if _, err := f.Pop(func(any, bool) error { return nil }); !errors.Is(err, ErrFIFOClosed) || !f.IsClosed() {
			t.Errorf("Pop of an empty closed queue = %v, want ErrFIFOClosed", err)
		}
	})
}

func TestRealFIFOTraceCallsOncePerEvent(t *testing.T) {
	var calls []string
	f := NewRealFIFO(RealFIFOOptions{Trace: func(stage, key string, d Delta) {
		calls = append(calls, stage+" "+key+" "+string(d.Type))
	}})
	mustSucceed(t, f.Add(fixturePod("ns", "a")))
	mustSucceed(t, f.Delete(fixturePod("ns", "a")))
	mustSucceed(t, f.Delete(fixturePod("ns", "a")))
	want := []string{"delta ns/a Added", "delta ns/a Deleted", "delta ns/a Deleted"}
	if !slices.Equal(calls, want) {
		t.Errorf("trace calls %q, want %q (no dedup)", calls, want)
	}
}

func TestRealFIFOKeyErrors(t *testing.T) {
	f := NewRealFIFO(RealFIFOOptions{})
	var keyErr KeyError
	if err := f.Add(&api.Pod{}); !errors.As(err, &keyErr) {
		t.Errorf("Add of a nameless pod = %v, want a KeyError", err)
	}
	if err := f.Replace([]api.Object{fixturePod("ns", "ok"), &api.Pod{}}, "1"); err == nil || !strings.Contains(err.Error(), `resourceVersion "1"`) {
		t.Errorf("Replace with a nameless pod = %v, want an error naming the list", err)
	}
	if n := f.Len(); n != 0 {
		t.Errorf("a failed Replace queued %d items, want none", n)
	}
}

// TestRealFIFOConcurrentProducerConsumer is for `go test -race`, as its
// DeltaFIFO twin: once drained, the cache equals the producer's view.
func TestRealFIFOConcurrentProducerConsumer(t *testing.T) {
	indexer := NewIndexer(MetaNamespaceKeyFunc, StandardIndexers())
	f := NewRealFIFO(RealFIFOOptions{KnownObjects: indexer})
	model := map[string]api.Object{}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			_, err := f.Pop(func(obj any, _ bool) error {
				applyDeltasToCache(t, indexer, obj)
				return nil
			})
			if errors.Is(err, ErrFIFOClosed) {
				return
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	})
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 2000 {
		obj := randomCacheObject(rng, i)
		key, _ := MetaNamespaceKeyFunc(obj)
		switch op := rng.IntN(40); {
		case op == 0:
			mustSucceed(t, f.Replace([]api.Object{obj}, fmt.Sprint(i)))
			model = map[string]api.Object{key: obj}
		case op == 1:
			mustSucceed(t, f.Resync())
		case op < 12:
			mustSucceed(t, f.Delete(obj))
			delete(model, key)
		default:
			mustSucceed(t, f.Update(obj))
			model[key] = obj
		}
		_ = f.HasSynced()
	}
	f.Close()
	wg.Wait()
	if got, want := slices.Sorted(slices.Values(indexer.ListKeys())), slices.Sorted(maps.Keys(model)); !slices.Equal(got, want) {
		t.Fatalf("cache keys %q, want %q", got, want)
	}
	for key, want := range model {
		if got, _, _ := indexer.GetByKey(key); got != want {
			t.Errorf("cache %q = %v, want %v", key, got, want)
		}
	}
}
