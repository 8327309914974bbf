package informer

// Integration tests: informers against a real in-process apiserver on a
// temporary embedded etcd. They check the guarantees a controller relies
// on — every change seen, per object in resourceVersion order, a cache that
// ends equal to a fresh LIST — through concurrent writers, an apiserver
// restart and a compaction that forces a relist.

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver"
	"kplane/pkg/client"
	"kplane/pkg/informer/workqueue"
	"kplane/test/framework"
)

// newTestClient returns a client for a's admin kubeconfig.
func newTestClient(t *testing.T, a *framework.APIServer) *client.Client {
	t.Helper()
	return a.Client(t, func(cfg *client.Config) {
		cfg.UserAgent = "informer-integration-test"
		cfg.Logger = quietLogger
	})
}

func testPod(ns, name string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "informer-test"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
	}
}

// observed is one notification a handler received, reduced to what the
// tests check.
type observed struct {
	kind      string // add, update, delete
	rv        int64
	tombstone bool
}

// keyRecorder is a handler that files every notification under its key.
type keyRecorder struct {
	mu    sync.Mutex
	byKey map[string][]observed
	// all are the notifications in the order the handler got them.
	all   []observed
	total int
}

func newKeyRecorder() *keyRecorder { return &keyRecorder{byKey: map[string][]observed{}} }

func (r *keyRecorder) note(obj any, kind string) {
	key, _ := DeletionHandlingMetaNamespaceKeyFunc(obj)
	o := observed{kind: kind}
	o.rv, _ = strconv.ParseInt(resourceVersionOf(obj), 10, 64)
	_, o.tombstone = obj.(DeletedFinalStateUnknown)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byKey[key] = append(r.byKey[key], o)
	r.all = append(r.all, o)
	r.total++
}

func (r *keyRecorder) OnAdd(obj api.Object, _ bool)  { r.note(obj, "add") }
func (r *keyRecorder) OnUpdate(_, newObj api.Object) { r.note(newObj, "update") }
func (r *keyRecorder) OnDelete(obj any)              { r.note(obj, "delete") }
func (r *keyRecorder) count() int                    { r.mu.Lock(); defer r.mu.Unlock(); return r.total }
func (r *keyRecorder) events(key string) []observed {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.byKey[key])
}
func (r *keyRecorder) keys() []string { r.mu.Lock(); defer r.mu.Unlock(); return mapKeys(r.byKey) }
func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// checkRVOrder fails the test if any key's notifications go back in
// resourceVersion. (A relist's tombstone carries the last known version, so
// equal neighbours are allowed there.)
func (r *keyRecorder) checkRVOrder(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for key, evs := range r.byKey {
		for i := 1; i < len(evs); i++ {
			if evs[i].rv < evs[i-1].rv || (evs[i].rv == evs[i-1].rv && !evs[i].tombstone) {
				t.Errorf("%s: notifications out of resourceVersion order: %+v", key, evs)
				break
			}
		}
	}
}

// checkGlobalRVOrder fails the test if the notifications, across all
// keys, ever go back in resourceVersion: what an in-order FIFO promises.
func (r *keyRecorder) checkGlobalRVOrder(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := 1; i < len(r.all); i++ {
		if r.all[i].rv < r.all[i-1].rv {
			t.Errorf("notification %d at resourceVersion %d came after one at %d", i, r.all[i].rv, r.all[i-1].rv)
			return
		}
	}
}

