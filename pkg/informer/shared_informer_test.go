package informer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
)

func newTestClock() *clock.Fake {
	return clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
}

// recordingHandler writes down every call as a short string:
//
//	add a@1 initial · add c@3 · update a@1→a@4 · delete b@5 · delete tombstone b@2
type recordingHandler struct {
	mu    sync.Mutex
	calls []string
	// gate, when set, is waited on at the start of every call: a slow handler.
	gate chan struct{}
}

func (h *recordingHandler) record(s string) {
	if h.gate != nil {
		<-h.gate
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, s)
}

func (h *recordingHandler) OnAdd(obj api.Object, isInInitialList bool) {
	s := "add " + describe(obj)
	if isInInitialList {
		s += " initial"
	}
	h.record(s)
}

func (h *recordingHandler) OnUpdate(oldObj, newObj api.Object) {
	h.record("update " + describe(oldObj) + "→" + describe(newObj))
}

func (h *recordingHandler) OnDelete(obj any) {
	switch o := obj.(type) {
	case api.Object:
		h.record("delete " + describe(o))
	case DeletedFinalStateUnknown:
		h.record("delete tombstone " + describe(o.Obj))
	default:
		h.record(fmt.Sprintf("delete %T", obj))
	}
}

func (h *recordingHandler) recorded() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.calls)
}

