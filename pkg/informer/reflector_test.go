package informer

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// These tests run in a synctest bubble: time only moves when every
// goroutine is blocked, so back-off and resync delays pass instantly and
// deterministically, and synctest.Wait() means "the reflector has done
// everything it can do now".

// passBackoff lets more virtual time pass than any back-off in these
// tests, then waits until the bubble is idle again. (synctest.Wait alone
// does not move the clock: time passes only when the test goroutine
// sleeps too.)
func passBackoff() {
	time.Sleep(time.Minute)
	synctest.Wait()
}

// runReflector starts r and returns a function that stops it and waits.
func runReflector(t *testing.T, r *Reflector) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

func TestReflectorListsThenWatchesFromTheListResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newFakeListWatch()
		a := lw.create(fixturePod("default", "a"))
		lw.create(fixturePod("default", "b"))
		store := &recordingStore{}
		r := NewReflector("pods", lw, store, ReflectorOptions{ExpectedType: &api.Pod{}, Logger: quietLogger})
		stop := runReflector(t, r)
		defer stop()
		synctest.Wait()

		lw.create(fixturePod("default", "c"))
		lw.update(a)
		lw.remove(a)
		synctest.Wait()

		want := []string{"replace [a@1 b@2] at 2", "add c@3", "update a@4", "delete a@5"}
		if got := store.recorded(); !slices.Equal(got, want) {
			t.Errorf("store calls:\n got %q\nwant %q", got, want)
		}
		lists, watches := lw.calls()
		if len(lists) != 1 || lists[0].ResourceVersion != "0" {
			t.Errorf("lists = %+v, want one at resourceVersion 0", lists)
		}
		if len(watches) != 1 || watches[0].ResourceVersion != "2" || !watches[0].AllowWatchBookmarks {
			t.Fatalf("watches = %+v, want one from 2 with bookmarks", watches)
		}
		if ts := *watches[0].TimeoutSeconds; ts < 300 || ts > 600 {
			t.Errorf("watch timeout %ds, want between 5 and 10 minutes", ts)
		}
		if got := r.LastSyncResourceVersion(); got != "5" {
			t.Errorf("LastSyncResourceVersion = %q, want 5", got)
		}
	})
}

func TestReflectorResumesAnEndedWatchWithoutRelisting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newFakeListWatch()
		a := lw.create(fixturePod("default", "a"))
		store := &recordingStore{}
		r := NewReflector("pods", lw, store, ReflectorOptions{Logger: quietLogger})
		stop := runReflector(t, r)
		defer stop()
		synctest.Wait()

		// Two events reach the watch, then it ends (server timeout or a
		// dropped connection); two more writes happen before the reflector
		// watches again.
		a = lw.update(a)
		lw.create(fixturePod("default", "b"))
		lw.breakWatches()
		a = lw.update(a)
		lw.create(fixturePod("default", "c"))
		synctest.Wait()
		lw.remove(a)
		synctest.Wait()

		want := []string{"replace [a@1] at 1", "update a@2", "add b@3", "update a@4", "add c@5", "delete a@6"}
		if got := store.recorded(); !slices.Equal(got, want) {
			t.Errorf("store calls (none missed, none repeated):\n got %q\nwant %q", got, want)
		}
		lists, watches := lw.calls()
		if len(lists) != 1 {
			t.Errorf("listed %d times, want once", len(lists))
		}
		if got := watchRVs(watches); !slices.Equal(got, []string{"1", "3"}) {
			t.Errorf("watched from %v, want [1 3]", got)
		}
	})
}

func TestReflectorBookmarkOnlyMovesTheResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newFakeListWatch()
		lw.create(fixturePod("default", "a"))
		store := &recordingStore{}
		r := NewReflector("pods", lw, store, ReflectorOptions{Logger: quietLogger})
		stop := runReflector(t, r)
		defer stop()
		synctest.Wait()

		rv := lw.bookmark(&api.Pod{})
		synctest.Wait()
		if got := r.LastSyncResourceVersion(); got != rv {
			t.Errorf("after a bookmark at %s, LastSyncResourceVersion = %q", rv, got)
		}
		lw.breakWatches()
		synctest.Wait()
		if got := store.recorded(); len(got) != 1 {
			t.Errorf("a bookmark reached the store: %q", got)
		}
		_, watches := lw.calls()
		if got := watchRVs(watches); !slices.Equal(got, []string{"1", rv}) {
			t.Errorf("watched from %v, want [1 %s]", got, rv)
		}
	})
}

