package cache

import (
	"context"
	"fmt"
	"sync"
	"time"

	"kplane/pkg/store"
)

// storeWatcher serves a watch whose start revision is older than the cache's
// history: it relays a watch on the store, decoding each change with the
// cache's Decoder. It stays on the store for its whole life (the client
// reconnects to the cache the next time it watches). Upstream answers such a
// request with 410 Gone at once; kplane tries etcd first, which still has
// the history unless it was compacted.
type storeWatcher struct {
	cache     *Cache
	source    store.Watcher
	bookmarks bool
	result    chan Event
	done      chan struct{}
	stopOnce  sync.Once
}

// watchStore starts a storeWatcher. An error from the store (ErrGone for a
// compacted revision) is returned as it is, wrapped with context.
func (c *Cache) watchStore(ctx context.Context, prefix string, afterRevision int64, bookmarks bool) (Watcher, error) {
	source, err := c.store.Watch(ctx, prefix, afterRevision)
	if err != nil {
		return nil, fmt.Errorf("watch %s from revision %d (older than the cache's history) in the store: %w", prefix, afterRevision, err)
	}
	w := &storeWatcher{
		cache:     c,
		source:    source,
		bookmarks: bookmarks,
		result:    make(chan Event),
		done:      make(chan struct{}),
	}
	c.mu.Lock()
	if c.isStopped {
		c.mu.Unlock()
		source.Stop()
		return nil, ErrStopped
	}
	c.storeWatchers[w] = struct{}{}
	c.mu.Unlock()
	release := context.AfterFunc(ctx, w.Stop)
	go w.process(ctx, afterRevision, release)
	return w, nil
}

// ResultChan returns the channel of events; see Watcher.
func (w *storeWatcher) ResultChan() <-chan Event { return w.result }

// Stop ends the watch; safe to call more than once.
func (w *storeWatcher) Stop() {
	w.stopOnce.Do(func() { close(w.done) })
}

func (w *storeWatcher) process(ctx context.Context, lastRevision int64, release func() bool) {
	defer close(w.result)
	defer w.source.Stop()
	defer release()
	defer func() {
		w.cache.mu.Lock()
		delete(w.cache.storeWatchers, w)
		w.cache.mu.Unlock()
	}()

	// For bookmarks, ask etcd for a progress notification when a whole
	// interval passed without an event; etcd answers on the same watch.
	var tick <-chan time.Time
	if w.bookmarks {
		ticker := time.NewTicker(w.cache.opts.BookmarkInterval)
		defer ticker.Stop()
		tick = ticker.C
	}
	sawEvent := false

	for {
		select {
		case sev, ok := <-w.source.ResultChan():
			if !ok {
				return
			}
			ev, ok := w.convert(sev)
			if !ok {
				continue
			}
			if ev.Type == store.Bookmark && (!w.bookmarks || ev.Revision <= lastRevision) {
				continue
			}
			if !w.send(ev) || ev.Type == store.Error {
				return
			}
			lastRevision = ev.Revision
			sawEvent = true
		case <-tick:
			if !sawEvent {
				if err := w.source.RequestProgress(ctx); err != nil {
					w.cache.log.Debug("progress request failed", "err", err)
				}
			}
			sawEvent = false
		case <-w.done:
			return
		}
	}
}

// convert turns a store event into a cache event, reporting false for a
// change to skip (a value that does not decode, as the cache itself does).
func (w *storeWatcher) convert(sev store.Event) (Event, bool) {
	ev := Event{Type: sev.Type, Key: sev.KV.Key, Revision: sev.Revision, Err: sev.Err}
	if ev.Revision == 0 {
		ev.Revision = sev.KV.ModRevision
	}
	switch sev.Type {
	case store.Bookmark, store.Error:
		return ev, true
	}
	obj, err := w.cache.decode(sev.KV)
	if err != nil {
		w.cache.log.Error("skipping a change whose value does not decode", "key", ev.Key, "revision", ev.Revision, "err", err)
		return Event{}, false
	}
	ev.Object = obj
	if sev.PrevKV != nil {
		if prev, err := w.cache.decode(*sev.PrevKV); err == nil {
			ev.PrevObject = prev
		}
	}
	return ev, true
}

// send delivers ev to the client unless the watch is stopped first.
func (w *storeWatcher) send(ev Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-w.done:
		return false
	}
}
