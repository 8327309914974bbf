package workqueue

import (
	"sync"
	"time"

	"kplane/pkg/clock"
	"kplane/pkg/debug"
)

// Trace events passed to Options.Trace. The informer's teaching trace prints
// them so a student can follow a key from event handler to worker.
const (
	// TraceAdd: Add accepted the key (it may already have been queued or
	// dirty, in which case nothing else changes; Debug shows which).
	TraceAdd = "add"
	// TraceGet: a worker took the key; it moved from queue to processing.
	TraceGet = "get"
	// TraceDone: a worker finished the key; if it was re-added meanwhile it
	// goes back to queue now.
	TraceDone = "done"
	// TraceRequeueAfter: AddAfter (or AddRateLimited) parked the key to be
	// added once its delay has passed.
	TraceRequeueAfter = "requeue-after"
)

// Options configures a Queue. The zero value is usable: a real clock and
// DefaultControllerRateLimiter.
type Options[T comparable] struct {
	// Name identifies the queue in logs, traces and metrics, usually after
	// its controller ("deployment", "replicaset").
	Name string
	// Clock drives AddAfter and the default rate limiter. Tests pass a
	// clock.Fake so delays pass when the test says so; nil means clock.Real{}.
	Clock clock.Clock
	// RateLimiter decides AddRateLimited's delays. Nil means
	// DefaultControllerRateLimiter on Clock.
	RateLimiter RateLimiter[T]
	// Trace, if set, is called with one of the Trace* events each time a key
	// moves. It runs with the queue's lock held, so the events of one queue
	// arrive in the order they happened; it must be quick and must not call
	// back into the queue.
	Trace func(event string, item T)
	// Journal, if set, is the component's debug journal: the queue
	// registers itself there so `ctl queues` shows its live state, and
	// workers record their syncs in it.
	Journal *debug.Journal
}

// Queue is a work queue of keys with client-go's guarantees: deduplicated,
// never one key on two workers, re-adds during processing honoured, FIFO,
// drained on shutdown (see the package documentation). It also delays keys
// (AddAfter) and rate-limits retries (AddRateLimited). T is the key type;
// controllers use string keys "namespace/name". A Queue is safe for
// concurrent use; create it with New.
type Queue[T comparable] struct {
	name        string
	clock       clock.Clock
	rateLimiter RateLimiter[T]
	trace       func(event string, item T)
	journal     *debug.Journal

	// mu guards everything below; cond, on mu, wakes workers blocked in Get
	// and a ShutDownWithDrain waiting for processing to empty.
	mu   sync.Mutex
	cond *sync.Cond

	// queue holds the keys waiting for a worker, oldest first.
	// Invariant: a key is in queue iff it is in dirty and not in processing,
	// and it appears at most once.
	queue []T
	// dirty holds every key that needs processing: the ones in queue plus
	// the ones re-added while a worker holds them.
	dirty set[T]
	// processing holds the keys handed out by Get and not yet Done. A key
	// in processing is never in queue, which is what keeps it on one worker.
	processing set[T]

	// waiting holds the keys parked by AddAfter until their delay passes
	// (delaying.go). A waiting key is not yet dirty.
	waiting waiting[T]

	// since records when each key in queue was queued and when each key in
	// processing was handed to its worker, for `ctl queues` (the oldest
	// waiting key, how long a sync has held its key). It is kept only when
	// the queue has a journal: a queue nobody can look at never reads the
	// clock for it. Invariant (with a journal): a key is in since iff it is
	// in queue or in processing.
	since map[T]time.Time

	// shuttingDown makes Add a no-op and lets Get report shutdown once
	// queue is empty. drain is set by ShutDownWithDrain while it waits for
	// processing to empty; ShutDown clears it to stop that wait.
	shuttingDown bool
	drain        bool
}

// set is a set of keys.
type set[T comparable] map[T]struct{}

func (s set[T]) has(item T) bool { _, ok := s[item]; return ok }
func (s set[T]) insert(item T)   { s[item] = struct{}{} }
func (s set[T]) delete(item T)   { delete(s, item) }

// New returns an empty queue. It starts no goroutine; the first AddAfter
// starts the one that releases delayed keys, and ShutDown stops it.
func New[T comparable](opts Options[T]) *Queue[T] {
	c := opts.Clock
	if c == nil {
		c = clock.Real{}
	}
	rl := opts.RateLimiter
	if rl == nil {
		rl = DefaultControllerRateLimiter[T](c)
	}
	q := &Queue[T]{
		name:        opts.Name,
		clock:       c,
		rateLimiter: rl,
		trace:       opts.Trace,
		journal:     opts.Journal,
		dirty:       set[T]{},
		processing:  set[T]{},
		waiting:     newWaiting[T](),
	}
	q.cond = sync.NewCond(&q.mu)
	if opts.Journal.Enabled() {
		q.since = map[T]time.Time{}
	}
	opts.Journal.RegisterQueue(q)
	return q
}

