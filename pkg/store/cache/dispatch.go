package cache

import (
	"context"
	"time"

	"kplane/pkg/store"
)

// dispatch hands ev to each of the watchers (in the Run goroutine, after
// the lock is released).
//
// The slow-watcher policy, mirroring upstream's cacher: every watcher has a
// buffered input channel (Options.WatcherBufferSize). A watcher with room
// gets the event at once. If some buffers are full, the dispatcher waits for
// them, but only as long as its time budget allows; a watcher still full
// after that is terminated: its channel closes (after delivering what it had
// buffered) and its client re-watches from the last revision it saw, most
// likely served from the history. This bounds how long one stuck client can
// delay everyone else's events, and how much memory it can pin.
func (c *Cache) dispatch(ev Event, watchers []*cacheWatcher) {
	c.blocked = c.blocked[:0]
	for _, w := range watchers {
		if !w.offer(ev) {
			c.blocked = append(c.blocked, w)
		}
	}
	if len(c.blocked) == 0 {
		return
	}

	wait := c.budget.take(time.Now())
	began := time.Now()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	expired := false
	for _, w := range c.blocked {
		if !expired {
			select {
			case w.input <- ev:
				continue
			case <-w.done:
				continue
			case <-timer.C:
				expired = true
			}
		}
		if !w.offer(ev) {
			c.log.Warn("closing a watcher that is not keeping up", "watchPrefix", w.prefix, "revision", ev.Revision)
			c.forget(w)
			w.terminate(nil)
		}
	}
	c.budget.giveBack(wait - time.Since(began))
}

// sendBookmarks runs every BookmarkInterval in the Run goroutine. Each
// watcher that asked for bookmarks is offered one at the cache's revision
// (it drops it unless it moves its revision forward), and etcd is asked for a
// progress notification, so that the revision moves even when nothing under
// the prefix changes. A bookmark never waits for a full buffer: the next one
// will do.
func (c *Cache) sendBookmarks(ctx context.Context, sw store.Watcher) {
	c.mu.RLock()
	bookmark := Event{Type: store.Bookmark, Revision: c.revision}
	c.targets = c.targets[:0]
	for _, w := range c.watchers {
		if w.bookmarks {
			c.targets = append(c.targets, w)
		}
	}
	c.mu.RUnlock()
	if len(c.targets) == 0 {
		return
	}
	for _, w := range c.targets {
		w.offer(bookmark)
	}
	if err := sw.RequestProgress(ctx); err != nil {
		c.log.Debug("progress request failed", "err", err)
	}
}

// Upstream's dispatch budget (cacher/time_budget.go): at most 100 ms of
// waiting banked, refilled at 50 ms per second. However many slow clients
// there are, the cache spends at most ~5 % of its time waiting for them.
const (
	maxDispatchBudget       = 100 * time.Millisecond
	dispatchBudgetPerSecond = 50 * time.Millisecond
)

// dispatchBudget is the time the dispatcher may still spend waiting for
// full watchers. It is refilled lazily from the time elapsed, so it needs no
// goroutine of its own. Only the Run goroutine uses it.
type dispatchBudget struct {
	available  time.Duration
	refilledAt time.Time
}

func newDispatchBudget() dispatchBudget {
	return dispatchBudget{available: maxDispatchBudget, refilledAt: time.Now()}
}

// take returns all of the budget available at now.
func (b *dispatchBudget) take(now time.Time) time.Duration {
	elapsed := now.Sub(b.refilledAt)
	b.refilledAt = now
	refill := time.Duration(float64(elapsed) / float64(time.Second) * float64(dispatchBudgetPerSecond))
	b.available = min(b.available+refill, maxDispatchBudget)
	taken := b.available
	b.available = 0
	return taken
}

// giveBack returns what the dispatcher did not spend.
func (b *dispatchBudget) giveBack(unused time.Duration) {
	if unused > 0 {
		b.available = min(b.available+unused, maxDispatchBudget)
	}
}
