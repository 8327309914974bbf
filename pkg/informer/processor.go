package informer

// This file fans the informer's notifications out to its event handlers.
// The informer's single processing goroutine must never wait for a
// handler: while it waits, the cache stops moving and every other handler
// starves. So each handler gets a listener with its own unbounded buffer
// and its own goroutine; distribute only appends to buffers.

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
)

// notificationType says which handler method a notification calls.
type notificationType int

const (
	addNotification notificationType = iota
	updateNotification
	deleteNotification
)

// notification is one pending call of a handler method.
type notification struct {
	kind notificationType
	// oldObj is set for updates only.
	oldObj api.Object
	// newObj is the object added or updated (an api.Object), or the
	// deleted object (an api.Object or a DeletedFinalStateUnknown).
	newObj any
	// isInInitialList marks adds from the first list or a late handler's
	// replay; they count toward the registration's HasSynced.
	isInInitialList bool
}

// sharedProcessor holds an informer's listeners and hands each
// notification to those that should get it.
type sharedProcessor struct {
	clock clock.Clock

	mu sync.RWMutex
	// listeners maps each listener to whether it is "syncing": whether its
	// resync came due at the last resync check. A notification marked as a
	// sync (a resync, or a relist that found an object unchanged) goes only
	// to syncing listeners; every other notification goes to all.
	listeners map[*processorListener]bool
	// started is set by run; listeners added later start at once, until
	// stopping is set (run's context ended) and they are stopped at once.
	started, stopping bool
	// ctx is run's context, for listeners added after start.
	ctx context.Context
	wg  sync.WaitGroup
}

func newSharedProcessor(c clock.Clock) *sharedProcessor {
	return &sharedProcessor{clock: c, listeners: map[*processorListener]bool{}}
}

// addListener registers l and, if the processor runs, starts it.
func (p *sharedProcessor) addListener(l *processorListener) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Not syncing until a resync check says so: a handler that asked for
	// no resync never receives sync notifications. (Upstream starts every
	// listener as syncing, so a relist before the first resync check
	// re-delivers unchanged objects to all handlers; kplane keeps the rule
	// "unchanged objects go to handlers whose resync is due" uniform.)
	p.listeners[l] = false
	switch {
	case p.stopping:
		l.stop()
	case p.started:
		p.wg.Go(func() { l.run(p.ctx) })
	}
}

// removeListener unregisters l and stops it; notifications still in its
// buffer are dropped. It reports whether l was registered.
func (p *sharedProcessor) removeListener(l *processorListener) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.listeners[l]; !ok {
		return false
	}
	delete(p.listeners, l)
	l.stop()
	return true
}

// distribute queues n on every listener, or only on the syncing ones when
// sync is set. It never blocks on a handler.
func (p *sharedProcessor) distribute(n notification, sync bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for l, syncing := range p.listeners {
		if !sync || syncing {
			l.add(n)
		}
	}
}

// run starts every listener and, when ctx ends, stops them and waits for
// their goroutines to return.
func (p *sharedProcessor) run(ctx context.Context) {
	p.mu.Lock()
	p.started, p.ctx = true, ctx
	for l := range p.listeners {
		p.wg.Go(func() { l.run(ctx) })
	}
	p.mu.Unlock()
	<-ctx.Done()
	p.mu.Lock()
	p.stopping = true
	for l := range p.listeners {
		l.stop()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// shouldResync is the reflector's ShouldResync: it marks as syncing the
// listeners whose resync period has come due, schedules their next resync,
// and reports whether any is due (only then does the reflector resync the
// DeltaFIFO).
func (p *sharedProcessor) shouldResync() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock.Now()
	due := false
	for l := range p.listeners {
		syncing := l.resyncDue(now)
		p.listeners[l] = syncing
		if syncing {
			due = true
			l.nextResync = now.Add(l.resyncPeriod)
		}
	}
	return due
}

// maxIdleBuffer is the largest buffer array a drained listener keeps for
// reuse; a bigger one (left by a burst) is released to the garbage collector.
const maxIdleBuffer = 1024

// processorListener delivers notifications to one handler. Its buffer
// grows without bound, as upstream's ring buffer does: dropping a
// notification would lose a change, and blocking would stall the informer.
// A handler that falls behind costs memory, not correctness.
type processorListener struct {
	handler ResourceEventHandler
	name    string
	trace   Tracer
	log     *slog.Logger

	// resyncPeriod is this handler's resync period (0: none); nextResync,
	// guarded by the processor's mu, is when it is next due.
	resyncPeriod time.Duration
	nextResync   time.Time

	// informerSynced reports whether the informer delivered its initial
	// list; initialPending counts this handler's initial-list
	// notifications not yet handled. Together they make HasSynced.
	informerSynced func() bool
	initialPending atomic.Int64

	mu sync.Mutex
	// pending[head:] holds the notifications not yet delivered, oldest
	// first; pending[:head] are delivered slots, cleared.
	pending []notification
	head    int
	// stopped is set by stop; add then drops notifications.
	stopped bool
	// wake has room for one signal: "pending may have grown".
	wake chan struct{}
	// done is closed by stop to end run.
	done chan struct{}
}

func newProcessorListener(h ResourceEventHandler, resyncPeriod time.Duration, now time.Time, informerSynced func() bool, trace Tracer, log *slog.Logger) *processorListener {
	name := handlerName(h)
	return &processorListener{
		handler:        h,
		name:           name,
		trace:          trace,
		log:            log.With("handler", name),
		resyncPeriod:   resyncPeriod,
		nextResync:     now.Add(resyncPeriod),
		informerSynced: informerSynced,
		wake:           make(chan struct{}, 1),
		done:           make(chan struct{}),
	}
}

// HasSynced implements ResourceEventHandlerRegistration. The informer is
// asked first: once it has synced, every initial-list notification has
// already been counted in initialPending.
func (l *processorListener) HasSynced() bool {
	return l.informerSynced() && l.initialPending.Load() <= 0
}

// add appends n to the buffer and wakes run. It never blocks.
func (l *processorListener) add(n notification) {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return
	}
	if n.isInInitialList {
		l.initialPending.Add(1)
	}
	l.pending = append(l.pending, n)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default: // a wake-up is already waiting
	}
}

