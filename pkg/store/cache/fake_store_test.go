package cache

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"

	"kplane/pkg/store"
)

// fakeStore is an in-memory store.Interface with etcd's revision semantics:
// one global revision bumped by every write, a log of every change for
// watches that start in the past, and compaction that makes older revisions
// ErrGone. Its watches deliver asynchronously, like etcd's, through an
// unbounded queue so a slow reader never blocks writers.
type fakeStore struct {
	mu        sync.Mutex
	revision  int64
	compacted int64
	data      map[string]store.KV
	changes   []store.Event
	watches   map[*fakeWatch]struct{}

	// What the cache asked for, for assertions.
	listCalls  int
	watchCalls []int64 // afterRevision of each Watch
}

// newFakeStore returns an empty store at revision 1, like a fresh etcd (so
// the first write is revision 2, and a list revision is never 0, which a
// Watch would take for "from now").
func newFakeStore() *fakeStore {
	return &fakeStore{revision: 1, data: map[string]store.KV{}, watches: map[*fakeWatch]struct{}{}}
}

func (s *fakeStore) Get(ctx context.Context, key string) (store.KV, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kv, ok := s.data[key]
	if !ok {
		return store.KV{}, store.ErrNotFound
	}
	return kv, nil
}

func (s *fakeStore) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listCalls++
	if opts.Revision != 0 {
		return store.ListResult{}, errors.New("fakeStore: List at a past revision is not supported")
	}
	var items []store.KV
	for k, kv := range s.data {
		if strings.HasPrefix(k, prefix) {
			items = append(items, kv)
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Key < items[j].Key })
	return store.ListResult{Items: items, Revision: s.revision}, nil
}

func (s *fakeStore) Create(ctx context.Context, key string, value []byte) (store.KV, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.data[key]; ok {
		return store.KV{}, store.ErrAlreadyExists
	}
	s.revision++
	kv := store.KV{Key: key, Value: value, ModRevision: s.revision, CreateRevision: s.revision}
	s.data[key] = kv
	s.recordLocked(store.Event{Type: store.Added, KV: kv, Revision: s.revision})
	return kv, nil
}

func (s *fakeStore) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (store.KV, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.data[key]
	if !ok {
		return store.KV{}, store.ErrNotFound
	}
	if expectedRevision != 0 && old.ModRevision != expectedRevision {
		return store.KV{}, store.ErrConflict
	}
	s.revision++
	kv := store.KV{Key: key, Value: value, ModRevision: s.revision, CreateRevision: old.CreateRevision}
	s.data[key] = kv
	s.recordLocked(store.Event{Type: store.Modified, KV: kv, PrevKV: &old, Revision: s.revision})
	return kv, nil
}

func (s *fakeStore) Delete(ctx context.Context, key string, expectedRevision int64) (store.KV, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.data[key]
	if !ok {
		return store.KV{}, store.ErrNotFound
	}
	if expectedRevision != 0 && old.ModRevision != expectedRevision {
		return store.KV{}, store.ErrConflict
	}
	s.revision++
	delete(s.data, key)
	last := old
	last.ModRevision = s.revision
	s.recordLocked(store.Event{Type: store.Deleted, KV: last, PrevKV: &old, Revision: s.revision})
	return last, nil
}

// recordLocked logs a change and queues it on every watch of its prefix.
// Queuing under s.mu keeps every watch in revision order.
func (s *fakeStore) recordLocked(ev store.Event) {
	s.changes = append(s.changes, ev)
	for w := range s.watches {
		if strings.HasPrefix(ev.KV.Key, w.prefix) {
			w.push(ev)
		}
	}
}

func (s *fakeStore) Watch(ctx context.Context, prefix string, afterRevision int64) (store.Watcher, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchCalls = append(s.watchCalls, afterRevision)
	// etcd refuses a watch starting (at afterRevision+1) below the
	// compaction revision.
	if afterRevision != 0 && afterRevision+1 < s.compacted {
		return nil, store.ErrGone
	}
	w := &fakeWatch{
		store:  s,
		prefix: prefix,
		result: make(chan store.Event),
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
	if afterRevision != 0 {
		for _, ev := range s.changes {
			if ev.Revision > afterRevision && strings.HasPrefix(ev.KV.Key, prefix) {
				w.queue = append(w.queue, ev)
			}
		}
	}
	s.watches[w] = struct{}{}
	w.releaseContext = context.AfterFunc(ctx, w.Stop)
	go w.run()
	return w, nil
}

func (s *fakeStore) CurrentRevision(ctx context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.revision, nil
}

func (s *fakeStore) Compact(ctx context.Context, revision int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if revision <= s.compacted {
		return store.ErrGone
	}
	s.compacted = revision
	kept := s.changes[:0]
	for _, ev := range s.changes {
		if ev.Revision >= revision {
			kept = append(kept, ev)
		}
	}
	s.changes = kept
	return nil
}

// breakWatches ends every open watch with an Error event carrying err, as
// etcd does when a watcher's position is compacted away (ErrGone) or the
// connection is lost.
func (s *fakeStore) breakWatches(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watches {
		w.push(store.Event{Type: store.Error, Err: err})
	}
}

// openWatches counts the watches not yet stopped.
func (s *fakeStore) openWatches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watches)
}

func (s *fakeStore) counts() (lists int, watches []int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listCalls, append([]int64(nil), s.watchCalls...)
}

// fakeWatch delivers its queue in order on result until stopped or until it
// has delivered an Error event.
type fakeWatch struct {
	store          *fakeStore
	prefix         string
	result         chan store.Event
	mu             sync.Mutex
	queue          []store.Event
	wake           chan struct{}
	done           chan struct{}
	stopOnce       sync.Once
	releaseContext func() bool
}

func (w *fakeWatch) ResultChan() <-chan store.Event { return w.result }

func (w *fakeWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.done)
		w.store.mu.Lock()
		delete(w.store.watches, w)
		w.store.mu.Unlock()
	})
}

// RequestProgress queues a bookmark at the store's current revision, behind
// every event already queued: etcd's progress notification.
func (w *fakeWatch) RequestProgress(ctx context.Context) error {
	select {
	case <-w.done:
		return errors.New("fakeWatch: stopped")
	default:
	}
	w.store.mu.Lock()
	defer w.store.mu.Unlock()
	w.push(store.Event{Type: store.Bookmark, Revision: w.store.revision})
	return nil
}

func (w *fakeWatch) push(ev store.Event) {
	w.mu.Lock()
	w.queue = append(w.queue, ev)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *fakeWatch) run() {
	defer close(w.result)
	defer w.releaseContext()
	for {
		w.mu.Lock()
		batch := w.queue
		w.queue = nil
		w.mu.Unlock()
		for _, ev := range batch {
			select {
			case w.result <- ev:
			case <-w.done:
				return
			}
			if ev.Type == store.Error {
				w.Stop()
				return
			}
		}
		select {
		case <-w.wake:
		case <-w.done:
			return
		}
	}
}