// runInformer starts inf and returns a function that stops it and waits.
func runInformer(t *testing.T, inf SharedIndexInformer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// forEachFIFO runs test once per FIFO kind, as subtests named "delta" and
// "real": the informer's behaviour must hold with either queue.
func forEachFIFO(t *testing.T, test func(t *testing.T, kind FIFOKind)) {
	for _, kind := range FIFOKinds {
		t.Run(string(kind), func(t *testing.T) { test(t, kind) })
	}
}

func newPodInformer(lw ListerWatcher, resync time.Duration, opts ...Option) SharedIndexInformer {
	opts = append([]Option{WithLogger(quietLogger), WithName("pods")}, opts...)
	return NewSharedIndexInformer(lw, &api.Pod{}, resync, Indexers{NamespaceIndex: MetaNamespaceIndexFunc}, opts...)
}

func mustAddHandler(t *testing.T, inf SharedIndexInformer, h ResourceEventHandler) ResourceEventHandlerRegistration {
	t.Helper()
	reg, err := inf.AddEventHandler(h)
	if err != nil {
		t.Fatalf("AddEventHandler: %v", err)
	}
	return reg
}

// cacheContents is the cache as sorted "name@rv" strings.
func cacheContents(inf SharedIndexInformer) []string {
	var out []string
	for _, o := range inf.GetStore().List() {
		out = append(out, describe(o))
	}
	slices.Sort(out)
	return out
}

func TestInformerDeliversTheInitialListThenChanges(t *testing.T) {
	forEachFIFO(t, func(t *testing.T, kind FIFOKind) {
		synctest.Test(t, func(t *testing.T) {
			lw := newFakeListWatch()
			a := lw.create(fixturePod("default", "a"))
			b := lw.create(fixturePod("default", "b"))
			inf := newPodInformer(lw, 0, WithFIFO(kind))
			h := &recordingHandler{}
			reg := mustAddHandler(t, inf, h)
			if inf.HasSynced() || reg.HasSynced() {
				t.Fatal("synced before Run")
			}
			stop := runInformer(t, inf)
			defer stop()
			synctest.Wait()
			if !inf.HasSynced() || !reg.HasSynced() {
				t.Fatalf("informer synced %v, handler synced %v after the initial list", inf.HasSynced(), reg.HasSynced())
			}

			lw.create(fixturePod("default", "c"))
			lw.update(a)
			lw.remove(b)
			synctest.Wait()

			want := []string{"add a@1 initial", "add b@2 initial", "add c@3", "update a@1→a@4", "delete b@5"}
			if got := h.recorded(); !slices.Equal(got, want) {
				t.Errorf("handler calls:\n got %q\nwant %q", got, want)
			}
			if got := cacheContents(inf); !slices.Equal(got, []string{"a@4", "c@3"}) {
				t.Errorf("cache %v", got)
			}
			if got := inf.LastSyncResourceVersion(); got != "5" {
				t.Errorf("LastSyncResourceVersion = %q", got)
			}
		})
	})
}

func TestInformerRelistAfterGoneDeliversTombstones(t *testing.T) {
	forEachFIFO(t, func(t *testing.T, kind FIFOKind) {
		synctest.Test(t, func(t *testing.T) {
			lw := newFakeListWatch()
			lw.create(fixturePod("default", "a"))
			b := lw.create(fixturePod("default", "b"))
			c := lw.create(fixturePod("default", "c"))
			inf := newPodInformer(lw, 0, WithFIFO(kind))
			h := &recordingHandler{}
			mustAddHandler(t, inf, h)
			stop := runInformer(t, inf)
			defer stop()
			synctest.Wait()

			lw.hold()
			lw.breakWatches()
			synctest.Wait()
			lw.remove(b)
			lw.update(c)
			lw.compact()
			lw.release()
			passBackoff()

			// a is unchanged: a relist's unchanged objects are syncs, which go
			// only to handlers whose resync is due (none here). The DeltaFIFO
			// queues the listed objects first and the tombstones after them;
			// the RealFIFO queues the tombstones first, as upstream.
			want := []string{"add a@1 initial", "add b@2 initial", "add c@3 initial",
				"update c@3→c@5", "delete tombstone b@2"}
			if kind == FIFOReal {
				want = []string{"add a@1 initial", "add b@2 initial", "add c@3 initial",
					"delete tombstone b@2", "update c@3→c@5"}
			}
			if got := h.recorded(); !slices.Equal(got, want) {
				t.Errorf("handler calls:\n got %q\nwant %q", got, want)
			}
			if got := cacheContents(inf); !slices.Equal(got, []string{"a@1", "c@5"}) {
				t.Errorf("cache %v", got)
			}
		})
	})
}

func TestInformerResumesABrokenWatchWithoutLossOrDuplicates(t *testing.T) {
	forEachFIFO(t, func(t *testing.T, kind FIFOKind) {
		synctest.Test(t, func(t *testing.T) {
			lw := newFakeListWatch()
			inf := newPodInformer(lw, 0, WithFIFO(kind))
			h := &recordingHandler{}
			mustAddHandler(t, inf, h)
			stop := runInformer(t, inf)
			defer stop()
			synctest.Wait()

			var want []string
			pods := map[string]api.Object{}
			for i := range 30 {
				name := fmt.Sprintf("p%d", i%5)
				switch old, ok := pods[name]; {
				case !ok:
					pods[name] = lw.create(fixturePod("default", name))
					want = append(want, "add "+describe(pods[name]))
				case i%7 == 0:
					gone := lw.remove(old)
					delete(pods, name)
					want = append(want, "delete "+describe(gone))
				default:
					pods[name] = lw.update(old)
					want = append(want, "update "+describe(old)+"→"+describe(pods[name]))
				}
				if i%4 == 3 {
					lw.breakWatches()
				}
				if i%6 == 5 {
					synctest.Wait()
				}
			}
			synctest.Wait()

			// The DeltaFIFO hands out all of a key's changes together, so the
			// order across keys may differ from the order of the writes; per
			// key it is exact. The RealFIFO keeps the order of the writes.
			got := h.recorded()
			if len(got) != len(want) {
				t.Errorf("%d handler calls, want %d:\n got %q\nwant %q", len(got), len(want), got, want)
			}
			if kind == FIFOReal && !slices.Equal(got, want) {
				t.Errorf("the RealFIFO delivered out of write order:\n got %q\nwant %q", got, want)
			}
			gotByPod, wantByPod := callsByPod(got), callsByPod(want)
			for name, w := range wantByPod {
				if !slices.Equal(gotByPod[name], w) {
					t.Errorf("calls for %s:\n got %q\nwant %q", name, gotByPod[name], w)
				}
			}
			lists, watches := lw.calls()
			if len(lists) != 1 {
				t.Errorf("listed %d times; a broken watch must resume, not relist", len(lists))
			}
			if len(watches) < 5 {
				t.Errorf("only %d watches: the test did not break the watch", len(watches))
			}
		})
	})
}

// callsByPod groups recorded calls ("update p1@2→p1@7") by pod name.
func callsByPod(calls []string) map[string][]string {
	out := map[string][]string{}
	for _, c := range calls {
		fields := strings.Fields(c)
		name, _, _ := strings.Cut(fields[1], "@")
		out[name] = append(out[name], c)
	}
	return out
}

func TestInformerResync(t *testing.T) {
	forEachFIFO(t, func(t *testing.T, kind FIFOKind) {
		synctest.Test(t, func(t *testing.T) {
			lw := newFakeListWatch()
			lw.create(fixturePod("default", "a"))
			lw.create(fixturePod("default", "b"))
			var mu sync.Mutex
			var syncDeltas []string
			tracer := Tracer(func(stage, key, detail string) {
				if stage == StageDelta && strings.Contains(detail, "type=Sync") {
					mu.Lock()
					syncDeltas = append(syncDeltas, key)
					mu.Unlock()
				}
			})
			inf := newPodInformer(lw, 30*time.Second, WithTrace(tracer), WithFIFO(kind))
			every30s, never, every60s := &recordingHandler{}, &recordingHandler{}, &recordingHandler{}
			mustAddHandler(t, inf, every30s)
			if _, err := inf.AddEventHandlerWithResyncPeriod(never, 0); err != nil {
				t.Fatal(err)
			}
			if _, err := inf.AddEventHandlerWithResyncPeriod(every60s, time.Minute); err != nil {
				t.Fatal(err)
			}
			stop := runInformer(t, inf)
			defer stop()
			synctest.Wait()

			time.Sleep(61 * time.Second)
			synctest.Wait()

			initial := []string{"add a@1 initial", "add b@2 initial"}
			resync := []string{"update a@1→a@1", "update b@2→b@2"}
			check := func(name string, h *recordingHandler, want []string) {
				t.Helper()
				// Within one resync the objects come in no particular order.
				got := h.recorded()
				slices.Sort(got[min(2, len(got)):])
				slices.Sort(want[2:])
				if !slices.Equal(got, want) {
					t.Errorf("%s handler:\n got %q\nwant %q", name, got, want)
				}
			}
			check("30s", every30s, slices.Concat(initial, resync, resync))
			check("no-resync", never, initial)
			check("60s", every60s, slices.Concat(initial, resync))
			mu.Lock()
			defer mu.Unlock()
			if len(syncDeltas) != 4 {
				t.Errorf("Sync deltas %v, want a and b twice", syncDeltas)
			}
		})
	})
}

func TestInformerHandlerAddedLateGetsTheCache(t *testing.T) {
	forEachFIFO(t, func(t *testing.T, kind FIFOKind) {
		synctest.Test(t, func(t *testing.T) {
			lw := newFakeListWatch()
			a := lw.create(fixturePod("default", "a"))
			lw.create(fixturePod("default", "b"))
			inf := newPodInformer(lw, 0, WithFIFO(kind))
			early := &recordingHandler{}
			mustAddHandler(t, inf, early)
			stop := runInformer(t, inf)
			defer stop()
			synctest.Wait()
			lw.update(a)
			synctest.Wait()

			late := &recordingHandler{}
			reg := mustAddHandler(t, inf, late)
			lw.create(fixturePod("default", "c"))
			synctest.Wait()

			got := late.recorded()
			slices.Sort(got[:2]) // the cache replay comes in no particular order
			want := []string{"add a@3 initial", "add b@2 initial", "add c@4"}
			if !slices.Equal(got, want) {
				t.Errorf("late handler:\n got %q\nwant %q", got, want)
			}
			if !reg.HasSynced() {
				t.Error("late handler not synced after its replay")
			}
		})
	})
}

func TestInformerSlowHandlerDoesNotBlockOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newFakeListWatch()
		inf := newPodInformer(lw, 0)
		slow := &recordingHandler{gate: make(chan struct{})}
		fast := &recordingHandler{}
		slowReg := mustAddHandler(t, inf, slow)
		fastReg := mustAddHandler(t, inf, fast)
		stop := runInformer(t, inf)
		defer stop()
		synctest.Wait()

		var want []string
		for i := range 200 {
			p := lw.create(fixturePod("default", fmt.Sprintf("p%03d", i)))
			want = append(want, "add "+describe(p))
		}
		synctest.Wait()

		// The slow handler is stuck in its first call, yet the cache and
		// the fast handler have everything.
		if got := fast.recorded(); !slices.Equal(got, want) {
			t.Errorf("fast handler got %d of %d notifications", len(got), len(want))
		}
		if n := len(inf.GetStore().ListKeys()); n != 200 {
			t.Errorf("cache holds %d of 200 pods while a handler is stuck", n)
		}
		if got := slow.recorded(); len(got) != 0 {
			t.Errorf("slow handler recorded %d calls through a closed gate", len(got))
		}
		if !fastReg.HasSynced() || !slowReg.HasSynced() {
			t.Errorf("registrations synced: fast %v slow %v (the initial list was empty)", fastReg.HasSynced(), slowReg.HasSynced())
		}

		close(slow.gate)
		synctest.Wait()
		if got := slow.recorded(); !slices.Equal(got, want) {
			t.Errorf("slow handler, once released, got %d notifications, want all %d in order", len(got), len(want))
		}
	})
}

