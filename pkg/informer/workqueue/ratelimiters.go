package workqueue

import (
	"math"
	"sync"
	"time"

	"kplane/pkg/clock"
)

// Defaults of DefaultControllerRateLimiter, the same as client-go's.
const (
	// DefaultItemBaseDelay and DefaultItemMaxDelay bound the per-key
	// back-off: 5 ms → 1000 s. The first retries are fast because most
	// failures are transient (a conflict, a cache not yet caught up); the
	// delay doubles on every failure so a key that keeps failing (a broken
	// object, a missing dependency) cannot hot-loop. 5 ms × 2^18 passes the
	// cap, so the 19th consecutive failure waits the full 1000 s (~17 min).
	DefaultItemBaseDelay = 5 * time.Millisecond
	DefaultItemMaxDelay  = 1000 * time.Second

	// DefaultQPS and DefaultBurst size the overall token bucket: after a
	// burst of 100 retries, at most 10 per second across all keys. It only
	// matters when many different keys fail at once, e.g. every pod of a
	// large ReplicaSet failing while the apiserver is unavailable; it keeps
	// the retries from adding to the overload.
	DefaultQPS   = 10
	DefaultBurst = 100
)

// RateLimiter decides how long a key waits before it is retried.
// Implementations must be safe for concurrent use.
type RateLimiter[T comparable] interface {
	// When records a failure of item and returns how long to wait before
	// retrying it.
	When(item T) time.Duration
	// Forget clears what the limiter remembers about item, because it
	// succeeded or will not be retried; its next failure starts afresh.
	Forget(item T)
	// NumRequeues returns how many failures of item the limiter has counted
	// since it was last forgotten.
	NumRequeues(item T) int
}

// DefaultControllerRateLimiter returns the rate limiter every kplane
// controller uses unless told otherwise, as upstream: the larger of a
// per-key exponential back-off (DefaultItemBaseDelay doubling up to
// DefaultItemMaxDelay) and an overall token bucket (DefaultQPS,
// DefaultBurst) on clock c.
func DefaultControllerRateLimiter[T comparable](c clock.Clock) RateLimiter[T] {
	return NewMaxOfRateLimiter(
		NewItemExponentialFailureRateLimiter[T](DefaultItemBaseDelay, DefaultItemMaxDelay),
		NewBucketRateLimiter[T](DefaultQPS, DefaultBurst, c),
	)
}

// NewItemExponentialFailureRateLimiter returns a per-key back-off: the n-th
// failure of a key since it was last forgotten waits baseDelay × 2^(n-1),
// never more than maxDelay. Keys do not affect each other.
func NewItemExponentialFailureRateLimiter[T comparable](baseDelay, maxDelay time.Duration) RateLimiter[T] {
	return &itemExponentialFailureRateLimiter[T]{
		failures:  map[T]int{},
		baseDelay: baseDelay,
		maxDelay:  maxDelay,
	}
}

type itemExponentialFailureRateLimiter[T comparable] struct {
	baseDelay, maxDelay time.Duration

	mu sync.Mutex
	// failures counts When calls per key since its last Forget. A key is
	// absent once forgotten, so the map only holds keys that are failing.
	failures map[T]int
}

func (r *itemExponentialFailureRateLimiter[T]) When(item T) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	exp := r.failures[item]
	r.failures[item] = exp + 1
	// Computed in floating point so that a key failing for days (exp in the
	// hundreds) saturates at max instead of overflowing int64 nanoseconds.
	delay := float64(r.baseDelay) * math.Pow(2, float64(exp))
	if delay >= float64(r.maxDelay) {
		return r.maxDelay
	}
	return time.Duration(delay)
}

func (r *itemExponentialFailureRateLimiter[T]) Forget(item T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, item)
}

func (r *itemExponentialFailureRateLimiter[T]) NumRequeues(item T) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[item]
}

// NewBucketRateLimiter returns an overall token bucket on clock c that
// ignores which key it is asked about. The bucket holds burst tokens and
// earns qps tokens per second; When takes a token, and if none is left it
// reserves the next one to be earned and returns the wait until then. So
// the first burst calls return 0 and the following ones are spaced 1/qps
// apart. qps <= 0 means no limit (When always returns 0); burst < 1 is
// treated as 1. Upstream wraps golang.org/x/time/rate for the same
// behaviour; kplane keeps its own so it can run on an injected clock.
func NewBucketRateLimiter[T comparable](qps float64, burst int, c clock.Clock) RateLimiter[T] {
	if burst < 1 {
		burst = 1
	}
	b := &bucketRateLimiter[T]{qps: qps, burst: burst, clock: c}
	if qps > 0 {
		b.interval = time.Duration(float64(time.Second) / qps)
		b.fullAt = c.Now()
	}
	return b
}

type bucketRateLimiter[T comparable] struct {
	qps   float64
	burst int
	clock clock.Clock
	// interval is the time it takes to earn one token, 1/qps.
	interval time.Duration

	mu sync.Mutex
	// fullAt is the moment the bucket will be full again if nobody takes
	// another token. It stands for the token count without floating point:
	// at time now the bucket holds burst - (fullAt-now)/interval tokens,
	// which is negative while tokens are reserved ahead of being earned.
	fullAt time.Time
}

func (b *bucketRateLimiter[T]) When(T) time.Duration {
	if b.qps <= 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	// A bucket cannot hold more than burst tokens: time spent full earns nothing.
	if b.fullAt.Before(now) {
		b.fullAt = now
	}
	// Taking a token pushes "full again" one interval further away.
	b.fullAt = b.fullAt.Add(b.interval)
	// The token taken exists once the bucket is back to zero tokens, that is
	// burst intervals before it is full.
	available := b.fullAt.Add(-time.Duration(b.burst) * b.interval)
	if wait := available.Sub(now); wait > 0 {
		return wait
	}
	return 0
}

// Forget does nothing: the bucket does not track keys.
func (b *bucketRateLimiter[T]) Forget(T) {}

// NumRequeues is always 0: the bucket does not track keys.
func (b *bucketRateLimiter[T]) NumRequeues(T) int { return 0 }

// NewMaxOfRateLimiter combines limiters: When asks every one of them (so
// each records the failure) and returns the longest delay; NumRequeues is
// the largest count; Forget forgets in all. As upstream notes, combined with
// a bucket this can let more than burst retries through at once when some
// keys were held back longer by their own back-off.
func NewMaxOfRateLimiter[T comparable](limiters ...RateLimiter[T]) RateLimiter[T] {
	return &maxOfRateLimiter[T]{limiters: limiters}
}

type maxOfRateLimiter[T comparable] struct {
	limiters []RateLimiter[T]
}

func (m *maxOfRateLimiter[T]) When(item T) time.Duration {
	var longest time.Duration
	for _, l := range m.limiters {
		longest = max(longest, l.When(item))
	}
	return longest
}

func (m *maxOfRateLimiter[T]) Forget(item T) {
	for _, l := range m.limiters {
		l.Forget(item)
	}
}

func (m *maxOfRateLimiter[T]) NumRequeues(item T) int {
	most := 0
	for _, l := range m.limiters {
		most = max(most, l.NumRequeues(item))
	}
	return most
}
