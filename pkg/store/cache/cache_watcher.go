package cache

import (
	"context"
	"strings"
	"sync"

	"kplane/pkg/store"
)

// cacheWatcher is one watch served from memory (upstream's cacheWatcher).
// Its goroutine first sends the replayed events, then forwards what the
// dispatcher puts on input, until one side ends it:
//   - the client: Stop, or the Watch context ending, closes done;
//   - the cache: the dispatcher closes input (slow watcher, re-list, cache
//     stopping), after setting err when the client must be told why.
//
// Channel ownership: only the Run goroutine sends on or closes input; only
// the watcher's goroutine sends on or closes result.
type cacheWatcher struct {
	cache     *Cache
	id        int64
	prefix    string
	bookmarks bool
	replay    []Event    // history events after the start revision, sent first
	input     chan Event // buffered, Options.WatcherBufferSize
	result    chan Event
	done      chan struct{}

	stopOnce      sync.Once
	terminateOnce sync.Once
	err           error // written before input is closed, read after

	releaseContext func() bool // undoes the context.AfterFunc that stops us
}

func newCacheWatcher(c *Cache, id int64, prefix string, bookmarks bool, replay []Event, bufferSize int) *cacheWatcher {
	return &cacheWatcher{
		cache:     c,
		id:        id,
		prefix:    prefix,
		bookmarks: bookmarks,
		replay:    replay,
		input:     make(chan Event, bufferSize),
		result:    make(chan Event),
		done:      make(chan struct{}),
	}
}

// ResultChan returns the channel of events; see Watcher.
func (w *cacheWatcher) ResultChan() <-chan Event { return w.result }

// Stop ends the watch and releases everything it holds. It is safe to call
// more than once and from any goroutine.
func (w *cacheWatcher) Stop() {
	w.stopOnce.Do(func() {
		close(w.done)
		w.cache.forget(w)
	})
}

// wants says whether an event on key belongs to this watch. The prefix ends
// in "/", so /registry/pods/ns1/ does not match ns10's keys.
func (w *cacheWatcher) wants(key string) bool { return strings.HasPrefix(key, w.prefix) }

// offer puts ev on input if there is room, reporting false if the buffer is
// full. A stopped watcher takes (and ignores) anything.
func (w *cacheWatcher) offer(ev Event) bool {
	select {
	case w.input <- ev:
		return true
	case <-w.done:
		return true
	default:
		return false
	}
}

// terminate ends the watch from the cache's side: what is buffered is still
// delivered, then an Error event carrying err if err is not nil, then the
// channel closes. Only the Run goroutine calls it.
func (w *cacheWatcher) terminate(err error) {
	w.terminateOnce.Do(func() {
		w.err = err
		close(w.input)
	})
}

func (w *cacheWatcher) start(ctx context.Context, startRevision int64) {
	w.releaseContext = context.AfterFunc(ctx, w.Stop)
	go w.process(startRevision)
}

// process is the watcher's goroutine. lastRevision is the revision of the
// last thing sent, so that a bookmark is only sent when it says something
// new.
func (w *cacheWatcher) process(lastRevision int64) {
	defer close(w.result)
	defer w.releaseContext()

	for _, ev := range w.replay {
		if !w.send(ev) {
			return
		}
		lastRevision = ev.Revision
	}
	w.replay = nil

	for {
		select {
		case ev, ok := <-w.input:
			if !ok {
				if w.err != nil {
					w.send(Event{Type: store.Error, Revision: lastRevision, Err: w.err})
				}
				return
			}
			if ev.Type == store.Bookmark && ev.Revision <= lastRevision {
				continue
			}
			if !w.send(ev) {
				return
			}
			lastRevision = ev.Revision
		case <-w.done:
			return
		}
	}
}

// send delivers ev to the client unless the watch is stopped first.
func (w *cacheWatcher) send(ev Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-w.done:
		return false
	}
}
