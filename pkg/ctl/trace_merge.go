package ctl

import (
	"container/heap"
	"time"

	"kplane/pkg/debug"
	"kplane/pkg/debug/trace"
)

// reorderWindow is how long `ctl trace` holds a record before printing it,
// so that the streams of several components, which arrive over separate
// connections, merge into one in the order things happened. 300 ms is far
// more than a record takes to reach ctl on one machine, and short enough
// that the trace still feels live.
const reorderWindow = 300 * time.Millisecond

// reorderBuffer merges the record streams of several components into time
// order. Each record is held until it has been in the buffer for the
// window; then it and every record dated before it come out, oldest first.
// A record that arrives later than the window after a newer record of
// another component has been printed comes out late, out of order: the
// window bounds how far apart two streams may lag.
//
// Records are ordered by Time (the component's clock when it recorded
// them), then component, then Seq, so that two records of one component
// with the same time keep their order.
type reorderBuffer struct {
	window time.Duration
	held   pendingHeap
}

// pending is a record in the buffer and when it arrived (ctl's clock).
type pending struct {
	record  debug.Record
	arrived time.Time
}

// push adds r, arrived at now.
func (b *reorderBuffer) push(r debug.Record, now time.Time) {
	heap.Push(&b.held, pending{record: r, arrived: now})
}

// release returns, oldest first, the records whose time has come at now:
// the oldest record is released once it has been held for the window, and
// the ones after it wait their turn behind it.
func (b *reorderBuffer) release(now time.Time) []debug.Record {
	var out []debug.Record
	for len(b.held) > 0 && now.Sub(b.held[0].arrived) >= b.window {
		out = append(out, heap.Pop(&b.held).(pending).record)
	}
	return out
}

// drain returns every record still held, oldest first: at the end of the
// trace nothing more will arrive to go before them.
func (b *reorderBuffer) drain() []debug.Record {
	out := make([]debug.Record, 0, len(b.held))
	for len(b.held) > 0 {
		out = append(out, heap.Pop(&b.held).(pending).record)
	}
	return out
}

// pendingHeap is a min-heap of records by trace.Before (container/heap).
type pendingHeap []pending

func (h pendingHeap) Len() int           { return len(h) }
func (h pendingHeap) Less(i, j int) bool { return trace.Before(&h[i].record, &h[j].record) }
func (h pendingHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *pendingHeap) Push(x any)        { *h = append(*h, x.(pending)) }
func (h *pendingHeap) Pop() any {
	old := *h
	last := old[len(old)-1]
	*h = old[:len(old)-1]
	return last
}
