package informer

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"kplane/pkg/api"
)

// popDeltas pops one item and returns its Deltas and isInInitialList.
func popDeltas(t testing.TB, f *DeltaFIFO) (Deltas, bool) {
	t.Helper()
	var initial bool
	obj, err := f.Pop(func(obj any, isInInitialList bool) error {
		initial = isInInitialList
		return nil
	})
	if err != nil {
		t.Fatalf("Pop: %v", err)
	}
	return obj.(Deltas), initial
}

// drainFIFO pops every queued item and returns the summaries keyed by key, plus
// the order keys came out in.
func drainFIFO(t testing.TB, f *DeltaFIFO) (map[string][]deltaSummary, []string) {
	t.Helper()
	got := map[string][]deltaSummary{}
	var order []string
	for f.Len() > 0 {
		d, _ := popDeltas(t, f)
		key, err := f.KeyOf(d)
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, key)
		got[key] = summarizeDeltas(t, d)
	}
	return got, order
}

func TestDeltaFIFOPopOrderIsFirstInsertion(t *testing.T) {
	f := NewDeltaFIFO(DeltaFIFOOptions{})
	mustSucceed(t, f.Add(fixturePod("ns", "a", withRV("1"))))
	mustSucceed(t, f.Add(fixturePod("ns", "b", withRV("2"))))
	mustSucceed(t, f.Update(fixturePod("ns", "a", withRV("3")))) // joins a's list, does not move it
	mustSucceed(t, f.Add(fixturePod("ns", "c", withRV("4"))))

	if got := f.ListKeys(); !slices.Equal(got, []string{"ns/a", "ns/b", "ns/c"}) {
		t.Errorf("ListKeys = %q, want queue order a, b, c", got)
	}
	got, order := drainFIFO(t, f)
	if !slices.Equal(order, []string{"ns/a", "ns/b", "ns/c"}) {
		t.Errorf("pop order = %q", order)
	}
	want := []deltaSummary{{Added, "ns/a", "1", false}, {Updated, "ns/a", "3", false}}
	if !reflect.DeepEqual(got["ns/a"], want) {
		t.Errorf("a's deltas = %+v, want %+v", got["ns/a"], want)
	}
}

func TestDeltaFIFOReAddAfterPopGoesToTheBack(t *testing.T) {
	f := NewDeltaFIFO(DeltaFIFOOptions{})
	mustSucceed(t, f.Add(fixturePod("ns", "a", withRV("1"))))
	mustSucceed(t, f.Add(fixturePod("ns", "b", withRV("2"))))
	d, _ := popDeltas(t, f)
	if len(d) != 1 || d[0].Type != Added {
		t.Fatalf("first pop = %+v", d)
	}
	mustSucceed(t, f.Update(fixturePod("ns", "a", withRV("3"))))
	if got := f.ListKeys(); !slices.Equal(got, []string{"ns/b", "ns/a"}) {
		t.Errorf("ListKeys = %q, want b before the re-added a", got)
	}
	if d, ok, _ := f.GetByKey("ns/a"); !ok || len(d) != 1 || d[0].Type != Updated {
		t.Errorf("re-added a holds %+v, want only the new Updated delta", d)
	}
}

