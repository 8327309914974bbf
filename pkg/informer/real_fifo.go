package informer

// This file is the other queue an informer can run with (WithFIFO(FIFOReal)):
// a plain first-in, first-out list of events, as client-go's RealFIFO, the
// default since Kubernetes 1.33. Compare it with delta_fifo.go: the
// DeltaFIFO keeps one entry per object and merges what happens to it while
// it waits; the RealFIFO keeps one entry per event and merges nothing.

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"kplane/pkg/api"
)

// RealFIFOOptions configures a RealFIFO.
type RealFIFOOptions struct {
	// KeyFunction keys objects; nil means MetaNamespaceKeyFunc.
	KeyFunction KeyFunc
	// KnownObjects is the consumer's cache (the informer's indexer). With
	// it, Replace emits tombstones for cached objects missing from a
	// relist, and Resync can re-deliver cached objects. Upstream requires
	// it; kplane allows nil, as for the DeltaFIFO, for tests of the queue
	// alone.
	KnownObjects KeyListerGetter
	// Trace, if set, is called with stage "delta" for every item queued.
	// It runs under the queue's lock: it must be quick and must not call
	// the FIFO.
	Trace func(stage, key string, d Delta)
}

// RealFIFO is a producer-consumer queue of events in arrival order. The
// reflector produces; the informer consumes with Pop. Every Add, Update
// and Delete becomes an item of its own, and Pop hands the items out
// exactly in the order they came, each as a Deltas of length one. It
// exists because the DeltaFIFO reorders: a key changed again while it
// waits keeps its old place in the line, so the consumer can apply a later
// event for one object before an earlier event for another, and its cache
// then holds a mix of states that no resourceVersion ever had. With the
// RealFIFO the cache always equals the apiserver's state at some
// resourceVersion of the watch: a prefix of the event stream, applied in
// order.
//
// Invariants (all under lock):
//   - items is in the order the reflector produced the events; Pop always
//     takes items[0].
//   - Nothing is merged or dropped: an object updated twice while it waits
//     has two items, and a deletion reported twice (a tombstone from a
//     relist and then the watch's DELETED) is delivered twice. Handlers
//     must accept a deletion of an object they no longer have, as they
//     must with any informer.
//   - A DeletedFinalStateUnknown only appears as the Object of a Deleted
//     item queued by Replace, for a key that was known (queued here, or
//     in KnownObjects) but is absent from the new list.
//   - Replace queues its tombstones before the listed objects, so the
//     consumer sees the missed deletions first and then the list, which
//     is the newer state.
//   - Resync queues a Sync item only for a key with nothing queued, so a
//     resync never re-delivers a state older than one already queued.
//
// Pop calls the process function while holding the lock, as the DeltaFIFO
// does, for the same reason: the consumer's cache changes atomically with
// respect to Replace and Resync, which read it through KnownObjects.
type RealFIFO struct {
	keyFunc      KeyFunc
	knownObjects KeyListerGetter
	trace        func(stage, key string, d Delta)

	// lock guards every field below; cond (on lock) wakes Pop when an item
	// is queued or the queue is closed.
	lock sync.Mutex
	cond sync.Cond

	// items are the queued events, oldest first.
	items []queuedEvent

	// populated is set by the first Add, Update, Delete or Replace.
	populated bool
	// initialPopulationCount is the number of items the first Replace
	// queued that have not been popped yet. HasSynced is populated &&
	// initialPopulationCount == 0.
	initialPopulationCount int

	// lastSyncResourceVersion is the resourceVersion of the last Replace.
	lastSyncResourceVersion string

	// closed is set by Close; Pop then returns ErrFIFOClosed once empty.
	closed bool
}

// queuedEvent is one item of a RealFIFO: a delta and its object's key,
// computed once when the event arrives.
type queuedEvent struct {
	key   string
	delta Delta
}

// NewRealFIFO returns an empty, open RealFIFO.
func NewRealFIFO(opts RealFIFOOptions) *RealFIFO {
	f := &RealFIFO{
		keyFunc:      opts.KeyFunction,
		knownObjects: opts.KnownObjects,
		trace:        opts.Trace,
	}
	if f.keyFunc == nil {
		f.keyFunc = MetaNamespaceKeyFunc
	}
	f.cond.L = &f.lock
	return f
}

