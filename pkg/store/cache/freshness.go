package cache

import (
	"context"
	"fmt"
	"time"

	"kplane/pkg/store"
)

// progressRequestPeriod is how often a goroutine waiting for a revision asks
// etcd again for a progress notification (etcd may skip one while the watch
// is catching up). Upstream's progress requester uses the same 100 ms.
const progressRequestPeriod = 100 * time.Millisecond

// waitReady blocks until the first list is loaded, failing once the cache
// has stopped.
func (c *Cache) waitReady(ctx context.Context) error {
	select {
	case <-c.stopped:
		return ErrStopped
	default:
	}
	select {
	case <-c.ready:
		return nil
	case <-c.stopped:
		return ErrStopped
	case <-ctx.Done():
		return fmt.Errorf("wait for the watch cache of %s to load: %w", c.prefix, ctx.Err())
	}
}

// WaitForRevision blocks until the cache has caught up to rev: every change
// under its prefix up to rev is in it, and lists are answered at rev or
// later. It gives up after Options.FreshnessTimeout (ErrTooLargeRevision)
// or when ctx ends. The apiserver calls it after compacting to a revision
// written outside every prefix, so that no cache answers a list at a
// revision older than the compaction.
func (c *Cache) WaitForRevision(ctx context.Context, rev int64) error {
	return c.waitForRevision(ctx, rev)
}

// waitForRevision blocks until the cache has caught up to rev.
//
// The cache hears about revisions only through its watch on its prefix. When
// rev was produced by a write somewhere else (another resource), no event
// will ever bring the cache there, so the waiter asks etcd for a progress
// notification: once the watch has delivered everything, etcd answers with a
// bookmark at its current revision. This is how upstream serves consistent
// LISTs from its cache.
func (c *Cache) waitForRevision(ctx context.Context, rev int64) error {
	timeout := time.NewTimer(c.opts.FreshnessTimeout)
	defer timeout.Stop()
	var retry *time.Ticker // created on the first miss
	var retryC <-chan time.Time
	defer func() {
		if retry != nil {
			retry.Stop()
		}
	}()
	for {
		c.mu.RLock()
		current, advanced, stopped, sw := c.revision, c.revisionAdvanced, c.isStopped, c.storeWatch
		c.mu.RUnlock()
		if stopped {
			return ErrStopped
		}
		if current >= rev {
			return nil
		}
		if retry == nil {
			// The first miss asks at once: the usual reason to be behind is
			// a write to another prefix, and waiting would only add latency.
			c.requestProgress(ctx, sw)
			retry = time.NewTicker(progressRequestPeriod)
			retryC = retry.C
		}
		select {
		case <-advanced:
		case <-retryC:
			c.requestProgress(ctx, sw)
		case <-timeout.C:
			return &TooLargeRevisionError{Requested: rev, Current: c.Revision(), Waited: c.opts.FreshnessTimeout}
		case <-ctx.Done():
			return fmt.Errorf("wait for revision %d: %w", rev, ctx.Err())
		}
	}
}

// requestProgress asks the cache's store watch, if one is open, for a
// progress notification. A failure only delays the answer: the waiter asks
// again.
func (c *Cache) requestProgress(ctx context.Context, sw store.Watcher) {
	if sw == nil {
		return
	}
	if err := sw.RequestProgress(ctx); err != nil {
		c.log.Debug("progress request failed", "err", err)
	}
}
