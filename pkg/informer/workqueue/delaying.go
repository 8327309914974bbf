package workqueue

import (
	"cmp"
	"container/heap"
	"slices"
	"time"

	"kplane/pkg/clock"
)

// waiting is the delaying part of a Queue: keys parked by AddAfter, ordered
// by the time they become ready, and the goroutine that adds them when that
// time comes. Its fields are guarded by the Queue's mu.
type waiting[T comparable] struct {
	// entries is a min-heap on (readyAt, seq): the next key due is entries[0].
	entries waitingHeap[T]
	// byItem finds a key's entry, so a key waits at most once and a second
	// AddAfter can only bring it forward, never push it back.
	byItem map[T]*waitingEntry[T]
	// nextSeq breaks ties between equal readyAt so keys due at the same
	// moment are added in the order AddAfter was called.
	nextSeq uint64

	// loopStarted records that the first AddAfter started waitingLoop.
	loopStarted bool
	// wake tells the loop that entries[0] changed and its timer is stale.
	// One pending wake-up is as good as many, hence the buffer of one.
	wake chan struct{}
	// stop ends the loop; loopDone is closed when it has returned.
	stop     chan struct{}
	loopDone chan struct{}
}

// waitingEntry is one parked key.
type waitingEntry[T comparable] struct {
	item    T
	readyAt time.Time
	seq     uint64
	index   int // position in entries, kept up to date by the heap
}

func newWaiting[T comparable]() waiting[T] {
	return waiting[T]{
		byItem:   map[T]*waitingEntry[T]{},
		wake:     make(chan struct{}, 1),
		stop:     make(chan struct{}),
		loopDone: make(chan struct{}),
	}
}

// AddAfter adds item once d has passed on the queue's clock; d <= 0 adds it
// now. If item is already waiting, the earlier of the two times wins: a
// later AddAfter never postpones a key that is due sooner. Waiting keys do
// not count in Len and are dropped by ShutDown.
func (q *Queue[T]) AddAfter(item T, d time.Duration) {
	if d <= 0 {
		q.Add(item)
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	q.emit(TraceRequeueAfter, item)
	w := &q.waiting
	readyAt := q.clock.Now().Add(d)
	if e, ok := w.byItem[item]; ok {
		if !readyAt.Before(e.readyAt) {
			return
		}
		e.readyAt = readyAt
		heap.Fix(&w.entries, e.index)
	} else {
		e = &waitingEntry[T]{item: item, readyAt: readyAt, seq: w.nextSeq}
		w.nextSeq++
		heap.Push(&w.entries, e)
		w.byItem[item] = e
	}
	if !w.loopStarted {
		w.loopStarted = true
		go q.waitingLoop()
	}
	if w.entries[0].item == item {
		// The loop's timer is set for a later key (or none); make it look again.
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// Waiting returns the keys parked by AddAfter, the next one due first.
func (q *Queue[T]) Waiting() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	// Sort a copy of the heap's pointers; the heap itself stays as it is.
	entries := slices.Clone(q.waiting.entries)
	slices.SortFunc(entries, compareWaiting[T])
	items := make([]T, len(entries))
	for i, e := range entries {
		items[i] = e.item
	}
	return items
}

// waitingLoop adds parked keys to the queue as they become ready. It sleeps
// on one clock timer set for the earliest key and wakes early when AddAfter
// parks a key that is due sooner. It runs until ShutDown.
func (q *Queue[T]) waitingLoop() {
	defer close(q.waiting.loopDone)
	var timer clock.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		next, ok := q.releaseReady()
		var fired <-chan time.Time
		if timer != nil {
			timer.Stop()
			timer = nil
		}
		if ok {
			timer = q.clock.NewTimer(next)
			fired = timer.C()
		}
		select {
		case <-q.waiting.stop:
			return
		case <-q.waiting.wake:
		case <-fired:
		}
	}
}

// releaseReady adds every parked key whose time has come and returns how
// long until the next one is due (ok is false if none is left).
func (q *Queue[T]) releaseReady() (next time.Duration, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	w := &q.waiting
	now := q.clock.Now()
	for len(w.entries) > 0 {
		e := w.entries[0]
		if e.readyAt.After(now) {
			return e.readyAt.Sub(now), true
		}
		heap.Pop(&w.entries)
		delete(w.byItem, e.item)
		q.addLocked(e.item)
	}
	return 0, false
}

// stopWaitingLoop ends waitingLoop, if it was started, and waits for it to
// return so no goroutine outlives ShutDown. The caller must not hold mu.
func (q *Queue[T]) stopWaitingLoop() {
	q.mu.Lock()
	w := &q.waiting
	started := w.loopStarted
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	// Keys still waiting will never be added; let them go.
	w.entries = nil
	clear(w.byItem)
	q.mu.Unlock()
	if started {
		<-w.loopDone
	}
}

// waitingHeap implements heap.Interface over waiting entries, earliest first.
type waitingHeap[T comparable] []*waitingEntry[T]

// compareWaiting orders entries by readyAt, then by the order they were parked.
func compareWaiting[T comparable](a, b *waitingEntry[T]) int {
	if c := a.readyAt.Compare(b.readyAt); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

func (h waitingHeap[T]) Len() int           { return len(h) }
func (h waitingHeap[T]) Less(i, j int) bool { return compareWaiting(h[i], h[j]) < 0 }
func (h waitingHeap[T]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h *waitingHeap[T]) Push(x any) {
	e := x.(*waitingEntry[T])
	e.index = len(*h)
	*h = append(*h, e)
}

func (h *waitingHeap[T]) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	e.index = -1
	*h = old[:len(old)-1]
	return e
}