// KeyOf returns the key of obj, which may be an api.Object, a
// DeletedFinalStateUnknown, or a Deltas (keyed by its newest object).
func (f *RealFIFO) KeyOf(obj any) (string, error) {
	if d, ok := obj.(Deltas); ok {
		if len(d) == 0 {
			return "", KeyError{Obj: obj, Err: errors.New("empty Deltas")}
		}
		obj = d.Newest().Object
	}
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		return d.Key, nil
	}
	key, err := f.keyFunc(obj)
	if err != nil {
		return "", KeyError{Obj: obj, Err: err}
	}
	return key, nil
}

// Add queues an Added item for obj.
func (f *RealFIFO) Add(obj api.Object) error { return f.queueAction(Added, obj) }

// Update queues an Updated item for obj.
func (f *RealFIFO) Update(obj api.Object) error { return f.queueAction(Updated, obj) }

// Delete queues a Deleted item for obj. Unlike the DeltaFIFO it does not
// check whether the consumer still knows the object: the queue reports
// the stream as it came, as upstream's RealFIFO does.
func (f *RealFIFO) Delete(obj api.Object) error { return f.queueAction(Deleted, obj) }

// queueAction keys obj and queues an item of type t for it.
func (f *RealFIFO) queueAction(t DeltaType, obj api.Object) error {
	key, err := f.KeyOf(obj)
	if err != nil {
		return err
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	f.populated = true
	f.appendLocked(t, key, obj)
	return nil
}

// appendLocked queues one event at the back.
func (f *RealFIFO) appendLocked(t DeltaType, key string, obj any) {
	d := Delta{Type: t, Object: obj}
	if f.trace != nil {
		f.trace(StageDelta, key, d)
	}
	f.items = append(f.items, queuedEvent{key: key, delta: d})
	f.cond.Broadcast()
}

// Replace reports a fresh LIST of every object, read at resourceVersion.
// First, each key the consumer knew but the list lacks gets a Deleted item
// whose Object is a DeletedFinalStateUnknown: the object was deleted while
// the watch was not looking. "Known" means queued here (the tombstone
// carries the newest queued state; a key whose newest item is already a
// deletion needs no second one) or present in KnownObjects (it carries the
// cached state). Then every listed object gets a Replaced item, in list
// order. Tombstones are queued in key order, so a relist's items are the
// same every time.
//
// The first call also fixes what HasSynced waits for: every item queued
// when it returns.
func (f *RealFIFO) Replace(list []api.Object, resourceVersion string) error {
	keys := make([]string, len(list))
	listed := make(map[string]struct{}, len(list))
	for i, obj := range list {
		key, err := f.KeyOf(obj)
		if err != nil {
			return fmt.Errorf("replace at resourceVersion %q: %w", resourceVersion, err)
		}
		keys[i] = key
		listed[key] = struct{}{}
	}

	f.lock.Lock()
	defer f.lock.Unlock()

	// The newest queued item of every key, to tombstone queued keys the
	// list lacks.
	newestQueued := map[string]Delta{}
	for _, item := range f.items {
		newestQueued[item.key] = item.delta
	}
	var vanished []string
	for key, d := range newestQueued {
		if _, ok := listed[key]; !ok && d.Type != Deleted {
			vanished = append(vanished, key)
		}
	}
	slices.Sort(vanished)
	for _, key := range vanished {
		f.appendLocked(Deleted, key, DeletedFinalStateUnknown{Key: key, Obj: lastKnownState(Deltas{newestQueued[key]})})
	}

	if f.knownObjects != nil {
		known := f.knownObjects.ListKeys()
		slices.Sort(known)
		for _, key := range known {
			if _, ok := listed[key]; ok {
				continue
			}
			if _, queued := newestQueued[key]; queued {
				continue // tombstoned above, or its deletion is already queued
			}
			obj, exists, err := f.knownObjects.GetByKey(key)
			if err != nil || !exists {
				slog.Warn("relist: object vanished from the cache; its tombstone has no last state",
					"component", "informer", "key", key, "err", err)
				obj = nil
			}
			f.appendLocked(Deleted, key, DeletedFinalStateUnknown{Key: key, Obj: obj})
		}
	}

	for i, obj := range list {
		f.appendLocked(Replaced, keys[i], obj)
	}

	if !f.populated {
		// Every item queued now, not only this list's: Pop takes them in
		// order, so the list is delivered once all of them are popped.
		f.populated = true
		f.initialPopulationCount = len(f.items)
	}
	f.lastSyncResourceVersion = resourceVersion
	return nil
}

// Resync queues a Sync item for every object in KnownObjects that has no
// item queued. A key with queued items is skipped because the cache still
// holds its older state: re-delivering that would move the consumer
// backwards. Without KnownObjects there is nothing to resync.
func (f *RealFIFO) Resync() error {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.knownObjects == nil {
		return nil
	}
	queued := make(map[string]struct{}, len(f.items))
	for _, item := range f.items {
		queued[item.key] = struct{}{}
	}
	keys := f.knownObjects.ListKeys()
	slices.Sort(keys)
	for _, k := range keys {
		obj, exists, err := f.knownObjects.GetByKey(k)
		if err != nil {
			return fmt.Errorf("resync %q: %w", k, err)
		}
		if !exists {
			continue // deleted from the cache since ListKeys
		}
		key, err := f.KeyOf(obj)
		if err != nil {
			return fmt.Errorf("resync: %w", err)
		}
		if _, ok := queued[key]; ok {
			continue
		}
		f.appendLocked(Sync, key, obj)
	}
	return nil
}

// Pop waits until an item is queued, removes the oldest, and calls process
// on it — a Deltas of exactly one Delta — while holding the lock. It
// returns the Deltas (as any) and process's error.
//
// An ErrRequeue from process is not honoured: put back at the end, the
// item would overtake nothing but be overtaken by everything, and at the
// front it would block the queue. As upstream's RealFIFO, the item is
// dropped; Pop returns the ErrRequeue's cause.
//
// Closing the queue wakes a waiting Pop; a closed queue still hands out
// what it holds, and Pop returns ErrFIFOClosed once it is empty.
func (f *RealFIFO) Pop(process PopProcessFunc) (any, error) {
	f.lock.Lock()
	defer f.lock.Unlock()
	for len(f.items) == 0 {
		if f.closed {
			return nil, ErrFIFOClosed
		}
		f.cond.Wait()
	}
	isInInitialList := !f.hasSyncedLocked()
	item := f.items[0]
	// Clear the slot: the array behind the slice outlives the pop, and the
	// object must not stay reachable from it.
	f.items[0] = queuedEvent{}
	f.items = f.items[1:]
	if f.initialPopulationCount > 0 {
		f.initialPopulationCount--
	}
	deltas := Deltas{item.delta}
	err := process(deltas, isInInitialList)
	var requeue ErrRequeue
	if errors.As(err, &requeue) {
		err = requeue.Err
	}
	return deltas, err
}

// HasSynced reports whether the initial list has been delivered: true once
// every item queued by the first Replace has been popped, or at once if an
// Add, Update or Delete came before any Replace.
func (f *RealFIFO) HasSynced() bool {
	f.lock.Lock()
	defer f.lock.Unlock()
	return f.hasSyncedLocked()
}

func (f *RealFIFO) hasSyncedLocked() bool {
	return f.populated && f.initialPopulationCount == 0
}

// Close marks the queue closed and wakes every waiting Pop.
func (f *RealFIFO) Close() {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (f *RealFIFO) IsClosed() bool {
	f.lock.Lock()
	defer f.lock.Unlock()
	return f.closed
}

// Len returns the number of queued items (events, not keys).
func (f *RealFIFO) Len() int {
	f.lock.Lock()
	defer f.lock.Unlock()
	return len(f.items)
}

// ListKeys returns the key of every queued item in the order Pop will
// return them; a key appears once per item.
func (f *RealFIFO) ListKeys() []string {
	f.lock.Lock()
	defer f.lock.Unlock()
	keys := make([]string, len(f.items))
	for i, item := range f.items {
		keys[i] = item.key
	}
	return keys
}

// LastSyncResourceVersion returns the resourceVersion passed to the most
// recent Replace ("" before the first).
func (f *RealFIFO) LastSyncResourceVersion() string {
	f.lock.Lock()
	defer f.lock.Unlock()
	return f.lastSyncResourceVersion
}
