package workqueue

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// checkInvariants fails the test if the queue's three sets (or the waiting
// heap) disagree with the invariants documented on Queue.
func checkInvariants[T comparable](t *testing.T, q *Queue[T]) {
	t.Helper()
	q.mu.Lock()
	defer q.mu.Unlock()
	inQueue := set[T]{}
	for _, item := range q.queue {
		if inQueue.has(item) {
			t.Errorf("invariant: %v is in queue twice", item)
		}
		inQueue.insert(item)
		if !q.dirty.has(item) {
			t.Errorf("invariant: %v is in queue but not dirty", item)
		}
		if q.processing.has(item) {
			t.Errorf("invariant: %v is in queue and processing at once", item)
		}
	}
	for item := range q.dirty {
		if !q.processing.has(item) && !inQueue.has(item) {
			t.Errorf("invariant: %v is dirty and not processing but not queued", item)
		}
	}
	w := &q.waiting
	if len(w.entries) != len(w.byItem) {
		t.Errorf("invariant: %d waiting entries, %d in byItem", len(w.entries), len(w.byItem))
	}
	for i, e := range w.entries {
		if e.index != i || w.byItem[e.item] != e {
			t.Errorf("invariant: waiting entry %v at %d has index %d", e.item, i, e.index)
		}
	}
}

// snapshot renders Debug's sets for comparison, dirty and processing sorted.
func snapshot(q *Queue[string]) string {
	queue, dirty, processing := q.Debug()
	slices.Sort(dirty)
	slices.Sort(processing)
	return fmt.Sprintf("queue=%v dirty=%v processing=%v", queue, dirty, processing)
}

// getNow calls Get and fails the test if it blocks; it must run inside a
// synctest bubble so "blocks" has a precise meaning.
func getNow(t *testing.T, q *Queue[string]) (string, bool) {
	t.Helper()
	type result struct {
		item     string
		shutdown bool
	}
	got := make(chan result, 1)
	go func() {
		item, shutdown := q.Get()
		got <- result{item, shutdown}
	}()
	synctest.Wait()
	select {
	case r := <-got:
		return r.item, r.shutdown
	default:
		q.ShutDown() // release the goroutine so the bubble can end
		<-got
		t.Fatalf("Get blocked; %s", snapshot(q))
		return "", false
	}
}