// next removes and returns the oldest pending notification, waiting for
// one; ok is false once the listener is stopped or ctx ends.
func (l *processorListener) next(ctx context.Context) (n notification, ok bool) {
	for {
		l.mu.Lock()
		if l.stopped {
			l.mu.Unlock()
			return notification{}, false
		}
		if l.head < len(l.pending) {
			n = l.pending[l.head]
			l.pending[l.head] = notification{} // let the object be collected
			l.head++
			if l.head == len(l.pending) {
				// Drained: reuse the array, unless a burst made it large.
				l.head = 0
				l.pending = l.pending[:0]
				if cap(l.pending) > maxIdleBuffer {
					l.pending = nil
				}
			}
			l.mu.Unlock()
			return n, true
		}
		l.mu.Unlock()
		select {
		case <-l.wake:
		case <-l.done:
		case <-ctx.Done():
			return notification{}, false
		}
	}
}

// run calls the handler for each notification, in order, until stopped.
func (l *processorListener) run(ctx context.Context) {
	for {
		n, ok := l.next(ctx)
		if !ok {
			return
		}
		l.deliver(n)
	}
}

// deliver calls the handler method n names. A panicking handler is logged
// and skipped, so one bad handler cannot take the whole component down.
func (l *processorListener) deliver(n notification) {
	defer func() {
		if n.isInInitialList {
			l.initialPending.Add(-1)
		}
		if r := recover(); r != nil {
			l.log.Error("event handler panicked", "panic", r)
		}
	}()
	switch n.kind {
	case addNotification:
		obj := n.newObj.(api.Object)
		l.traceCall("OnAdd", obj)
		l.handler.OnAdd(obj, n.isInInitialList)
	case updateNotification:
		obj := n.newObj.(api.Object)
		l.traceCall("OnUpdate", obj)
		l.handler.OnUpdate(n.oldObj, obj)
	case deleteNotification:
		l.traceCall("OnDelete", n.newObj)
		l.handler.OnDelete(n.newObj)
	}
}

// traceCall reports a handler call to the tracer.
func (l *processorListener) traceCall(method string, obj any) {
	if l.trace == nil {
		return
	}
	key, _ := DeletionHandlingMetaNamespaceKeyFunc(obj)
	l.trace(StageHandler, key, "rv="+resourceVersionOf(obj)+" handler="+l.name+" method="+method)
}

// stop ends run and drops whatever is still buffered. Safe to call twice.
func (l *processorListener) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	l.stopped = true
	l.pending, l.head = nil, 0
	l.initialPending.Store(0)
	close(l.done)
}

// resyncDue reports whether this listener's resync period has come due.
func (l *processorListener) resyncDue(now time.Time) bool {
	return l.resyncPeriod > 0 && !now.Before(l.nextResync)
}

// resourceVersionOf returns the resourceVersion of an object or of the last
// known state inside a tombstone ("" if unknown).
func resourceVersionOf(obj any) string {
	switch o := obj.(type) {
	case api.Object:
		return o.GetObjectMeta().ResourceVersion
	case DeletedFinalStateUnknown:
		if o.Obj != nil {
			return o.Obj.GetObjectMeta().ResourceVersion
		}
	}
	return ""
}