func TestDeltaFIFODeleteDedup(t *testing.T) {
	obj := func(rv string) *api.Pod { return fixturePod("ns", "a", withRV(rv)) }
	tomb := func(rv string) DeletedFinalStateUnknown { return DeletedFinalStateUnknown{Key: "ns/a", Obj: obj(rv)} }
	tests := []struct {
		name string
		// prepare queues a's history; the last two entries are deletions.
		prepare func(f *DeltaFIFO)
		want    []deltaSummary
	}{
		{
			name: "two real deletions keep the earlier",
			prepare: func(f *DeltaFIFO) {
				mustSucceed(t, f.Add(obj("1")))
				mustSucceed(t, f.Delete(obj("2")))
				mustSucceed(t, f.Delete(obj("3")))
			},
			want: []deltaSummary{{Added, "ns/a", "1", false}, {Deleted, "ns/a", "2", false}},
		},
		{
			name: "a tombstone after a real deletion is dropped",
			prepare: func(f *DeltaFIFO) {
				mustSucceed(t, f.Add(obj("1")))
				mustSucceed(t, f.Delete(obj("2")))
				mustSucceed(t, f.Replace(nil, "10")) // relist: a is gone → tombstone
			},
			want: []deltaSummary{{Added, "ns/a", "1", false}, {Deleted, "ns/a", "2", false}},
		},
		{
			name: "a real deletion after a tombstone replaces it",
			prepare: func(f *DeltaFIFO) {
				mustSucceed(t, f.Add(obj("1")))
				mustSucceed(t, f.Replace(nil, "10"))
				mustSucceed(t, f.Delete(obj("5")))
			},
			want: []deltaSummary{{Added, "ns/a", "1", false}, {Deleted, "ns/a", "5", false}},
		},
		{
			name: "a deletion after another kind of delta is kept",
			prepare: func(f *DeltaFIFO) {
				mustSucceed(t, f.Add(obj("1")))
				mustSucceed(t, f.Delete(obj("2")))
				mustSucceed(t, f.Add(obj("3")))
				mustSucceed(t, f.Delete(obj("4")))
			},
			want: []deltaSummary{{Added, "ns/a", "1", false}, {Deleted, "ns/a", "2", false}, {Added, "ns/a", "3", false}, {Deleted, "ns/a", "4", false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewDeltaFIFO(DeltaFIFOOptions{})
			tt.prepare(f)
			d, ok, err := f.GetByKey("ns/a")
			if err != nil || !ok {
				t.Fatalf("GetByKey: %v %v", ok, err)
			}
			if got := summarizeDeltas(t, d); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("deltas = %+v, want %+v", got, tt.want)
			}
		})
	}
	// The rule itself, including the case Delete alone cannot produce.
	if keep, _, ok := dedupDeletion(Delta{Deleted, tomb("1")}, Delta{Deleted, tomb("2")}); !ok || keep.Object.(DeletedFinalStateUnknown).Obj.GetObjectMeta().ResourceVersion != "2" {
		t.Errorf("two tombstones: kept %+v, want the later", keep)
	}
}

func TestDeltaFIFODeleteOfAnUnknownObjectIsIgnored(t *testing.T) {
	known := NewIndexer(MetaNamespaceKeyFunc, nil)
	mustSucceed(t, known.Add(fixturePod("ns", "cached")))
	tests := []struct {
		name   string
		known  KeyListerGetter
		delete *api.Pod
		queued bool
	}{
		{"no known objects, nothing queued", nil, fixturePod("ns", "x"), false},
		{"not in known objects, nothing queued", known, fixturePod("ns", "x"), false},
		{"in known objects", known, fixturePod("ns", "cached"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewDeltaFIFO(DeltaFIFOOptions{KnownObjects: tt.known})
			mustSucceed(t, f.Delete(tt.delete))
			key, _ := MetaNamespaceKeyFunc(tt.delete)
			if _, ok, _ := f.GetByKey(key); ok != tt.queued {
				t.Errorf("queued = %v, want %v", ok, tt.queued)
			}
		})
	}
}

