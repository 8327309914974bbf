package cache

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kplane/pkg/store"
)

// Retry pauses after a failed list or watch: 100 ms doubling to 5 s. A local
// etcd usually comes back within the first pauses; a long outage settles at
// one attempt (and one log line) every 5 s. Upstream's reflector backs off
// from 800 ms to 30 s, tuned for remote etcd clusters.
const (
	minRetryDelay = 100 * time.Millisecond
	maxRetryDelay = 5 * time.Second
)

// Run fills the cache and keeps it current until ctx ends, then closes every
// watcher and returns nil. It lists the prefix at some revision L, then
// watches the store from L, applying each change. When the watch breaks it
// resumes from the cache's revision; when the store answers ErrGone (the
// cache fell behind a compaction) it re-lists, and every live watcher gets an
// Error event wrapping store.ErrGone, because it may have missed changes.
func (c *Cache) Run(ctx context.Context) error {
	defer c.shutdown()
	delay := minRetryDelay
	needList := true
	for ctx.Err() == nil {
		if needList {
			if err := c.listAndReplace(ctx); err != nil {
				if ctx.Err() == nil {
					c.log.Warn("list failed, will retry", "err", err, "retryIn", delay)
				}
				delay = c.pause(ctx, delay)
				continue
			}
			needList = false
			delay = minRetryDelay
		}

		progressed, err := c.watchAndApply(ctx)
		if ctx.Err() != nil {
			break
		}
		if progressed {
			delay = minRetryDelay
		}
		if errors.Is(err, store.ErrGone) {
			c.log.Info("the cache's watch fell behind a compaction, re-listing", "revision", c.Revision())
			needList = true
			continue
		}
		c.log.Warn("watch ended, will resume", "err", err, "revision", c.Revision(), "retryIn", delay)
		delay = c.pause(ctx, delay)
	}
	return nil
}

// pause sleeps for delay (or until ctx ends) and returns the next delay.
func (c *Cache) pause(ctx context.Context, delay time.Duration) time.Duration {
	t := time.NewTimer(delay)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			return min(2*delay, maxRetryDelay)
		case <-ctx.Done():
			return min(2*delay, maxRetryDelay)
		case req := <-c.drops:
			req.dropped <- c.dropWatches()
		}
	}
}

// listAndReplace loads the whole prefix and makes it the cache's state.
// Watchers registered before a re-list cannot be told what changed in
// between, so they are ended with store.ErrGone, like upstream's cacher
// terminating all watchers when its store is replaced.
func (c *Cache) listAndReplace(ctx context.Context) error {
	list, err := c.store.List(ctx, c.prefix, store.ListOptions{})
	if err != nil {
		return fmt.Errorf("list %s: %w", c.prefix, err)
	}
	entries := make([]Entry, 0, len(list.Items))
	for _, kv := range list.Items {
		obj, err := c.decode(kv)
		if err != nil {
			c.log.Error("leaving out a stored value that does not decode", "key", kv.Key, "err", err)
			continue
		}
		entries = append(entries, Entry{Key: kv.Key, Revision: kv.ModRevision, Object: obj})
	}

	c.mu.Lock()
	c.snapshot = newSnapshot(entries)
	c.snapshot.buildIndex(c.opts.Index)
	c.history.reset(list.Revision)
	gone := fmt.Errorf("watch cache of %s re-listed at revision %d: %w", c.prefix, list.Revision, store.ErrGone)
	for id, w := range c.watchers {
		delete(c.watchers, id)
		w.terminate(gone)
	}
	c.advanceLocked(list.Revision)
	c.mu.Unlock()

	c.log.Debug("listed", "objects", len(entries), "revision", list.Revision)
	c.readyOnce.Do(func() { close(c.ready) })
	return nil
}