// checkConvergence waits until the informer's cache equals a fresh LIST
// (same keys, same resourceVersions) and the recorder's last word on every
// key agrees with it.
func checkConvergence(t *testing.T, c *client.Client, inf SharedIndexInformer, rec *keyRecorder) {
	t.Helper()
	ctx := t.Context()
	framework.Eventually(t, 20*time.Second, func() (bool, string) {
		list, err := c.Pods("").List(ctx, client.ListOptions{})
		if err != nil {
			return false, fmt.Sprintf("list: %v", err)
		}
		want := map[string]string{}
		for _, p := range list.Items {
			want[p.Namespace+"/"+p.Name] = p.ResourceVersion
		}
		got := map[string]string{}
		for _, o := range inf.GetStore().List() {
			key, _ := MetaNamespaceKeyFunc(o)
			got[key] = o.GetObjectMeta().ResourceVersion
		}
		if len(got) != len(want) {
			return false, fmt.Sprintf("cache has %d pods, LIST %d", len(got), len(want))
		}
		for k, rv := range want {
			if got[k] != rv {
				return false, fmt.Sprintf("%s: cache at %q, LIST at %s", k, got[k], rv)
			}
		}
		for _, key := range rec.keys() {
			evs := rec.events(key)
			last := evs[len(evs)-1]
			rv, exists := want[key]
			switch {
			case exists && (last.kind == "delete" || strconv.FormatInt(last.rv, 10) != rv):
				return false, fmt.Sprintf("%s exists at %s but the handler last saw %+v", key, rv, last)
			case !exists && last.kind != "delete":
				return false, fmt.Sprintf("%s is gone but the handler last saw %+v", key, last)
			}
		}
		return true, ""
	})
}

// startPodInformer runs a pod informer over c with rec as its handler and
// waits for it to sync.
func startPodInformer(t *testing.T, lw ListerWatcher, rec ResourceEventHandler, opts ...Option) SharedIndexInformer {
	t.Helper()
	opts = append([]Option{WithName("pods"), WithLogger(quietLogger),
		// Tests should not wait 800 ms+ on every reconnect.
		WithBackoff(Backoff{Initial: 50 * time.Millisecond, Max: time.Second, Jitter: 0.5})}, opts...)
	inf := NewSharedIndexInformer(lw, &api.Pod{}, 0, Indexers{NamespaceIndex: MetaNamespaceIndexFunc}, opts...)
	if _, err := inf.AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	syncCtx, cancelSync := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancelSync()
	if !WaitForCacheSync(syncCtx, inf.HasSynced) {
		t.Fatal("pod informer did not sync")
	}
	return inf
}

// podWrite is one write a writer made and the resourceVersion it got.
type podWrite struct {
	kind string
	rv   int64
}