// Journal returns the debug journal the queue was created with (nil if none).
func (q *Queue[T]) Journal() *debug.Journal { return q.journal }

// Name returns the name the queue was created with.
func (q *Queue[T]) Name() string { return q.name }

// Add marks item as needing processing. If item is already queued, nothing
// changes (dedup); if a worker is processing it, it is queued again when the
// worker calls Done. After ShutDown, Add does nothing.
func (q *Queue[T]) Add(item T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(item)
}

// addLocked is Add for callers that hold mu (the delaying loop releases
// many keys under one lock).
func (q *Queue[T]) addLocked(item T) {
	if q.shuttingDown {
		return
	}
	q.emit(TraceAdd, item)
	if q.dirty.has(item) {
		// Already queued, or already due to be requeued by Done: the one
		// pending pass will see whatever changed, so there is nothing to add.
		return
	}
	q.dirty.insert(item)
	if q.processing.has(item) {
		// A worker holds item. Queuing it now would let a second worker take
		// it; Done queues it instead.
		return
	}
	q.queue = append(q.queue, item)
	q.markSince(item)
	q.cond.Signal()
}

// Get blocks until a key is queued and hands it to the caller, who must call
// Done with it when finished. shutdown is true (and item the zero value)
// once ShutDown was called and the queue is empty: the worker should return.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.queue) == 0 && !q.shuttingDown {
		q.cond.Wait()
	}
	if len(q.queue) == 0 {
		var zero T
		return zero, true
	}
	item = q.queue[0]
	// Clear the slot so the backing array does not keep the key alive.
	var zero T
	q.queue[0] = zero
	q.queue = q.queue[1:]

	q.processing.insert(item)
	q.dirty.delete(item)
	q.markSince(item)
	q.emit(TraceGet, item)
	return item, false
}

// Done tells the queue a worker has finished item. If item was added while
// it was being processed, it is queued again now. Done for a key that is not
// being processed does nothing.
func (q *Queue[T]) Done(item T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.processing.has(item) {
		// Upstream tolerates this too; refusing here keeps a stray Done from
		// queuing a key twice.
		return
	}
	q.processing.delete(item)
	q.emit(TraceDone, item)
	if q.dirty.has(item) {
		q.queue = append(q.queue, item)
		q.markSince(item)
		q.cond.Signal()
	} else if q.since != nil {
		delete(q.since, item)
	}
	if q.drain && len(q.processing) == 0 {
		// The last in-flight key is done: release ShutDownWithDrain.
		q.cond.Broadcast()
	}
}

// Len returns how many keys are queued, not counting those being processed
// or waiting for a delay. It is for display and metrics: by the time the
// caller reads it, it may be out of date.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.queue)
}

// ShutDown makes the queue refuse new keys (Add, AddAfter, AddRateLimited
// become no-ops) and drops keys still waiting for a delay. Keys already
// queued are still handed out; Get returns shutdown once none are left.
// ShutDown does not wait for workers; it may be called more than once, and
// it releases a ShutDownWithDrain that is still waiting.
func (q *Queue[T]) ShutDown() {
	q.mu.Lock()
	q.shuttingDown = true
	q.drain = false
	q.cond.Broadcast()
	q.mu.Unlock()
	q.stopWaitingLoop()
}

// ShutDownWithDrain is ShutDown that then waits until no key is being
// processed, i.e. every worker that held a key has called Done. Workers
// must keep calling Done after shutdown began or this blocks forever; a
// later ShutDown ends the wait. Keys queued but not yet taken are not
// waited for, as upstream: workers still get them from Get.
func (q *Queue[T]) ShutDownWithDrain() {
	q.mu.Lock()
	q.shuttingDown = true
	q.drain = true
	q.cond.Broadcast()
	q.mu.Unlock()
	q.stopWaitingLoop()

	q.mu.Lock()
	defer q.mu.Unlock()
	for q.drain && len(q.processing) > 0 {
		q.cond.Wait()
	}
	q.drain = false
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[T]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}

// Debug returns a copy of the three sets behind the queue's guarantees:
// queue in the order keys will be handed out, dirty and processing in no
// particular order. It is for lessons, tests and a status page.
func (q *Queue[T]) Debug() (queue, dirty, processing []T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	queue = append([]T{}, q.queue...)
	dirty = make([]T, 0, len(q.dirty))
	for item := range q.dirty {
		dirty = append(dirty, item)
	}
	processing = make([]T, 0, len(q.processing))
	for item := range q.processing {
		processing = append(processing, item)
	}
	return queue, dirty, processing
}

// markSince records that item entered queue or processing now, when the
// queue keeps those times (it has a journal); the caller holds mu.
func (q *Queue[T]) markSince(item T) {
	if q.since != nil {
		q.since[item] = q.clock.Now()
	}
}

// emit calls the trace hook, if any; the caller holds mu.
func (q *Queue[T]) emit(event string, item T) {
	if q.trace != nil {
		q.trace(event, item)
	}
}