func TestReflectorRelistsAfterGone(t *testing.T) {
	tests := []struct {
		name string
		// expire makes the reflector's next watch fail with 410.
		expire func(lw *fakeListWatch)
	}{
		{
			name: "ERROR event on the watch stream",
			expire: func(lw *fakeListWatch) {
				lw.compact()
			},
		},
		{
			name: "the watch request itself fails",
			expire: func(lw *fakeListWatch) {
				lw.failNextWatches(apierrors.NewResourceExpired("too old resource version"))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newFakeListWatch()
				lw.create(fixturePod("default", "a"))
				b := lw.create(fixturePod("default", "b"))
				c := lw.create(fixturePod("default", "c"))
				indexer := NewIndexer(MetaNamespaceKeyFunc, Indexers{})
				fifo := NewDeltaFIFO(DeltaFIFOOptions{KnownObjects: indexer})
				r := NewReflector("pods", lw, fifo, ReflectorOptions{Logger: quietLogger})
				stop := runReflector(t, r)
				defer stop()
				synctest.Wait()
				drainInto(t, fifo, indexer)

				// The watch goes down; while it is down b is deleted and c
				// changes, and the history of both is compacted away.
				lw.hold()
				lw.breakWatches()
				synctest.Wait()
				lw.remove(b)
				lw.update(c)
				tt.expire(lw)
				lw.release()
				passBackoff()

				got := map[string][]deltaSummary{}
				for fifo.Len() > 0 {
					d, _ := popDeltas(t, fifo)
					applyDeltasToCache(t, indexer, d)
					for _, s := range summarizeDeltas(t, d) {
						got[s.Key] = append(got[s.Key], s)
					}
				}
				want := map[string][]deltaSummary{
					"default/a": {{Type: Replaced, Key: "default/a", RV: "1"}},
					"default/b": {{Type: Deleted, Key: "default/b", RV: "2", Tombstone: true}},
					"default/c": {{Type: Replaced, Key: "default/c", RV: "5"}},
				}
				for key, w := range want {
					if !slices.Equal(got[key], w) {
						t.Errorf("deltas for %s after the relist:\n got %+v\nwant %+v", key, got[key], w)
					}
				}
				lists, _ := lw.calls()
				if len(lists) != 2 || lists[1].ResourceVersion != "3" {
					t.Errorf("lists = %+v, want a relist not older than 3", lists)
				}
				if got := objectKeysSorted(t, indexer.List()); !slices.Equal(got, []string{"default/a", "default/c"}) {
					t.Errorf("cache after relist holds %v", got)
				}
			})
		})
	}
}

func TestReflectorRetriesARefusedWatchWithoutRelisting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newFakeListWatch()
		lw.create(fixturePod("default", "a"))
		lw.failNextWatches(errConnectionRefused, errConnectionRefused)
		store := &recordingStore{}
		r := NewReflector("pods", lw, store, ReflectorOptions{Logger: quietLogger,
			Backoff: Backoff{Initial: time.Second, Max: 10 * time.Second, Jitter: 0}})
		start := time.Now()
		stop := runReflector(t, r)
		defer stop()
		passBackoff()
		lw.create(fixturePod("default", "b"))
		synctest.Wait()

		lists, watches := lw.calls()
		if len(lists) != 1 {
			t.Errorf("listed %d times, want once", len(lists))
		}
		if got := watchRVs(watches); !slices.Equal(got, []string{"1", "1", "1"}) {
			t.Errorf("watched from %v, want three tries from 1", got)
		}
		// Back-off between the tries: 1 s, then 2 s.
		lw.mu.Lock()
		times := lw.watchTimes
		lw.mu.Unlock()
		if d1, d2 := times[1].Sub(times[0]), times[2].Sub(times[1]); d1 != time.Second || d2 != 2*time.Second {
			t.Errorf("waits between watch tries %v, %v; want 1s, 2s", d1, d2)
		}
		if times[0] != start {
			t.Errorf("first watch after %v, want at once", times[0].Sub(start))
		}
		if got := store.recorded(); !slices.Equal(got, []string{"replace [a@1] at 1", "add b@2"}) {
			t.Errorf("store calls %q", got)
		}
	})
}

func TestReflectorBacksOffAfterAShortWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newFakeListWatch()
		store := &recordingStore{}
		r := NewReflector("pods", lw, store, ReflectorOptions{Logger: quietLogger,
			Backoff: Backoff{Initial: 3 * time.Second, Jitter: 0}})
		stop := runReflector(t, r)
		defer stop()
		synctest.Wait()
		lw.breakWatches() // ends at once, with no event
		passBackoff()

		lw.mu.Lock()
		times := lw.watchTimes
		lw.mu.Unlock()
		lists, watches := lw.calls()
		if len(lists) != 1 || len(watches) != 2 {
			t.Fatalf("lists %d, watches %d; want 1 and 2", len(lists), len(watches))
		}
		if d := times[1].Sub(times[0]); d != 3*time.Second {
			t.Errorf("re-watched after %v, want the 3s back-off", d)
		}
	})
}

