package cache

import (
	"context"
	"fmt"
)

// Watch streams the events under prefix with a revision greater than
// afterRevision, in order.
//
//   - afterRevision 0 means "from now": only changes after the cache's
//     current revision.
//   - If the history still holds every event after afterRevision, they are
//     replayed from memory, followed by live events with no gap and no
//     duplicate.
//   - If afterRevision is older than the history, the watch is served by the
//     store instead (a watch on etcd from that revision, each change decoded
//     with the Decoder); if etcd has compacted that revision, Watch returns
//     an error wrapping store.ErrGone (or the watch delivers it as an Error
//     event).
//   - If afterRevision is ahead of the cache, Watch first waits for the
//     cache to catch up, up to Options.FreshnessTimeout
//     (ErrTooLargeRevision).
//
// With bookmarks, the watcher also gets Bookmark events carrying the cache's
// revision every Options.BookmarkInterval when that revision has moved past
// the last event it got. The watch ends when ctx ends or Stop is called.
func (c *Cache) Watch(ctx context.Context, prefix string, afterRevision int64, bookmarks bool) (Watcher, error) {
	if err := c.checkPrefix(prefix); err != nil {
		return nil, err
	}
	if err := c.waitReady(ctx); err != nil {
		return nil, err
	}
	if afterRevision > 0 {
		if err := c.waitForRevision(ctx, afterRevision); err != nil {
			return nil, fmt.Errorf("watch %s from revision %d: %w", prefix, afterRevision, err)
		}
	}

	c.mu.Lock()
	if c.isStopped {
		c.mu.Unlock()
		return nil, ErrStopped
	}
	if afterRevision > 0 && !c.history.covers(afterRevision) {
		c.mu.Unlock()
		return c.watchStore(ctx, prefix, afterRevision, bookmarks)
	}
	start := afterRevision
	if start == 0 {
		start = c.revision
	}
	// Snapshot the history and register in one critical section: the Run
	// goroutine appends and picks recipients under the same lock, so each
	// event is either in replay or will be sent live, never both, never
	// neither.
	replay := c.history.eventsAfter(start, prefix)
	c.nextWatcherID++
	w := newCacheWatcher(c, c.nextWatcherID, prefix, bookmarks, replay, c.opts.WatcherBufferSize)
	c.watchers[w.id] = w
	c.mu.Unlock()

	w.start(ctx, start)
	return w, nil
}

// forget removes w from the watchers the dispatcher serves.
func (c *Cache) forget(w *cacheWatcher) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.watchers, w.id)
}