// TestQueueSets drives the queue one operation at a time and checks the
// queue, dirty and processing sets after each: this is where dedup, FIFO,
// exclusivity, re-add during processing and shutdown draining are pinned.
func TestQueueSets(t *testing.T) {
	type step struct {
		op   string // "add x", "get x" (expect x), "get shutdown", "done x", "shutdown"
		want string // expected snapshot afterwards
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"dedup: a key added twice before Get is handed out once", []step{
			{"add a", "queue=[a] dirty=[a] processing=[]"},
			{"add b", "queue=[a b] dirty=[a b] processing=[]"},
			{"add a", "queue=[a b] dirty=[a b] processing=[]"},
			{"get a", "queue=[b] dirty=[b] processing=[a]"},
			{"done a", "queue=[b] dirty=[b] processing=[]"},
			{"get b", "queue=[] dirty=[] processing=[b]"},
			{"done b", "queue=[] dirty=[] processing=[]"},
		}},
		{"fifo: keys come out in the order first added", []step{
			{"add c", "queue=[c] dirty=[c] processing=[]"},
			{"add a", "queue=[c a] dirty=[a c] processing=[]"},
			{"add b", "queue=[c a b] dirty=[a b c] processing=[]"},
			{"add c", "queue=[c a b] dirty=[a b c] processing=[]"},
			{"get c", "queue=[a b] dirty=[a b] processing=[c]"},
			{"get a", "queue=[b] dirty=[b] processing=[a c]"},
			{"get b", "queue=[] dirty=[] processing=[a b c]"},
		}},
		{"re-add while processing: not queued until Done, then exactly once", []step{
			{"add a", "queue=[a] dirty=[a] processing=[]"},
			{"get a", "queue=[] dirty=[] processing=[a]"},
			{"add a", "queue=[] dirty=[a] processing=[a]"},
			{"add a", "queue=[] dirty=[a] processing=[a]"},
			{"done a", "queue=[a] dirty=[a] processing=[]"},
			{"get a", "queue=[] dirty=[] processing=[a]"},
			{"done a", "queue=[] dirty=[] processing=[]"},
		}},
		{"re-added key goes to the back of the line", []step{
			{"add a", "queue=[a] dirty=[a] processing=[]"},
			{"add b", "queue=[a b] dirty=[a b] processing=[]"},
			{"get a", "queue=[b] dirty=[b] processing=[a]"},
			{"add a", "queue=[b] dirty=[a b] processing=[a]"},
			{"done a", "queue=[b a] dirty=[a b] processing=[]"},
			{"get b", "queue=[a] dirty=[a] processing=[b]"},
		}},
		{"a stray Done neither queues nor duplicates a key", []step{
			{"done a", "queue=[] dirty=[] processing=[]"},
			{"add a", "queue=[a] dirty=[a] processing=[]"},
			{"done a", "queue=[a] dirty=[a] processing=[]"},
			{"get a", "queue=[] dirty=[] processing=[a]"},
			{"done a", "queue=[] dirty=[] processing=[]"},
			{"done a", "queue=[] dirty=[] processing=[]"},
		}},
		{"shutdown refuses new keys but drains queued ones", []step{
			{"add a", "queue=[a] dirty=[a] processing=[]"},
			{"add b", "queue=[a b] dirty=[a b] processing=[]"},
			{"shutdown", "queue=[a b] dirty=[a b] processing=[]"},
			{"add c", "queue=[a b] dirty=[a b] processing=[]"},
			{"get a", "queue=[b] dirty=[b] processing=[a]"},
			{"get b", "queue=[] dirty=[] processing=[a b]"},
			{"get shutdown", "queue=[] dirty=[] processing=[a b]"},
			{"done a", "queue=[] dirty=[] processing=[b]"},
			{"get shutdown", "queue=[] dirty=[] processing=[b]"},
		}},
		{"shutdown keeps a re-add made before it", []step{
			{"add a", "queue=[a] dirty=[a] processing=[]"},
			{"get a", "queue=[] dirty=[] processing=[a]"},
			{"add a", "queue=[] dirty=[a] processing=[a]"},
			{"shutdown", "queue=[] dirty=[a] processing=[a]"},
			{"done a", "queue=[a] dirty=[a] processing=[]"},
			{"get a", "queue=[] dirty=[] processing=[a]"},
			{"done a", "queue=[] dirty=[] processing=[]"},
			{"get shutdown", "queue=[] dirty=[] processing=[]"},
		}},
		{"a re-add after shutdown is refused", []step{
			{"add a", "queue=[a] dirty=[a] processing=[]"},
			{"get a", "queue=[] dirty=[] processing=[a]"},
			{"shutdown", "queue=[] dirty=[] processing=[a]"},
			{"add a", "queue=[] dirty=[] processing=[a]"},
			{"done a", "queue=[] dirty=[] processing=[]"},
			{"get shutdown", "queue=[] dirty=[] processing=[]"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := New(Options[string]{Name: "test"})
				defer q.ShutDown()
				for i, s := range tt.steps {
					op, arg, _ := strings.Cut(s.op, " ")
					switch op {
					case "add":
						q.Add(arg)
					case "done":
						q.Done(arg)
					case "shutdown":
						q.ShutDown()
					case "get":
						item, shutdown := getNow(t, q)
						if arg == "shutdown" {
							if !shutdown || item != "" {
								t.Fatalf("step %d %q: Get = %q, %v; want shutdown", i, s.op, item, shutdown)
							}
						} else if shutdown || item != arg {
							t.Fatalf("step %d %q: Get = %q, %v; want %q", i, s.op, item, shutdown, arg)
						}
					default:
						t.Fatalf("bad step %q", s.op)
					}
					checkInvariants(t, q)
					if got := snapshot(q); got != s.want {
						t.Fatalf("step %d %q:\n got %s\nwant %s", i, s.op, got, s.want)
					}
					if queue, _, _ := q.Debug(); q.Len() != len(queue) {
						t.Fatalf("step %d: Len %d, queue %v", i, q.Len(), queue)
					}
				}
			})
		})
	}
}

