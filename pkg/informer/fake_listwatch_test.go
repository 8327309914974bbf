package informer

// A scripted apiserver for one resource, for the reflector and informer
// tests. It behaves like kplane's apiserver where the informer can tell:
// every write gets the next resourceVersion, a watch from N replays the
// events after N and then follows live ones, a watch from a compacted N
// answers with an ERROR event carrying 410 Expired, and a watch can be
// broken (closed cleanly) or held back at will.

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// fakeListWatch implements ListerWatcher over an in-memory history.
type fakeListWatch struct {
	mu sync.Mutex
	// rv is the latest resourceVersion handed out.
	rv int64
	// objects is the current state, by key.
	objects map[string]api.Object
	// history holds every event after compactedRV, oldest first.
	history     []client.Event
	compactedRV int64
	watchers    []*fakeWatcher
	// lists and watches record the options of every call, in order, and
	// watchTimes when each watch call came (on the bubble's clock).
	lists, watches []client.ListOptions
	watchTimes     []time.Time
	// watchErrors are returned, one per call, by the next Watch calls.
	watchErrors []error
	// held, when non-nil, makes Watch wait until it is closed.
	held chan struct{}
}

func newFakeListWatch() *fakeListWatch {
	return &fakeListWatch{objects: map[string]api.Object{}}
}

// quietLogger drops the informer's logs in tests.
var quietLogger = slog.New(slog.DiscardHandler)

// List returns the current objects, sorted by key, at the latest rv.
func (f *fakeListWatch) List(ctx context.Context, opts client.ListOptions) ([]api.Object, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists = append(f.lists, opts)
	keys := make([]string, 0, len(f.objects))
	for k := range f.objects {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]api.Object, 0, len(keys))
	for _, k := range keys {
		out = append(out, f.objects[k])
	}
	return out, strconv.FormatInt(f.rv, 10), nil
}

// Watch replays the events after opts.ResourceVersion and follows new ones.
func (f *fakeListWatch) Watch(ctx context.Context, opts client.ListOptions) (client.Watcher, error) {
	f.mu.Lock()
	f.watches = append(f.watches, opts)
	f.watchTimes = append(f.watchTimes, time.Now())
	held := f.held
	f.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.watchErrors) > 0 {
		err := f.watchErrors[0]
		f.watchErrors = f.watchErrors[1:]
		return nil, err
	}
	from, err := strconv.ParseInt(opts.ResourceVersion, 10, 64)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("bad resourceVersion %q", opts.ResourceVersion))
	}
	w := newFakeWatcher()
	if from < f.compactedRV {
		// As kplane's apiserver: the stream starts, carries one ERROR
		// event with 410 Expired, and ends.
		w.push(client.Event{Type: client.Error, Err: apierrors.NewResourceExpired(
			fmt.Sprintf("too old resource version: %d (%d)", from, f.compactedRV))})
		w.end()
		return w, nil
	}
	for _, ev := range f.history {
		if eventRV(ev) > from {
			w.push(ev)
		}
	}
	f.watchers = append(f.watchers, w)
	return w, nil
}

func eventRV(ev client.Event) int64 {
	rv, _ := strconv.ParseInt(ev.Object.GetObjectMeta().ResourceVersion, 10, 64)
	return rv
}

// write stamps obj with the next resourceVersion, records the event and
// sends it to every open watch.
func (f *fakeListWatch) write(t client.EventType, obj api.Object) api.Object {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rv++
	obj = api.DeepCopy(obj)
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(f.rv, 10)
	key, _ := MetaNamespaceKeyFunc(obj)
	if t == client.Deleted {
		delete(f.objects, key)
	} else {
		f.objects[key] = obj
	}
	ev := client.Event{Type: t, Object: obj}
	f.history = append(f.history, ev)
	for _, w := range f.watchers {
		w.push(ev)
	}
	return obj
}

// create, update and remove are the three writes; each returns the stored
// object with its new resourceVersion.
func (f *fakeListWatch) create(obj api.Object) api.Object { return f.write(client.Added, obj) }
func (f *fakeListWatch) update(obj api.Object) api.Object { return f.write(client.Modified, obj) }
func (f *fakeListWatch) remove(obj api.Object) api.Object { return f.write(client.Deleted, obj) }

// bookmark advances the resourceVersion without a change and tells open
// watches so, as an apiserver's periodic bookmark does.
func (f *fakeListWatch) bookmark(example api.Object) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rv++
	obj := newExampleLike(example)
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(f.rv, 10)
	for _, w := range f.watchers {
		w.push(client.Event{Type: client.Bookmark, Object: obj})
	}
	return obj.GetObjectMeta().ResourceVersion
}