// writePods makes, for each name, a create, an update and (for every other
// name) a delete, with `writers` goroutines sharing the names. It returns
// the writes per key; deletes have rv 0 (the client does not return the
// deletion's resourceVersion).
func writePods(t *testing.T, c *client.Client, ns string, names []string, writers int) map[string][]podWrite {
	t.Helper()
	ctx := t.Context()
	pods := c.Pods(ns)
	var mu sync.Mutex
	written := map[string][]podWrite{}
	record := func(name, kind string, rv string) {
		n, _ := strconv.ParseInt(rv, 10, 64)
		mu.Lock()
		defer mu.Unlock()
		written[ns+"/"+name] = append(written[ns+"/"+name], podWrite{kind, n})
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := w; i < len(names); i += writers {
				name := names[i]
				created, err := pods.Create(ctx, testPod(ns, name), client.CreateOptions{})
				if err != nil {
					errs <- fmt.Errorf("create %s: %w", name, err)
					return
				}
				record(name, "add", created.ResourceVersion)
				created.Labels["generation"] = "2"
				updated, err := pods.Update(ctx, created, client.UpdateOptions{})
				if err != nil {
					errs <- fmt.Errorf("update %s: %w", name, err)
					return
				}
				record(name, "update", updated.ResourceVersion)
				if i%2 == 0 {
					zero := int64(0)
					if err := pods.Delete(ctx, name, client.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
						errs <- fmt.Errorf("delete %s: %w", name, err)
						return
					}
					record(name, "delete", "0")
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return written
}

func podNamesFor(prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%04d", prefix, i)
	}
	return names
}

func TestInformerSeesEveryWriteFromConcurrentWriters(t *testing.T) {
	forEachFIFO(t, testInformerSeesEveryWriteFromConcurrentWriters)
}

func testInformerSeesEveryWriteFromConcurrentWriters(t *testing.T, kind FIFOKind) {
	a := framework.StartAPIServer(t)
	c := newTestClient(t, a)
	rec := newKeyRecorder()
	inf := startPodInformer(t, NewListWatch(c.Pods(""), nil), rec, WithFIFO(kind))

	written := writePods(t, c, "default", podNamesFor("load", 1000), 8)
	total := 0
	for _, ws := range written {
		total += len(ws)
	}
	framework.Eventually(t, 20*time.Second, func() (bool, string) {
		n := rec.count()
		return n >= total, fmt.Sprintf("handler saw %d of %d writes", n, total)
	})

	// Every write, exactly once, per pod in the order it was made, at the
	// resourceVersion the apiserver returned.
	for key, ws := range written {
		evs := rec.events(key)
		if len(evs) != len(ws) {
			t.Errorf("%s: handler saw %+v for writes %+v", key, evs, ws)
			continue
		}
		for i, w := range ws {
			if evs[i].kind != w.kind || (w.rv != 0 && evs[i].rv != w.rv) || evs[i].tombstone {
				t.Errorf("%s: notification %d is %+v, write was %+v", key, i, evs[i], w)
			}
		}
	}
	if n := rec.count(); n != total {
		t.Errorf("handler saw %d notifications for %d writes", n, total)
	}
	rec.checkRVOrder(t)
	if kind == FIFOReal {
		// In order across keys too: the handler heard of the writes in
		// the order the watch sent them, which is resourceVersion order.
		rec.checkGlobalRVOrder(t)
	}
	checkConvergence(t, c, inf, rec)
}

// apiServerPort is the port a's URL names.
func apiServerPort(t *testing.T, a *framework.APIServer) int {
	t.Helper()
	u, err := url.Parse(a.URL())
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return port
}

func TestInformerSurvivesAnAPIServerRestart(t *testing.T) {
	dir := t.TempDir()
	a := framework.StartAPIServerIn(t, dir)
	port := apiServerPort(t, a)
	c := newTestClient(t, a)
	rec := newKeyRecorder()
	lw := newCountingListWatch(NewListWatch(c.Pods(""), nil))
	inf := startPodInformer(t, lw, rec)

	writePods(t, c, "default", podNamesFor("before", 100), 4)
	// Stop the apiserver while the informer watches, then bring it back on
	// the same data and port, and keep writing: the informer reconnects
	// (resuming its watch or, if the new server cannot replay that far,
	// relisting) and must lose nothing.
	a.Stop()
	a = framework.StartAPIServerWith(t, dir, func(o *apiserver.Options) { o.SecurePort = port })
	writePods(t, c, "default", podNamesFor("after", 100), 4)
	// Touch a pod written before the restart, so an update that crosses it
	// is checked too.
	pod, err := c.Pods("default").Get(t.Context(), "before-0001", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Labels["generation"] = "3"
	if _, err := c.Pods("default").Update(t.Context(), pod, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	checkConvergence(t, c, inf, rec)
	rec.checkRVOrder(t)
	for _, key := range []string{"default/before-0000", "default/after-0000"} {
		if evs := rec.events(key); len(evs) == 0 || evs[len(evs)-1].kind != "delete" {
			t.Errorf("%s was deleted; handler saw %+v", key, evs)
		}
	}
	if n := lw.watchCount(); n < 2 {
		t.Errorf("only %d watches: the restart did not interrupt the watch", n)
	}
	t.Logf("across the restart: %d lists, %d watches, 410 seen: %v", lw.listCount(), lw.watchCount(), lw.sawGone())
}

func TestInformerRelistsWhenItsResourceVersionIsCompacted(t *testing.T) {
	forEachFIFO(t, testInformerRelistsWhenItsResourceVersionIsCompacted)
}

func testInformerRelistsWhenItsResourceVersionIsCompacted(t *testing.T, kind FIFOKind) {
	a := framework.StartAPIServer(t)
	c := newTestClient(t, a)
	rec := newKeyRecorder()
	lw := newCountingListWatch(NewListWatch(c.Pods(""), nil))
	inf := startPodInformer(t, lw, rec, WithFIFO(kind))
	names := podNamesFor("keep", 20)
	writePods(t, c, "default", names, 4) // leaves the odd ones
	checkConvergence(t, c, inf, rec)

	// Take the watch down and hold it there; meanwhile delete and change
	// pods, then compact etcd past the informer's resourceVersion. Its
	// resumed watch gets 410 Expired, and only a relist can find the
	// deletions: as tombstones.
	lw.hold()
	lw.breakWatches()
	ctx := t.Context()
	pods := c.Pods("default")
	for i, name := range names {
		if i%2 == 0 {
			continue
		}
		switch i % 4 {
		case 1:
			if err := pods.Delete(ctx, name, client.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		case 3:
			p, err := pods.Get(ctx, name, client.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p.Labels["generation"] = "3"
			if _, err := pods.Update(ctx, p, client.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := pods.Create(ctx, testPod("default", "born-while-away"), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rev, err := a.Store().CurrentRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Store().Compact(ctx, rev); err != nil {
		t.Fatalf("compact: %v", err)
	}
	listsBefore := lw.listCount()
	lw.release()

	checkConvergence(t, c, inf, rec)
	rec.checkRVOrder(t)
	if n := lw.listCount(); n != listsBefore+1 {
		t.Errorf("%d lists after the compaction, want exactly one relist", n-listsBefore)
	}
	if !lw.sawGone() {
		t.Error("the resumed watch never reported 410 Gone")
	}
	for i, name := range names {
		if i%4 != 1 {
			continue
		}
		evs := rec.events("default/" + name)
		if last := evs[len(evs)-1]; last.kind != "delete" || !last.tombstone {
			t.Errorf("%s deleted while the watch was down: handler last saw %+v, want a tombstone", name, last)
		}
	}
}

func TestSharedInformerFactory(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newTestClient(t, a)
	ctx := t.Context()
	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-a"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"default", "team-a"} {
		if _, err := c.Pods(ns).Create(ctx, testPod(ns, "web"), client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	f := NewSharedInformerFactory(c, 0, WithNamespace("team-a"), WithLogger(quietLogger))
	pods := f.Pods()
	if f.Pods().Informer() != pods.Informer() {
		t.Error("two calls of Pods() gave two informers")
	}
	nodes := f.Nodes()
	f.Start(ctx)
	f.Start(ctx) // a second Start must not run the informers twice
	synced := f.WaitForCacheSync(ctx)
	if !synced[client.PodsResource] || !synced[client.NodesResource] || len(synced) != 2 {
		t.Fatalf("WaitForCacheSync = %v", synced)
	}

	// The namespace option limits pods, but not cluster-scoped nodes.
	got, err := pods.Lister().List(nil)
	if err != nil || len(got) != 1 || got[0].Namespace != "team-a" {
		t.Errorf("pod lister in team-a: %v, %v", podNames(got), err)
	}
	if _, err := pods.Lister().Namespace("default").Get("web"); !apierrors.IsNotFound(err) {
		t.Errorf("pod outside the factory's namespace: err %v, want NotFound", err)
	}
	if _, err := nodes.Lister().List(nil); err != nil {
		t.Errorf("node lister: %v", err)
	}

	// An informer requested after Start runs once Start is called again.
	cms := f.ConfigMaps()
	f.Start(ctx)
	if !f.WaitForCacheSync(ctx)[client.ConfigMapsResource] || !cms.Informer().HasSynced() {
		t.Error("config map informer requested after Start did not sync")
	}
	f.Shutdown()
	f.Start(ctx) // after Shutdown: nothing starts
}

func TestTraceOfAPodCreateAgainstTheAPIServer(t *testing.T) {
	forEachFIFO(t, testTraceOfAPodCreateAgainstTheAPIServer)
}

func testTraceOfAPodCreateAgainstTheAPIServer(t *testing.T, kind FIFOKind) {
	a := framework.StartAPIServer(t)
	c := newTestClient(t, a)
	ctx := t.Context()

	var mu sync.Mutex
	var lines []string
	var popDetail string
	var logBuf strings.Builder
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logBuf}, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	sink := SlogTracer(logger)
	tracer := Tracer(func(stage, key, detail string) {
		if key != "default/traced" {
			return
		}
		mu.Lock()
		lines = append(lines, stage)
		if stage == StagePop {
			popDetail = detail
		}
		mu.Unlock()
		sink(stage, key, detail)
	})
	f := NewSharedInformerFactory(c, 0, WithTrace(tracer), WithLogger(quietLogger), WithFIFO(kind))
	// A controller in miniature: its handler only enqueues the key, and one
	// worker takes keys off the queue. The queue reports to the same tracer.
	queue := workqueue.New(workqueue.Options[string]{Name: "example", Trace: f.Tracer().QueueTrace("example")})
	defer queue.ShutDown()
	c2 := &miniController{queue: queue}
	if _, err := f.Pods().Informer().AddEventHandler(ResourceEventHandlerFuncs{AddFunc: c2.addPod}); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	defer f.Shutdown()
	f.WaitForCacheSync(ctx)
	go c2.worker()

	if _, err := c.Pods("default").Create(ctx, testPod("default", "traced"), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{StageWatch, StageDelta, StagePop, StageStore, StageHandler, StageEnqueue, StageQueue, StageQueue}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		return len(lines) >= len(want), fmt.Sprintf("stages so far %v", lines)
	})
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(lines, want) {
		t.Errorf("stages %v, want %v", lines, want)
	}
	if !strings.Contains(popDetail, "fifo="+string(kind)+" deltas=1") {
		t.Errorf("pop detail %q: the factory's informer does not run the %s FIFO", popDetail, kind)
	}
	t.Logf("trace of one pod create:\n%s", logBuf.String())
}

// miniController is the smallest controller: handler → queue → worker.
type miniController struct {
	queue *workqueue.Queue[string]
}

func (c *miniController) addPod(obj api.Object) {
	key, err := MetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	c.queue.Add(key)
}

func (c *miniController) worker() {
	for {
		key, shutdown := c.queue.Get()
		if shutdown {
			return
		}
		// sync(key) would read the lister and write through the client here.
		c.queue.Done(key)
	}
}

// lockedWriter serialises writes to a strings.Builder.
type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// countingListWatch wraps a real ListerWatcher to count calls, to hold new
// watches back, and to break the running ones, so a test can put the
// informer's watch "down" at a moment of its choosing.
type countingListWatch struct {
	inner ListerWatcher

	mu       sync.Mutex
	lists    int
	watches  int
	gone     bool
	held     chan struct{}
	watchers []client.Watcher
}

func newCountingListWatch(inner ListerWatcher) *countingListWatch {
	return &countingListWatch{inner: inner}
}

func (l *countingListWatch) List(ctx context.Context, opts client.ListOptions) ([]api.Object, string, error) {
	l.mu.Lock()
	l.lists++
	l.mu.Unlock()
	return l.inner.List(ctx, opts)
}

func (l *countingListWatch) Watch(ctx context.Context, opts client.ListOptions) (client.Watcher, error) {
	l.mu.Lock()
	l.watches++
	held := l.held
	l.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	w, err := l.inner.Watch(ctx, opts)
	if err != nil {
		l.noteErr(err)
		return nil, err
	}
	sw := &spyWatcher{inner: w, out: make(chan client.Event), note: l.noteErr}
	go sw.run()
	l.mu.Lock()
	l.watchers = append(l.watchers, sw)
	l.mu.Unlock()
	return sw, nil
}

func (l *countingListWatch) noteErr(err error) {
	if apierrors.IsGone(err) {
		l.mu.Lock()
		l.gone = true
		l.mu.Unlock()
	}
}

func (l *countingListWatch) hold() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held = make(chan struct{})
}

func (l *countingListWatch) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.held)
	l.held = nil
}

func (l *countingListWatch) breakWatches() {
	l.mu.Lock()
	ws := l.watchers
	l.watchers = nil
	l.mu.Unlock()
	for _, w := range ws {
		w.Stop()
	}
}

func (l *countingListWatch) listCount() int  { l.mu.Lock(); defer l.mu.Unlock(); return l.lists }
func (l *countingListWatch) watchCount() int { l.mu.Lock(); defer l.mu.Unlock(); return l.watches }
func (l *countingListWatch) sawGone() bool   { l.mu.Lock(); defer l.mu.Unlock(); return l.gone }

// spyWatcher forwards a watch's events, noting ERROR events.
type spyWatcher struct {
	inner client.Watcher
	out   chan client.Event
	note  func(error)
	once  sync.Once
	stop  chan struct{}
	init  sync.Once
}

func (w *spyWatcher) stopCh() chan struct{} {
	w.init.Do(func() { w.stop = make(chan struct{}) })
	return w.stop
}

func (w *spyWatcher) run() {
	defer close(w.out)
	stop := w.stopCh()
	for ev := range w.inner.ResultChan() {
		if ev.Type == client.Error {
			w.note(ev.Err)
		}
		select {
		case w.out <- ev:
		case <-stop:
			return
		}
	}
}

func (w *spyWatcher) ResultChan() <-chan client.Event { return w.out }

func (w *spyWatcher) Stop() {
	w.once.Do(func() { close(w.stopCh()) })
	w.inner.Stop()
}

func TestListWatchMergesPagesAndAppliesTheTweak(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := newTestClient(t, a)
	ctx := t.Context()
	cms := c.ConfigMaps("default")
	const n = 2*listPageSize + 100 // three pages
	var wg sync.WaitGroup
	errs := make(chan error, n+5)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n+5; i += 8 {
				app := "paged"
				if i >= n {
					app = "other" // filtered out by the tweak
				}
				cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i), Labels: map[string]string{"app": app}}}
				if _, err := cms.Create(ctx, cm, client.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	lw := NewListWatch(cms, func(o *client.ListOptions) { o.LabelSelector = "app=paged" })
	// A list at the latest state: resourceVersion "0" may be answered from
	// a watch cache that has not yet seen the last creates, which would make
	// the count below a race.
	objs, rv, err := lw.List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, o := range objs {
		if o.GetObjectMeta().Labels["app"] != "paged" {
			t.Errorf("%s does not match the tweak's selector", o.GetObjectMeta().Name)
		}
		seen[o.GetObjectMeta().Name] = true
	}
	if len(objs) != n || len(seen) != n {
		t.Errorf("listed %d objects (%d distinct), want %d", len(objs), len(seen), n)
	}
	current, err := a.Store().CurrentRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := strconv.ParseInt(rv, 10, 64); got <= 0 || got > current {
		t.Errorf("list resourceVersion %q, store at %d", rv, current)
	}

	// The watch carries the tweak too: only matching changes arrive.
	w, err := lw.Watch(ctx, client.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for _, app := range []string{"other", "paged"} {
		cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "late-" + app, Labels: map[string]string{"app": app}}}
		if _, err := cms.Create(ctx, cm, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case ev := <-w.ResultChan():
		if ev.Type != client.Added || ev.Object.GetObjectMeta().Name != "late-paged" {
			t.Errorf("first watch event %s %v, want ADDED late-paged", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event")
	}
}
