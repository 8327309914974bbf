// Package ttlcache is a small map whose entries expire: what a component
// uses to reuse the apiserver's answers to questions it asks again and
// again, as the debug server's and the kubelet's TokenReview cache and the
// kubelet's SubjectAccessReview cache do (upstream's equivalent is
// k8s.io/apimachinery/pkg/util/cache's LRUExpireCache, and the webhook
// authenticator's and authorizer's caches built on it).
//
// Invariants:
//   - Get never returns an entry past its expiry: a stale answer is asked
//     again.
//   - Every Set first drops the entries that have expired, so the map is
//     never larger than the set of keys asked within the longest TTL; it
//     does not grow without bound however many different keys pass.
//
// It is safe for concurrent use.
package ttlcache

import (
	"sync"
	"time"

	"kplane/pkg/clock"
)

// Cache maps K to V, each entry with its own expiry.
type Cache[K comparable, V any] struct {
	clock clock.Clock

	mu      sync.Mutex
	entries map[K]entry[V]
}

type entry[V any] struct {
	value   V
	expires time.Time
}

// New returns an empty cache timed by clk; nil means the real clock.
func New[K comparable, V any](clk clock.Clock) *Cache[K, V] {
	if clk == nil {
		clk = clock.Real{}
	}
	return &Cache[K, V]{clock: clk, entries: map[K]entry[V]{}}
}

// Get returns key's value if it is there and has not expired.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	e, found := c.entries[key]
	if !found || !now.Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.value, true
}

// Set stores value under key for ttl from now, after dropping every
// expired entry.
func (c *Cache[K, V]) Set(key K, value V, ttl time.Duration) {
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
		}
	}
	c.entries[key] = entry[V]{value: value, expires: now.Add(ttl)}
}

// Len is the number of entries held, expired ones not yet swept included.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
