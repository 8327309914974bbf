package garbagecollector

import "sync"

// absentOwnerCache remembers owners the apiserver has said do not exist, so
// that the 500 pods of a deleted ReplicaSet cost one GET of the ReplicaSet
// rather than 500. Only an apiserver answer (404, or another uid under the
// name) puts an owner here — never the informer caches, which can lag. An
// entry stays true forever: uids are never reused, so an object with this
// uid cannot come back. Entries are keyed by all coordinates (not the uid
// alone) because a reference with the right uid but a wrong kind or name
// is dangling while a correct one to the same uid may not be.
//
// The cache is bounded: past max entries the oldest is forgotten (a
// forgotten owner just costs one more GET). Upstream keeps an LRU of 500.
type absentOwnerCache struct {
	mu    sync.Mutex
	max   int
	set   map[objectReference]struct{}
	order []objectReference // insertion order, oldest first
}

func newAbsentOwnerCache(max int) *absentOwnerCache {
	return &absentOwnerCache{max: max, set: map[objectReference]struct{}{}}
}

// Add records that ref does not exist.
func (c *absentOwnerCache) Add(ref objectReference) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.set[ref]; ok {
		return
	}
	if len(c.order) >= c.max {
		delete(c.set, c.order[0])
		c.order = c.order[1:]
	}
	c.set[ref] = struct{}{}
	c.order = append(c.order, ref)
}

// Has reports whether ref is known not to exist.
func (c *absentOwnerCache) Has(ref objectReference) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.set[ref]
	return ok
}