// watchAndApply watches the store from the cache's revision and applies
// every change until the watch ends or ctx does. It reports whether any
// change arrived (to reset the retry delay) and why the watch ended.
func (c *Cache) watchAndApply(ctx context.Context) (progressed bool, err error) {
	from := c.Revision()
	sw, err := c.store.Watch(ctx, c.prefix, from)
	if err != nil {
		return false, fmt.Errorf("watch %s from revision %d: %w", c.prefix, from, err)
	}
	defer sw.Stop()
	c.setStoreWatch(sw)
	defer c.setStoreWatch(nil)

	bookmarks := time.NewTicker(c.opts.BookmarkInterval)
	defer bookmarks.Stop()
	for {
		select {
		case <-ctx.Done():
			return progressed, ctx.Err()
		case ev, ok := <-sw.ResultChan():
			if !ok {
				return progressed, fmt.Errorf("watch %s closed by the store", c.prefix)
			}
			if ev.Type == store.Error {
				return progressed, fmt.Errorf("watch %s: %w", c.prefix, ev.Err)
			}
			c.apply(ev)
			progressed = true
		case <-bookmarks.C:
			c.sendBookmarks(ctx, sw)
		case req := <-c.drops:
			req.dropped <- c.dropWatches()
		}
	}
}

func (c *Cache) setStoreWatch(sw store.Watcher) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.storeWatch = sw
}

// apply folds one store event into the snapshot and the history and hands it
// to the watchers. Decoding happens before taking the lock, so readers are
// not held up by it.
func (c *Cache) apply(sev store.Event) {
	rev := sev.Revision
	if rev == 0 {
		rev = sev.KV.ModRevision
	}
	if sev.Type == store.Bookmark {
		// A progress notification: nothing under the prefix changed up to rev.
		c.mu.Lock()
		c.advanceLocked(rev)
		c.mu.Unlock()
		return
	}

	obj, decodeErr := c.decode(sev.KV)
	ev := Event{Key: sev.KV.Key, Revision: rev, Object: obj}

	c.mu.Lock()
	switch sev.Type {
	case store.Added, store.Modified:
		if decodeErr != nil {
			// Keep the previous state rather than invent one; the value was
			// written behind the apiserver's back (etcdctl) or is corrupt.
			c.advanceLocked(rev)
			c.mu.Unlock()
			c.log.Error("ignoring a change whose value does not decode", "key", ev.Key, "revision", rev, "err", decodeErr)
			return
		}
		// The cache's own view decides between ADDED and MODIFIED, so a
		// watcher's stream always agrees with what List showed it.
		prev, existed := c.snapshot.put(Entry{Key: ev.Key, Revision: sev.KV.ModRevision, Object: obj})
		ev.Type = store.Added
		if existed {
			ev.Type = store.Modified
			ev.PrevObject, ev.PrevRevision = prev.Object, prev.Revision
		}
	case store.Deleted:
		prev, existed := c.snapshot.remove(ev.Key)
		if !existed {
			// Never shown to anyone (it did not decode); nothing to report.
			c.advanceLocked(rev)
			c.mu.Unlock()
			return
		}
		ev.Type = store.Deleted
		ev.PrevObject, ev.PrevRevision = prev.Object, prev.Revision
		if decodeErr != nil {
			ev.Object = prev.Object // still better than losing the delete
		}
	default:
		c.advanceLocked(rev)
		c.mu.Unlock()
		c.log.Warn("ignoring an event of unknown type", "type", sev.Type, "key", ev.Key)
		return
	}
	c.history.add(ev)
	c.advanceLocked(rev)
	// Choosing the recipients in the same critical section as the history
	// append is what makes replay + live exact: a watcher registered before
	// this point gets ev live, one registered after finds it in its replay.
	c.targets = c.targets[:0]
	for _, w := range c.watchers {
		if w.wants(ev.Key) {
			c.targets = append(c.targets, w)
		}
	}
	c.mu.Unlock()

	if c.opts.OnDispatch != nil {
		c.opts.OnDispatch(ev, len(c.targets))
	}
	if skipLiveEvent() { // false except in a deliberately broken build (broken_on.go)
		return
	}
	c.dispatch(ev, c.targets)
}

// shutdown runs when Run returns: every watcher is closed (without an Error
// event: the apiserver is going away) and waiters learn the cache stopped.
func (c *Cache) shutdown() {
	c.mu.Lock()
	c.isStopped = true
	for id, w := range c.watchers {
		delete(c.watchers, id)
		w.terminate(nil)
	}
	for w := range c.storeWatchers {
		w.Stop()
	}
	close(c.revisionAdvanced)
	c.revisionAdvanced = make(chan struct{})
	c.mu.Unlock()
	close(c.stopped)
}