func TestInformerRegistrationSyncWaitsForTheHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newFakeListWatch()
		lw.create(fixturePod("default", "a"))
		inf := newPodInformer(lw, 0)
		slow := &recordingHandler{gate: make(chan struct{})}
		reg := mustAddHandler(t, inf, slow)
		stop := runInformer(t, inf)
		defer stop()
		synctest.Wait()
		if !inf.HasSynced() {
			t.Fatal("informer not synced")
		}
		if reg.HasSynced() {
			t.Error("registration synced while its handler still holds the initial add")
		}
		close(slow.gate)
		synctest.Wait()
		if !reg.HasSynced() {
			t.Error("registration not synced after the handler returned")
		}
	})
}

func TestInformerRemoveEventHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newFakeListWatch()
		inf := newPodInformer(lw, 0)
		kept, removed := &recordingHandler{}, &recordingHandler{}
		mustAddHandler(t, inf, kept)
		reg := mustAddHandler(t, inf, removed)
		stop := runInformer(t, inf)
		defer stop()
		synctest.Wait()
		lw.create(fixturePod("default", "a"))
		synctest.Wait()
		if err := inf.RemoveEventHandler(reg); err != nil {
			t.Fatal(err)
		}
		if err := inf.RemoveEventHandler(reg); err == nil {
			t.Error("removing a handler twice did not fail")
		}
		lw.create(fixturePod("default", "b"))
		synctest.Wait()
		if got := removed.recorded(); !slices.Equal(got, []string{"add a@1"}) {
			t.Errorf("removed handler got %q", got)
		}
		if got := kept.recorded(); len(got) != 2 {
			t.Errorf("kept handler got %q", got)
		}
	})
}

