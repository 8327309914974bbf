package daemonset

import (
	"sync"
	"time"

	"kplane/pkg/clock"
)

// The back-off before a Failed daemon pod on the same node is deleted
// again, as upstream's failedPodsBackoff: 1 s doubling to 15 min. A pod
// the kubelet keeps rejecting (a port clash, say) is then retried ever more
// slowly instead of being created and failed in a tight loop.
const (
	failedPodBackoffInitial = time.Second
	failedPodBackoffMax     = 15 * time.Minute
)

// failedPodBackoff remembers, per "<ds uid>/<node>", when a Failed pod was
// last deleted there and how long to wait before the next. An entry whose
// wait has long passed (twice the maximum) starts again from the initial
// delay.
type failedPodBackoff struct {
	clock clock.Clock
	mu    sync.Mutex
	items map[string]*backoffEntry
}

type backoffEntry struct {
	delay time.Duration
	last  time.Time
}

func newFailedPodBackoff(c clock.Clock) *failedPodBackoff {
	return &failedPodBackoff{clock: c, items: map[string]*backoffEntry{}}
}

// next reports whether a Failed pod under key may be deleted now. If so it
// records the deletion and doubles the delay; if not it returns how long
// is left to wait.
func (b *failedPodBackoff) next(key string) (allowed bool, wait time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	entry, ok := b.items[key]
	if !ok || now.Sub(entry.last) > 2*failedPodBackoffMax {
		b.items[key] = &backoffEntry{delay: failedPodBackoffInitial, last: now}
		return true, 0
	}
	if until := entry.last.Add(entry.delay); now.Before(until) {
		return false, until.Sub(now)
	}
	entry.delay = min(2*entry.delay, failedPodBackoffMax)
	entry.last = now
	return true, 0
}

// forget drops every entry of the DaemonSet with uid dsUID.
func (b *failedPodBackoff) forget(dsUID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for key := range b.items {
		if len(key) > len(dsUID) && key[:len(dsUID)+1] == dsUID+"/" {
			delete(b.items, key)
		}
	}
}