// inject sends ev to the open watches without recording it.
func (f *fakeListWatch) inject(ev client.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range f.watchers {
		w.push(ev)
	}
}

// breakWatches ends every open watch cleanly, as a server timeout or a
// dropped connection does, after the events already sent.
func (f *fakeListWatch) breakWatches() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range f.watchers {
		w.end()
	}
	f.watchers = nil
}

// compact forgets the history up to the current resourceVersion.
func (f *fakeListWatch) compact() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.compactedRV = f.rv
	f.history = nil
}

// hold makes new Watch calls wait until release.
func (f *fakeListWatch) hold() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held = make(chan struct{})
}

func (f *fakeListWatch) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held != nil {
		close(f.held)
		f.held = nil
	}
}

// failNextWatches makes the next Watch calls return errs, in order.
func (f *fakeListWatch) failNextWatches(errs ...error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watchErrors = append(f.watchErrors, errs...)
}

// calls returns copies of the recorded list and watch options.
func (f *fakeListWatch) calls() (lists, watches []client.ListOptions) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]client.ListOptions(nil), f.lists...), append([]client.ListOptions(nil), f.watches...)
}

// currentRV is the latest resourceVersion handed out.
func (f *fakeListWatch) currentRV() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strconv.FormatInt(f.rv, 10)
}

func newExampleLike(example api.Object) api.Object {
	switch example.(type) {
	case *api.Node:
		return &api.Node{}
	default:
		return &api.Pod{}
	}
}

// fakeWatcher is one watch stream. Events are buffered without bound, so a
// write never waits for the informer; a pump goroutine feeds the channel.
type fakeWatcher struct {
	result chan client.Event

	mu      sync.Mutex
	pending []client.Event
	ended   bool
	wake    chan struct{}

	stopOnce sync.Once
	stopped  chan struct{}
	done     chan struct{}
}

func newFakeWatcher() *fakeWatcher {
	w := &fakeWatcher{
		result:  make(chan client.Event),
		wake:    make(chan struct{}, 1),
		stopped: make(chan struct{}),
		done:    make(chan struct{}),
	}
	go w.pump()
	return w
}

func (w *fakeWatcher) ResultChan() <-chan client.Event { return w.result }

func (w *fakeWatcher) Stop() {
	w.stopOnce.Do(func() { close(w.stopped) })
	<-w.done
}

func (w *fakeWatcher) push(ev client.Event) {
	w.mu.Lock()
	w.pending = append(w.pending, ev)
	w.mu.Unlock()
	w.signal()
}

// end closes the stream once the pending events are delivered.
func (w *fakeWatcher) end() {
	w.mu.Lock()
	w.ended = true
	w.mu.Unlock()
	w.signal()
}

func (w *fakeWatcher) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *fakeWatcher) pump() {
	defer close(w.done)
	defer close(w.result)
	for {
		w.mu.Lock()
		if len(w.pending) == 0 {
			ended := w.ended
			w.mu.Unlock()
			if ended {
				return
			}
			select {
			case <-w.wake:
				continue
			case <-w.stopped:
				return
			}
		}
		ev := w.pending[0]
		w.pending = w.pending[1:]
		w.mu.Unlock()
		select {
		case w.result <- ev:
		case <-w.stopped:
			return
		}
	}
}

// errConnectionRefused stands for a dial to a stopped apiserver.
var errConnectionRefused = fmt.Errorf("dial tcp 127.0.0.1:6443: %w", syscall.ECONNREFUSED)

// recordingStore is a ReflectorStore that records every call, for tests of
// the reflector alone.
type recordingStore struct {
	mu    sync.Mutex
	calls []string
}

func (s *recordingStore) record(format string, args ...any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, fmt.Sprintf(format, args...))
	return nil
}

func (s *recordingStore) Add(obj api.Object) error    { return s.record("add %s", describe(obj)) }
func (s *recordingStore) Update(obj api.Object) error { return s.record("update %s", describe(obj)) }
func (s *recordingStore) Delete(obj api.Object) error { return s.record("delete %s", describe(obj)) }
func (s *recordingStore) Replace(list []api.Object, rv string) error {
	names := make([]string, len(list))
	for i, o := range list {
		names[i] = describe(o)
	}
	return s.record("replace %v at %s", names, rv)
}
func (s *recordingStore) Resync() error { return s.record("resync") }

func (s *recordingStore) recorded() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

// describe is "name@rv".
func describe(obj api.Object) string {
	m := obj.GetObjectMeta()
	return m.Name + "@" + m.ResourceVersion
}
