package cache

import (
	"slices"
	"testing"
	"time"
)

func revisions(evs []Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Revision
	}
	return out
}

func TestHistoryKeepsTheLastEventsAndKnowsWhatItCovers(t *testing.T) {
	// Capacity 3, listed at revision 10, then events 11..15 alternating
	// between two namespaces: 13, 14, 15 remain, so it covers 12 onwards.
	h := newHistory(3, 10)
	for rev := int64(11); rev <= 15; rev++ {
		key := "/r/ns1/x"
		if rev%2 == 0 {
			key = "/r/ns2/x"
		}
		h.add(Event{Key: key, Revision: rev})
	}
	if h.since != 12 {
		t.Fatalf("since = %d, want 12 (the revision of the last evicted event)", h.since)
	}
	tests := []struct {
		after      int64
		prefix     string
		wantCovers bool
		want       []int64
	}{
		{after: 11, wantCovers: false},
		{after: 12, prefix: "/r/", wantCovers: true, want: []int64{13, 14, 15}},
		{after: 13, prefix: "/r/", wantCovers: true, want: []int64{14, 15}},
		{after: 12, prefix: "/r/ns1/", wantCovers: true, want: []int64{13, 15}},
		{after: 12, prefix: "/r/ns2/", wantCovers: true, want: []int64{14}},
		{after: 15, prefix: "/r/", wantCovers: true, want: []int64{}},
		{after: 40, prefix: "/r/", wantCovers: true, want: []int64{}},
	}
	for _, tt := range tests {
		if got := h.covers(tt.after); got != tt.wantCovers {
			t.Errorf("covers(%d) = %v, want %v", tt.after, got, tt.wantCovers)
			continue
		}
		if !tt.wantCovers {
			continue
		}
		if got := revisions(h.eventsAfter(tt.after, tt.prefix)); !slices.Equal(got, tt.want) {
			t.Errorf("eventsAfter(%d, %q) = %v, want %v", tt.after, tt.prefix, got, tt.want)
		}
	}
}

func TestHistoryResetForgetsEverything(t *testing.T) {
	h := newHistory(5, 0)
	h.add(Event{Key: "/r/a", Revision: 1})
	h.add(Event{Key: "/r/a", Revision: 2})
	h.reset(7)
	if h.covers(6) || !h.covers(7) {
		t.Fatalf("after reset(7): covers(6)=%v covers(7)=%v, want false, true", h.covers(6), h.covers(7))
	}
	if got := h.eventsAfter(7, "/"); len(got) != 0 {
		t.Fatalf("after reset: eventsAfter = %v, want none", revisions(got))
	}
}

func TestDispatchBudget(t *testing.T) {
	t0 := time.Unix(1000, 0)
	b := dispatchBudget{available: maxDispatchBudget, refilledAt: t0}
	steps := []struct {
		at       time.Duration // since t0
		giveBack time.Duration
		want     time.Duration
	}{
		{at: 0, want: 100 * time.Millisecond}, // starts full
		{at: 0, want: 0},                      // all taken
		{at: time.Second, giveBack: 20 * time.Millisecond, want: 50 * time.Millisecond}, // 50 ms refill per second
		{at: time.Second, want: 20 * time.Millisecond},                                  // what was given back
		{at: 10 * time.Second, want: 100 * time.Millisecond},                            // capped
	}
	for i, st := range steps {
		got := b.take(t0.Add(st.at))
		if got != st.want {
			t.Fatalf("step %d: take = %v, want %v", i, got, st.want)
		}
		b.giveBack(st.giveBack)
	}
}
