package cache

import (
	"context"
	"fmt"
)

// dropRequest asks the Run goroutine to end every watch; it answers on
// dropped with how many it ended.
type dropRequest struct{ dropped chan int }

// DropWatches ends every watch on the cache and forgets the cache's
// history, and returns how many watches it ended. It is how the apiserver
// makes every client start over after `ctl fault compact`.
//
// Each watch ends as a slow watcher's does: what is buffered is delivered,
// then its channel closes without an Error event, and its client watches
// again from the last revision it saw — as upstream's clients do when its
// watch cache drops them. Whether that revision is still there is the
// store's business: with the history forgotten, every resumed watch is
// served by the store, which answers ErrGone for a compacted revision.
//
// Only the Run goroutine may close a watcher's input, so DropWatches hands
// the work to it and waits, until ctx ends. A cache that is re-listing
// answers once it watches again.
func (c *Cache) DropWatches(ctx context.Context) (int, error) {
	req := dropRequest{dropped: make(chan int, 1)}
	select {
	case c.drops <- req:
	case <-c.stopped:
		return 0, ErrStopped
	case <-ctx.Done():
		return 0, fmt.Errorf("drop the watches of %s: %w", c.prefix, ctx.Err())
	}
	return <-req.dropped, nil
}

// dropWatches does DropWatches' work in the Run goroutine.
func (c *Cache) dropWatches() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	dropped := len(c.watchers) + len(c.storeWatchers)
	for id, w := range c.watchers {
		delete(c.watchers, id)
		w.terminate(nil)
	}
	for w := range c.storeWatchers {
		delete(c.storeWatchers, w)
		w.Stop()
	}
	// Every event up to the cache's revision is forgotten: the history's
	// invariant (it holds every event after since) holds for an empty ring.
	c.history.reset(c.revision)
	return dropped
}
