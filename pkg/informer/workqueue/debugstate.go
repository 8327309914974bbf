package workqueue

import (
	"fmt"
	"slices"
	"time"

	"kplane/pkg/debug"
)

// DebugState returns the queue's live state for the debug API (`ctl
// queues`): the keys queued, dirty, processing and waiting, each with its
// retry count; for a queued or processing key since when (with a journal),
// and for a waiting key the delay left.
func (q *Queue[T]) DebugState() debug.QueueState {
	q.mu.Lock()
	queued := slices.Clone(q.queue)
	var dirtyOnly, processing []T
	for item := range q.dirty {
		if q.processing.has(item) {
			dirtyOnly = append(dirtyOnly, item)
		}
	}
	for item := range q.processing {
		processing = append(processing, item)
	}
	entries := slices.Clone(q.waiting.entries)
	now := q.clock.Now()
	since := make(map[T]time.Time, len(queued)+len(processing))
	for _, item := range queued {
		since[item] = q.since[item]
	}
	for _, item := range processing {
		since[item] = q.since[item]
	}
	q.mu.Unlock()
	slices.SortFunc(entries, compareWaiting[T])

	key := func(item T) debug.QueueKey {
		return debug.QueueKey{Key: fmt.Sprint(item), Retries: q.rateLimiter.NumRequeues(item)}
	}
	s := debug.QueueState{Name: q.name, Depth: len(queued), Now: now}
	for _, item := range queued {
		k := key(item)
		k.Since = since[item]
		s.Queued = append(s.Queued, k)
	}
	for _, item := range dirtyOnly {
		s.Dirty = append(s.Dirty, key(item))
	}
	for _, item := range processing {
		k := key(item)
		k.Since = since[item]
		s.Processing = append(s.Processing, k)
	}
	for _, e := range entries {
		k := key(e.item)
		k.Delay = max(e.readyAt.Sub(now), 0)
		s.Waiting = append(s.Waiting, k)
	}
	byKey := func(a, b debug.QueueKey) int {
		switch {
		case a.Key < b.Key:
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	}
	slices.SortFunc(s.Dirty, byKey)
	slices.SortFunc(s.Processing, byKey)
	return s
}
