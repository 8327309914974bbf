package events

import "container/list"

// lru is a map that keeps at most size entries, forgetting the one used
// longest ago when full: the bounded caches of upstream's correlator
// (events_cache.go keeps 4 096 entries per cache) so that a component that
// reports on millions of objects does not remember all of them. Not safe
// for concurrent use; the correlator's mutex guards it.
type lru[V any] struct {
	size  int
	order *list.List // front: most recently used; elements hold *lruEntry[V]
	items map[string]*list.Element
}

type lruEntry[V any] struct {
	key   string
	value V
}

func newLRU[V any](size int) *lru[V] {
	return &lru[V]{size: size, order: list.New(), items: map[string]*list.Element{}}
}

// get returns the value under key and marks it used.
func (c *lru[V]) get(key string) (V, bool) {
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*lruEntry[V]).value, true
	}
	var zero V
	return zero, false
}

// put stores value under key, evicting the least recently used entry when full.
func (c *lru[V]) put(key string, value V) {
	if el, ok := c.items[key]; ok {
		el.Value.(*lruEntry[V]).value = value
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&lruEntry[V]{key: key, value: value})
	if c.order.Len() > c.size {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.items, oldest.Value.(*lruEntry[V]).key)
	}
}