// TestDeltaFIFORelistAfterGone is the 410 story: the watch expired, the
// reflector listed again, and the list lacks objects whose deletion the
// watch never delivered.
func TestDeltaFIFORelistAfterGone(t *testing.T) {
	tests := []struct {
		name string
		// cached is what the informer's indexer holds (nil: no KnownObjects).
		cached []api.Object
		// queued is added to the FIFO before the relist.
		queued []api.Object
		list   []api.Object
		// relistAgain repeats the Replace, as a reflector does when its
		// next watch fails too.
		relistAgain bool
		want        map[string][]deltaSummary
	}{
		{
			name:   "listed objects are Replaced, vanished cached ones tombstoned",
			cached: []api.Object{fixturePod("ns", "a", withRV("1")), fixturePod("ns", "b", withRV("2")), fixtureNode("n1")},
			list:   []api.Object{fixturePod("ns", "a", withRV("7"))},
			want: map[string][]deltaSummary{
				"ns/a": {{Replaced, "ns/a", "7", false}},
				"ns/b": {{Deleted, "ns/b", "2", true}},
				"n1":   {{Deleted, "n1", "", true}},
			},
		},
		{
			name:   "a vanished object with queued deltas is tombstoned with its newest state",
			cached: []api.Object{fixturePod("ns", "b", withRV("2"))},
			queued: []api.Object{fixturePod("ns", "b", withRV("5"))},
			list:   nil,
			want: map[string][]deltaSummary{
				"ns/b": {{Updated, "ns/b", "5", false}, {Deleted, "ns/b", "5", true}},
			},
		},
		{
			name:   "an object created and deleted while disconnected is tombstoned too",
			cached: []api.Object{},
			queued: []api.Object{fixturePod("ns", "new", withRV("3"))},
			list:   []api.Object{},
			want: map[string][]deltaSummary{
				"ns/new": {{Updated, "ns/new", "3", false}, {Deleted, "ns/new", "3", true}},
			},
		},
		{
			name:   "a second relist does not nest tombstones",
			cached: []api.Object{fixturePod("ns", "b", withRV("2"))},
			queued: []api.Object{fixturePod("ns", "b", withRV("5"))},
			list:   nil,
			// The tombstone of the second relist carries b itself (rv 5),
			// and replaces the first one: of two tombstones, the later.
			relistAgain: true,
			want: map[string][]deltaSummary{
				"ns/b": {{Updated, "ns/b", "5", false}, {Deleted, "ns/b", "5", true}},
			},
		},
		{
			name:   "without known objects, only queued keys can vanish",
			queued: []api.Object{fixturePod("ns", "a", withRV("1")), fixturePod("ns", "b", withRV("2"))},
			list:   []api.Object{fixturePod("ns", "a", withRV("4"))},
			want: map[string][]deltaSummary{
				"ns/a": {{Updated, "ns/a", "1", false}, {Replaced, "ns/a", "4", false}},
				"ns/b": {{Updated, "ns/b", "2", false}, {Deleted, "ns/b", "2", true}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := DeltaFIFOOptions{}
			if tt.cached != nil {
				indexer := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
				mustSucceed(t, indexer.Replace(tt.cached, "1"))
				opts.KnownObjects = indexer
			}
			f := NewDeltaFIFO(opts)
			for _, o := range tt.queued {
				mustSucceed(t, f.Update(o))
			}
			if tt.relistAgain {
				mustSucceed(t, f.Replace(tt.list, "19"))
			}
			mustSucceed(t, f.Replace(tt.list, "20"))
			if rv := f.LastSyncResourceVersion(); rv != "20" {
				t.Errorf("LastSyncResourceVersion = %q, want 20", rv)
			}
			got, _ := drainFIFO(t, f)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("deltas:\n got  %+v\n want %+v", got, tt.want)
			}
		})
	}
}

func TestDeltaFIFOTombstoneCarriesCachedObject(t *testing.T) {
	indexer := NewIndexer(MetaNamespaceKeyFunc, nil)
	cached := fixturePod("ns", "b", withRV("2"))
	mustSucceed(t, indexer.Add(cached))
	f := NewDeltaFIFO(DeltaFIFOOptions{KnownObjects: indexer})
	mustSucceed(t, f.Replace(nil, "9"))
	d, _ := popDeltas(t, f)
	tomb, ok := d.Newest().Object.(DeletedFinalStateUnknown)
	if !ok || tomb.Key != "ns/b" || tomb.Obj != api.Object(cached) {
		t.Errorf("tombstone = %#v, want key ns/b with the cached object", d.Newest().Object)
	}
	// Applying it, as the informer does, empties the cache.
	applyDeltasToCache(t, indexer, d)
	if keys := indexer.ListKeys(); len(keys) != 0 {
		t.Errorf("cache after the tombstone = %q", keys)
	}
}