func TestInformerHandlerPanicIsContained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newFakeListWatch()
		inf := newPodInformer(lw, 0)
		var calls atomic.Int32
		mustAddHandler(t, inf, ResourceEventHandlerFuncs{AddFunc: func(api.Object) {
			calls.Add(1)
			panic("handler bug")
		}})
		stop := runInformer(t, inf)
		defer stop()
		synctest.Wait()
		lw.create(fixturePod("default", "a"))
		lw.create(fixturePod("default", "b"))
		synctest.Wait()
		if n := calls.Load(); n != 2 {
			t.Errorf("handler called %d times after panicking, want 2", n)
		}
	})
}

func TestInformerAddIndexersOnlyBeforeRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf := newPodInformer(newFakeListWatch(), 0)
		if err := inf.AddIndexers(Indexers{NodeNameIndex: NodeNameIndexFunc}); err != nil {
			t.Fatalf("before Run: %v", err)
		}
		stop := runInformer(t, inf)
		synctest.Wait()
		if err := inf.AddIndexers(Indexers{OwnerUIDIndex: OwnerUIDIndexFunc}); err == nil {
			t.Error("AddIndexers on a running informer did not fail")
		}
		stop()
		if _, err := inf.AddEventHandler(&recordingHandler{}); err == nil {
			t.Error("AddEventHandler on a stopped informer did not fail")
		}
	})
}

func TestWaitForCacheSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		ready := false
		synced := func() bool { mu.Lock(); defer mu.Unlock(); return ready }
		always := func() bool { return true }
		go func() {
			time.Sleep(time.Second)
			mu.Lock()
			ready = true
			mu.Unlock()
		}()
		start := time.Now()
		if !WaitForCacheSync(t.Context(), always, synced) {
			t.Fatal("WaitForCacheSync gave up")
		}
		if waited := time.Since(start); waited < time.Second || waited > 1100*time.Millisecond {
			t.Errorf("returned after %v, want within one poll of 1s", waited)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if WaitForCacheSync(ctx, func() bool { return false }) {
			t.Error("WaitForCacheSync reported success for a cache that never syncs")
		}
	})
}

func TestFilteringResourceEventHandler(t *testing.T) {
	labelled := fixturePod("default", "in", withLabels("app", "web"), withRV("2"))
	plain := fixturePod("default", "in", withRV("1"))
	isWeb := func(obj any) bool {
		o, ok := obj.(api.Object)
		return ok && o.GetObjectMeta().Labels["app"] == "web"
	}
	tests := []struct {
		name string
		call func(h ResourceEventHandler)
		want []string
	}{
		{"add passing", func(h ResourceEventHandler) { h.OnAdd(labelled, false) }, []string{"add in@2"}},
		{"add filtered out", func(h ResourceEventHandler) { h.OnAdd(plain, false) }, nil},
		{"update both pass", func(h ResourceEventHandler) { h.OnUpdate(labelled, labelled) }, []string{"update in@2→in@2"}},
		{"update starts matching", func(h ResourceEventHandler) { h.OnUpdate(plain, labelled) }, []string{"add in@2"}},
		{"update stops matching", func(h ResourceEventHandler) { h.OnUpdate(labelled, plain) }, []string{"delete in@2"}},
		{"update neither", func(h ResourceEventHandler) { h.OnUpdate(plain, plain) }, nil},
		{"delete passing", func(h ResourceEventHandler) { h.OnDelete(labelled) }, []string{"delete in@2"}},
		{"delete filtered out", func(h ResourceEventHandler) { h.OnDelete(plain) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingHandler{}
			tt.call(FilteringResourceEventHandler{FilterFunc: isWeb, Handler: rec})
			if got := rec.recorded(); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// exampleController stands for a controller whose methods are handlers.
type exampleController struct{}

func (exampleController) addPod(api.Object) {}

func TestHandlerName(t *testing.T) {
	var c exampleController
	tests := []struct {
		handler ResourceEventHandler
		want    string
	}{
		{ResourceEventHandlerFuncs{AddFunc: c.addPod}, "informer.exampleController.addPod"},
		{ResourceEventHandlerFuncs{}, "informer.ResourceEventHandlerFuncs"},
		{&recordingHandler{}, "*informer.recordingHandler"},
	}
	for _, tt := range tests {
		if got := handlerName(tt.handler); got != tt.want {
			t.Errorf("handlerName = %q, want %q", got, tt.want)
		}
	}
}
