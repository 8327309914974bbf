package cache

import (
	"sort"
	"strings"
)

// history is the sliding window of the most recent events, upstream's
// "cyclic buffer" in watch_cache.go. Invariant: it holds every event with a
// revision greater than since, in revision order. A watch resuming from a
// revision >= since is replayed from here; an older one must go to the store.
//
// The ring grows by appending until it holds capacity events and only then
// starts overwriting its oldest one, so a quiet resource never allocates the
// whole buffer.
type history struct {
	events   []Event // ring storage; len(events) <= capacity
	start    int     // index of the oldest event once the ring is full, else 0
	capacity int
	since    int64
}

func newHistory(capacity int, since int64) history {
	return history{capacity: capacity, since: since}
}

// reset empties the history after a (re-)list at revision since: nothing is
// known about earlier changes any more.
func (h *history) reset(since int64) {
	h.events = nil
	h.start = 0
	h.since = since
}

// add appends ev, evicting the oldest event when the ring is full. Evicting
// an event moves since up to its revision: that change can no longer be
// replayed.
func (h *history) add(ev Event) {
	if len(h.events) < h.capacity {
		h.events = append(h.events, ev)
		return
	}
	h.since = h.events[h.start].Revision
	h.events[h.start] = ev
	h.start = (h.start + 1) % h.capacity
}

// covers says whether every event after revision rev is still here.
func (h *history) covers(rev int64) bool { return rev >= h.since }

// at returns the i-th oldest event.
func (h *history) at(i int) Event { return h.events[(h.start+i)%len(h.events)] }

// eventsAfter returns the events with revision > rev whose key is under
// prefix, oldest first. The caller has checked covers(rev).
func (h *history) eventsAfter(rev int64, prefix string) []Event {
	n := len(h.events)
	first := sort.Search(n, func(i int) bool { return h.at(i).Revision > rev })
	var out []Event
	for i := first; i < n; i++ {
		if ev := h.at(i); strings.HasPrefix(ev.Key, prefix) {
			out = append(out, ev)
		}
	}
	return out
}