func TestDeltaFIFOResyncDeliversSync(t *testing.T) {
	tests := []struct {
		name   string
		known  bool
		queued []api.Object
		want   map[string][]deltaSummary
	}{
		{
			name:  "every cached object gets a Sync",
			known: true,
			want: map[string][]deltaSummary{
				"ns/a": {{Sync, "ns/a", "1", false}},
				"ns/b": {{Sync, "ns/b", "2", false}},
			},
		},
		{
			name:   "an object with queued deltas is not re-delivered in its older state",
			known:  true,
			queued: []api.Object{fixturePod("ns", "a", withRV("5"))},
			want: map[string][]deltaSummary{
				"ns/a": {{Updated, "ns/a", "5", false}},
				"ns/b": {{Sync, "ns/b", "2", false}},
			},
		},
		{
			name:   "without known objects there is nothing to resync",
			queued: []api.Object{fixturePod("ns", "a", withRV("5"))},
			want:   map[string][]deltaSummary{"ns/a": {{Updated, "ns/a", "5", false}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := DeltaFIFOOptions{}
			if tt.known {
				indexer := NewIndexer(MetaNamespaceKeyFunc, nil)
				mustSucceed(t, indexer.Add(fixturePod("ns", "a", withRV("1"))))
				mustSucceed(t, indexer.Add(fixturePod("ns", "b", withRV("2"))))
				opts.KnownObjects = indexer
			}
			f := NewDeltaFIFO(opts)
			for _, o := range tt.queued {
				mustSucceed(t, f.Update(o))
			}
			mustSucceed(t, f.Resync())
			got, _ := drainFIFO(t, f)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("deltas:\n got  %+v\n want %+v", got, tt.want)
			}
		})
	}
}

func TestDeltaFIFOPopErrors(t *testing.T) {
	cause := errors.New("handler failed")
	tests := []struct {
		name        string
		processErr  error
		wantErr     error
		wantQueued  []string
		wantDeltas  int
		wantUnwraps bool
	}{
		{name: "success", processErr: nil, wantErr: nil, wantQueued: []string{"ns/b"}},
		{name: "plain error is returned and the item dropped", processErr: cause, wantErr: cause, wantQueued: []string{"ns/b"}},
		{name: "ErrRequeue puts the item back at the end", processErr: ErrRequeue{Err: cause}, wantErr: cause, wantQueued: []string{"ns/b", "ns/a"}, wantDeltas: 2},
		{name: "wrapped ErrRequeue is recognised", processErr: fmt.Errorf("sync: %w", ErrRequeue{Err: cause}), wantErr: cause, wantQueued: []string{"ns/b", "ns/a"}, wantDeltas: 2},
		{name: "ErrRequeue without a cause", processErr: ErrRequeue{}, wantErr: nil, wantQueued: []string{"ns/b", "ns/a"}, wantDeltas: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewDeltaFIFO(DeltaFIFOOptions{})
			mustSucceed(t, f.Add(fixturePod("ns", "a", withRV("1"))))
			mustSucceed(t, f.Update(fixturePod("ns", "a", withRV("2"))))
			mustSucceed(t, f.Add(fixturePod("ns", "b", withRV("3"))))
			obj, err := f.Pop(func(any, bool) error { return tt.processErr })
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("Pop err = %v, want %v", err, tt.wantErr)
			}
			if d := obj.(Deltas); len(d) != 2 {
				t.Errorf("Pop returned %d deltas, want 2", len(d))
			}
			if got := f.ListKeys(); !slices.Equal(got, tt.wantQueued) {
				t.Errorf("queue after Pop = %q, want %q", got, tt.wantQueued)
			}
			d, _, _ := f.GetByKey("ns/a")
			if len(d) != tt.wantDeltas {
				t.Errorf("a has %d queued deltas, want %d", len(d), tt.wantDeltas)
			}
		})
	}
}