func TestGetBlocksUntilAdd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		got := make(chan string, 1)
		go func() {
			item, _ := q.Get()
			got <- item
		}()
		synctest.Wait()
		select {
		case item := <-got:
			t.Fatalf("Get returned %q from an empty queue", item)
		default:
		}
		q.Add("a")
		synctest.Wait()
		select {
		case item := <-got:
			if item != "a" {
				t.Fatalf("Get = %q, want a", item)
			}
		default:
			t.Fatal("Get still blocked after Add")
		}
		q.ShutDown()
	})
}

func TestShutDownReleasesBlockedGets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		var returned atomic.Int32
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				if _, shutdown := q.Get(); shutdown {
					returned.Add(1)
				}
			})
		}
		synctest.Wait()
		if n := returned.Load(); n != 0 {
			t.Fatalf("%d Gets returned before ShutDown", n)
		}
		q.ShutDown()
		wg.Wait()
		if n := returned.Load(); n != 5 {
			t.Fatalf("%d of 5 Gets returned shutdown", n)
		}
		if !q.ShuttingDown() {
			t.Fatal("ShuttingDown = false after ShutDown")
		}
	})
}

func TestShutDownWithDrainWaitsForDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		q.Add("b")
		getNow(t, q) // a is now in flight

		var drained atomic.Bool
		go func() {
			q.ShutDownWithDrain()
			drained.Store(true)
		}()
		synctest.Wait()
		if drained.Load() {
			t.Fatal("ShutDownWithDrain returned while a was processing")
		}
		if !q.ShuttingDown() {
			t.Fatal("ShuttingDown = false during ShutDownWithDrain")
		}
		q.Add("c") // refused: the queue is shutting down
		if item, shutdown := getNow(t, q); item != "b" || shutdown {
			t.Fatalf("Get during drain = %q, %v; want the queued b", item, shutdown)
		}
		q.Done("a")
		synctest.Wait()
		if drained.Load() {
			t.Fatal("ShutDownWithDrain returned while b was processing")
		}
		q.Done("b")
		synctest.Wait()
		if !drained.Load() {
			t.Fatal("ShutDownWithDrain still waiting after every key was Done")
		}
		if _, shutdown := getNow(t, q); !shutdown {
			t.Fatal("Get after drain did not report shutdown")
		}
	})
}

func TestShutDownEndsShutDownWithDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		getNow(t, q)
		var drained atomic.Bool
		go func() {
			q.ShutDownWithDrain()
			drained.Store(true)
		}()
		synctest.Wait()
		if drained.Load() {
			t.Fatal("ShutDownWithDrain returned while a was processing")
		}
		q.ShutDown()
		synctest.Wait()
		if !drained.Load() {
			t.Fatal("ShutDown did not release ShutDownWithDrain")
		}
	})
}

func TestTrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var events []string
		q := New(Options[string]{Trace: func(event, item string) {
			events = append(events, event+" "+item)
		}})
		q.Add("a")
		q.Add("a")
		getNow(t, q)
		q.Add("a")
		q.Done("a")
		getNow(t, q)
		q.Done("a")
		q.AddAfter("b", time.Second)
		q.ShutDown()
		q.Add("c")
		want := []string{"add a", "add a", "get a", "add a", "done a", "get a", "done a", "requeue-after b"}
		if !slices.Equal(events, want) {
			t.Fatalf("trace\n got %q\nwant %q", events, want)
		}
	})
}