func TestReflectorIgnoresEventsOfTheWrongType(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newFakeListWatch()
		store := &recordingStore{}
		r := NewReflector("pods", lw, store, ReflectorOptions{ExpectedType: &api.Pod{}, Logger: quietLogger})
		stop := runReflector(t, r)
		defer stop()
		synctest.Wait()
		node := fixtureNode("n1")
		node.ResourceVersion = "7"
		lw.inject(client.Event{Type: client.Added, Object: node})
		lw.create(fixturePod("default", "a"))
		synctest.Wait()
		if got := store.recorded(); !slices.Equal(got, []string{"replace [] at 0", "add a@1"}) {
			t.Errorf("store calls %q, want the node dropped", got)
		}
		if got := r.LastSyncResourceVersion(); got != "1" {
			t.Errorf("LastSyncResourceVersion = %q: a dropped event moved it", got)
		}
	})
}

func TestReflectorResync(t *testing.T) {
	tests := []struct {
		name         string
		shouldResync func() bool
		want         int
	}{
		{name: "every period", shouldResync: nil, want: 3},
		{name: "ShouldResync says no", shouldResync: func() bool { return false }, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newFakeListWatch()
				store := &recordingStore{}
				r := NewReflector("pods", lw, store, ReflectorOptions{Logger: quietLogger,
					ResyncPeriod: 10 * time.Second, ShouldResync: tt.shouldResync})
				stop := runReflector(t, r)
				time.Sleep(35 * time.Second)
				synctest.Wait()
				stop()
				got := 0
				for _, c := range store.recorded() {
					if c == "resync" {
						got++
					}
				}
				if got != tt.want {
					t.Errorf("%d resyncs in 35s at a 10s period, want %d", got, tt.want)
				}
			})
		})
	}
}

func TestBackoffDelays(t *testing.T) {
	tests := []struct {
		name string
		// gaps is how long passes before each failure.
		gaps []time.Duration
		want []time.Duration
	}{
		{
			name: "doubles up to the cap",
			gaps: []time.Duration{0, 0, 0, 0, 0, 0, 0, 0},
			want: []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond,
				6400 * time.Millisecond, 12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second},
		},
		{
			name: "starts over after a quiet spell",
			gaps: []time.Duration{0, time.Minute, 3 * time.Minute},
			want: []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 800 * time.Millisecond},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClock()
			b := newBackoffTimer(Backoff{Jitter: 0}, c)
			for i, gap := range tt.gaps {
				c.Step(gap)
				if got := b.next(); got != tt.want[i] {
					t.Errorf("failure %d: delay %v, want %v", i, got, tt.want[i])
				}
			}
		})
	}
}

func TestBackoffJitterStaysInRange(t *testing.T) {
	b := newBackoffTimer(DefaultBackoff(), newTestClock())
	for range 100 {
		b.current = 0
		if d := b.next(); d < 800*time.Millisecond || d > 1600*time.Millisecond {
			t.Fatalf("first delay %v outside [800ms, 1.6s]", d)
		}
	}
}

// watchRVs lists the resourceVersions the watches started from.
func watchRVs(watches []client.ListOptions) []string {
	out := make([]string, len(watches))
	for i, w := range watches {
		out[i] = w.ResourceVersion
	}
	return out
}

// drainInto pops everything queued and applies it to indexer.
func drainInto(t *testing.T, fifo *DeltaFIFO, indexer Indexer) {
	t.Helper()
	for fifo.Len() > 0 {
		d, _ := popDeltas(t, fifo)
		applyDeltasToCache(t, indexer, d)
	}
}

func TestReflectorDropWatchWatchesAgainFromTheLastResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newFakeListWatch()
		a := lw.create(fixturePod("default", "a"))
		store := &recordingStore{}
		trace := &traceRecorder{}
		r := NewReflector("pods", lw, store, ReflectorOptions{Logger: quietLogger, Trace: trace.tracer()})
		if r.DropWatch() {
			t.Error("DropWatch before Run reported a watch to drop")
		}
		stop := runReflector(t, r)
		defer stop()
		synctest.Wait()

		lw.update(a)
		synctest.Wait()
		if !r.DropWatch() {
			t.Fatal("DropWatch found no watch in progress")
		}
		// Written while the reflector is between watches: the next watch,
		// from resourceVersion 2, replays it.
		lw.create(fixturePod("default", "b"))
		synctest.Wait()

		want := []string{"replace [a@1] at 1", "update a@2", "add b@3"}
		if got := store.recorded(); !slices.Equal(got, want) {
			t.Errorf("store calls (none missed, none repeated):\n got %q\nwant %q", got, want)
		}
		lists, watches := lw.calls()
		if len(lists) != 1 {
			t.Errorf("listed %d times, want once: a dropped watch needs no relist", len(lists))
		}
		if got := watchRVs(watches); !slices.Equal(got, []string{"1", "2"}) {
			t.Errorf("watched from %v, want [1 2]: again at once, from the last resourceVersion seen", got)
		}
		if !slices.Contains(trace.recorded(), "rewatch  rv=2 reason=dropped") {
			t.Errorf("trace %q has no rewatch line from rv 2", trace.recorded())
		}
	})
}