func TestDeltaFIFOHasSynced(t *testing.T) {
	type step struct {
		do         func(t *testing.T, f *DeltaFIFO) // nil: pop one
		wantSynced bool
		// wantInitial is checked for pop steps.
		wantInitial bool
	}
	pop := func(wantSynced, wantInitial bool) step {
		return step{wantSynced: wantSynced, wantInitial: wantInitial}
	}
	replace := func(rv string, objs ...api.Object) func(*testing.T, *DeltaFIFO) {
		return func(t *testing.T, f *DeltaFIFO) { mustSucceed(t, f.Replace(objs, rv)) }
	}
	tests := []struct {
		name   string
		cached []api.Object
		steps  []step
	}{
		{
			name: "not synced until the first list's items are all popped",
			steps: []step{
				{do: func(*testing.T, *DeltaFIFO) {}, wantSynced: false},
				{do: replace("1", fixturePod("ns", "a"), fixturePod("ns", "b")), wantSynced: false},
				pop(false, true),
				pop(true, true),
				{do: func(t *testing.T, f *DeltaFIFO) { mustSucceed(t, f.Add(fixturePod("ns", "c"))) }, wantSynced: true},
				pop(true, false),
			},
		},
		{
			name: "a later relist does not unsync",
			steps: []step{
				{do: replace("1", fixturePod("ns", "a")), wantSynced: false},
				pop(true, true),
				{do: replace("2", fixturePod("ns", "a"), fixturePod("ns", "b")), wantSynced: true},
				pop(true, false),
			},
		},
		{
			name: "an empty first list syncs at once",
			steps: []step{
				{do: replace("1"), wantSynced: true},
			},
		},
		{
			name: "an add before any list syncs at once",
			steps: []step{
				{do: func(t *testing.T, f *DeltaFIFO) { mustSucceed(t, f.Add(fixturePod("ns", "a"))) }, wantSynced: true},
			},
		},
		{
			name:   "tombstones of the first list count as initial items",
			cached: []api.Object{fixturePod("ns", "gone")},
			steps: []step{
				{do: replace("1", fixturePod("ns", "a")), wantSynced: false},
				pop(false, true),
				pop(true, true),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := DeltaFIFOOptions{}
			if tt.cached != nil {
				indexer := NewIndexer(MetaNamespaceKeyFunc, nil)
				mustSucceed(t, indexer.Replace(tt.cached, "0"))
				opts.KnownObjects = indexer
			}
			f := NewDeltaFIFO(opts)
			for i, s := range tt.steps {
				if s.do != nil {
					s.do(t, f)
				} else if _, initial := popDeltas(t, f); initial != s.wantInitial {
					t.Errorf("step %d: isInInitialList = %v, want %v", i, initial, s.wantInitial)
				}
				if got := f.HasSynced(); got != s.wantSynced {
					t.Errorf("step %d: HasSynced = %v, want %v", i, got, s.wantSynced)
				}
			}
		})
	}
}

func TestDeltaFIFOCloseUnblocksPop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := NewDeltaFIFO(DeltaFIFOOptions{})
		errc := make(chan error, 1)
		go func() {
			_, err := f.Pop(func(any, bool) error { return nil })
			errc <- err
		}()
		synctest.Wait() // Pop is now blocked on the empty queue
		select {
		case err := <-errc:
			t.Fatalf("Pop returned %v before Close", err)
		default:
		}
		f.Close()
		if err := <-errc; !errors.Is(err, ErrFIFOClosed) {
			t.Errorf("Pop after Close = %v, want ErrFIFOClosed", err)
		}
		if !f.IsClosed() {
			t.Error("IsClosed = false after Close")
		}
	})
}

func TestDeltaFIFOPopWaitsForAnItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := NewDeltaFIFO(DeltaFIFOOptions{})
		got := make(chan Deltas, 1)
		go func() {
			obj, err := f.Pop(func(any, bool) error { return nil })
			if err != nil {
				t.Error(err)
			}
			got <- obj.(Deltas)
		}()
		synctest.Wait()
		mustSucceed(t, f.Add(fixturePod("ns", "a")))
		if d := <-got; len(d) != 1 || d[0].Type != Added {
			t.Errorf("Pop = %+v", d)
		}
	})
}