// TestConcurrentWorkersNeverShareAKey runs many producers and workers over a
// few hot keys. A checker fails if two workers ever hold one key at once, and
// every key's latest version must be seen by some worker: a re-add lost
// while the key was processing would leave a stale version behind.
func TestConcurrentWorkersNeverShareAKey(t *testing.T) {
	const (
		producers = 8
		workers   = 8
		keys      = 16
		addsEach  = 2000
	)
	q := New(Options[string]{})

	var (
		mu       sync.Mutex
		version  = map[string]int{} // bumped before every Add, like an informer's cache
		observed = map[string]int{} // what a worker read when it processed the key
		active   sync.Map           // keys a worker holds right now
		passes   atomic.Int64
	)
	var workerGroup sync.WaitGroup
	for range workers {
		workerGroup.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				if _, busy := active.LoadOrStore(key, true); busy {
					t.Errorf("key %s handed to two workers at once", key)
				}
				mu.Lock()
				observed[key] = version[key]
				mu.Unlock()
				runtime.Gosched() // widen the window in which an overlap could happen
				passes.Add(1)
				active.Delete(key)
				q.Done(key)
			}
		})
	}
	var producerGroup sync.WaitGroup
	for p := range producers {
		producerGroup.Go(func() {
			for i := range addsEach {
				key := fmt.Sprintf("ns/key-%d", (p*7+i)%keys)
				mu.Lock()
				version[key]++
				mu.Unlock()
				q.Add(key)
			}
		})
	}
	producerGroup.Wait()
	// Workers drain what is queued (including re-adds made while processing)
	// and exit when Get reports shutdown.
	q.ShutDown()
	workerGroup.Wait()

	checkInvariants(t, q)
	if len(version) != keys {
		t.Fatalf("test bug: %d keys", len(version))
	}
	for key, v := range version {
		if observed[key] != v {
			t.Errorf("key %s: latest version %d, last processed %d (a re-add was lost)", key, v, observed[key])
		}
	}
	t.Logf("%d adds became %d passes", producers*addsEach, passes.Load())
}

// TestNoKeyLostUnderAddStorm adds many distinct keys from many goroutines
// while workers run: each must be processed exactly once.
func TestNoKeyLostUnderAddStorm(t *testing.T) {
	const producers, workers, keysEach = 16, 8, 500
	q := New(Options[int]{})
	counts := make([]atomic.Int32, producers*keysEach)
	var workerGroup sync.WaitGroup
	for range workers {
		workerGroup.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				counts[key].Add(1)
				q.Done(key)
			}
		})
	}
	var producerGroup sync.WaitGroup
	for p := range producers {
		producerGroup.Go(func() {
			for i := range keysEach {
				q.Add(p*keysEach + i)
			}
		})
	}
	producerGroup.Wait()
	q.ShutDown()
	workerGroup.Wait()
	for key := range counts {
		if n := counts[key].Load(); n != 1 {
			t.Errorf("key %d processed %d times, want 1", key, n)
		}
	}
}

// BenchmarkAddGetDone measures throughput of the basic cycle: one producer
// adding distinct keys, several workers taking and finishing them. Workers
// do no work, so this is the queue's own cost per key (lock contention
// included), the ceiling on how fast a controller can cycle keys.
func BenchmarkAddGetDone(b *testing.B) {
	for _, workers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			q := New(Options[int]{})
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					for {
						key, shutdown := q.Get()
						if shutdown {
							return
						}
						q.Done(key)
					}
				})
			}
			b.ResetTimer()
			for i := range b.N {
				q.Add(i)
			}
			// Timed too: an op is a key added, handed out and finished.
			q.ShutDown()
			wg.Wait()
		})
	}
}

// BenchmarkAddHotKeys measures Add from many goroutines on a few keys, the
// common case of an informer resync: mostly dedup hits.
func BenchmarkAddHotKeys(b *testing.B) {
	q := New(Options[int]{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				q.Done(key)
			}
		})
	}
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			q.Add(int(next.Add(1) % 64))
		}
	})
	q.ShutDown()
	wg.Wait()
}