func TestDeltaFIFOClosedQueueStillDrains(t *testing.T) {
	f := NewDeltaFIFO(DeltaFIFOOptions{})
	mustSucceed(t, f.Add(fixturePod("ns", "a")))
	f.Close()
	if _, err := f.Pop(func(any, bool) error { return nil }); err != nil {
		t.Errorf("Pop of a queued item after Close = %v, want it delivered", err)
	}
	if _, err := f.Pop(func(any, bool) error { return nil }); !errors.Is(err, ErrFIFOClosed) {
		t.Errorf("Pop of an empty closed queue = %v, want ErrFIFOClosed", err)
	}
}

func TestDeltaFIFOTrace(t *testing.T) {
	type call struct {
		Stage, Key string
		Type       DeltaType
	}
	var calls []call
	f := NewDeltaFIFO(DeltaFIFOOptions{Trace: func(stage, key string, d Delta) {
		calls = append(calls, call{stage, key, d.Type})
	}})
	mustSucceed(t, f.Add(fixturePod("ns", "a")))
	mustSucceed(t, f.Delete(fixturePod("ns", "a")))
	mustSucceed(t, f.Delete(fixturePod("ns", "a")))
	want := []call{
		{"delta", "ns/a", Added},
		{"delta", "ns/a", Deleted},
		{"delta", "ns/a", Deleted},
		{"dedup", "ns/a", Deleted},
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("trace calls = %+v, want %+v", calls, want)
	}
}

func TestDeltaFIFOKeyErrors(t *testing.T) {
	f := NewDeltaFIFO(DeltaFIFOOptions{})
	var keyErr KeyError
	if err := f.Add(&api.Pod{}); !errors.As(err, &keyErr) {
		t.Errorf("Add of a nameless pod = %v, want a KeyError", err)
	}
	if err := f.Replace([]api.Object{fixturePod("ns", "ok"), &api.Pod{}}, "1"); err == nil {
		t.Error("Replace with a nameless pod: want an error")
	}
	if n := f.Len(); n != 0 {
		t.Errorf("a failed Replace queued %d keys, want none", n)
	}
	if _, err := f.KeyOf(Deltas{}); err == nil {
		t.Error("KeyOf(empty Deltas): want an error")
	}
}

// TestDeltaFIFOConcurrentProducerConsumer is for `go test -race`: a
// producer and a consumer (applying deltas to an indexer, as an informer
// does) run together, with readers and resyncs on the side. Once the queue
// is drained the cache must equal the producer's view.
func TestDeltaFIFOConcurrentProducerConsumer(t *testing.T) {
	indexer := NewIndexer(MetaNamespaceKeyFunc, StandardIndexers())
	f := NewDeltaFIFO(DeltaFIFOOptions{KnownObjects: indexer})
	model := map[string]api.Object{}

	var wg sync.WaitGroup
	wg.Go(func() { // consumer
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
	done := make(chan struct{})
	wg.Go(func() { // readers
		for {
			select {
			case <-done:
				return
			default:
			}
			_ = f.HasSynced()
			for _, k := range f.ListKeys() {
				_, _, _ = f.GetByKey(k)
			}
			_ = f.LastSyncResourceVersion()
			_, _ = indexer.ByIndex(NamespaceIndex, "default")
		}
	})

	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		obj := randomCacheObject(rng, i)
		key, _ := MetaNamespaceKeyFunc(obj)
		switch op := rng.IntN(40); {
		case op == 0:
			list := []api.Object{obj}
			mustSucceed(t, f.Replace(list, fmt.Sprint(i)))
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
	}
	f.Close()
	close(done)
	wg.Wait()

	if got, want := slices.Sorted(slices.Values(indexer.ListKeys())), slices.Sorted(maps.Keys(model)); !slices.Equal(got, want) {
		t.Fatalf("cache keys %q, want %q", got, want)
	}
	for key, want := range model {
		if got, _, _ := indexer.GetByKey(key); got != want {
			t.Errorf("cache %q = %v, want %v", key, got, want)
		}
	}
	checkIndexInvariants(t, indexer)
}

// mustSucceed fails the test on a non-nil error.
func mustSucceed(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
