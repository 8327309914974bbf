package informer

// This file is the queue between the reflector and the cache. The reflector
// turns LIST and WATCH responses into calls to Add, Update, Delete and
// Replace; the shared informer's single processing goroutine calls Pop and,
// for each key, applies what happened to the indexer and tells the event
// handlers. Upstream moved informers to a simpler RealFIFO in 1.33
// (real_fifo.go; WithFIFO(FIFOReal) runs it); kplane teaches the DeltaFIFO
// by default, whose per-object delta lists make every step of an object's
// history visible.

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"kplane/pkg/api"
)

// DeltaType says what happened to an object.
type DeltaType string

// The kinds of change a Delta records.
const (
	// Added: a watch reported the object created.
	Added DeltaType = "Added"
	// Updated: a watch reported the object changed.
	Updated DeltaType = "Updated"
	// Deleted: a watch reported the object deleted, or a relist no longer
	// contains it (then the Delta's Object is a DeletedFinalStateUnknown).
	Deleted DeltaType = "Deleted"
	// Replaced: the object was in a relist. The consumer cannot tell from
	// the list whether it changed, so it compares with its cache: unknown
	// means an add, known means an update.
	Replaced DeltaType = "Replaced"
	// Sync: a periodic resync re-delivered an object that has not changed,
	// so handlers get another chance to reconcile it.
	Sync DeltaType = "Sync"
)

// Delta is one thing that happened to an object, with the object's state
// right after it. Object is an api.Object, except for a Deleted delta
// produced by a relist, whose Object is a DeletedFinalStateUnknown.
type Delta struct {
	Type   DeltaType
	Object any
}

// Deltas is the history of one object since it was last popped, oldest
// first. A Deltas taken from a DeltaFIFO is never empty and never ends with
// two Deleted deltas (see DeltaFIFO for the whole list of invariants).
type Deltas []Delta

// Oldest returns the first delta, or nil for an empty list.
func (d Deltas) Oldest() *Delta {
	if len(d) == 0 {
		return nil
	}
	return &d[0]
}

// Newest returns the most recent delta, or nil for an empty list. Its
// Object is the latest known state of the object.
func (d Deltas) Newest() *Delta {
	if len(d) == 0 {
		return nil
	}
	return &d[len(d)-1]
}

// DeletedFinalStateUnknown is a tombstone: the object under Key was deleted,
// but its deletion was not seen on a watch. It appears when a relist (a
// Replace, typically after the watch broke or its resourceVersion expired
// with 410 Gone) no longer contains an object the consumer knew. The
// apiserver never says what the object looked like when it was deleted, so
// Obj is the last state the consumer had — possibly stale, and nil if even
// that was lost. Event handlers' OnDelete must therefore accept either the
// object itself or a DeletedFinalStateUnknown.
type DeletedFinalStateUnknown struct {
	Key string
	Obj api.Object
}

// KeyListerGetter is what the DeltaFIFO needs of the consumer's cache — the
// indexer, in an informer — to know which objects the consumer has: for a
// relist, to find deletions the watch missed; for a resync, to re-deliver
// every object. An Indexer satisfies it.
type KeyListerGetter interface {
	ListKeys() []string
	GetByKey(key string) (api.Object, bool, error)
}

// PopProcessFunc handles the Deltas (passed as obj) of one key popped from
// a DeltaFIFO. isInInitialList is true while the items of the first Replace
// are being delivered, so handlers can tell the initial list's adds from
// later ones. It runs under the DeltaFIFO's lock and must not call the FIFO.
type PopProcessFunc func(obj any, isInInitialList bool) error

// ErrRequeue, returned by a PopProcessFunc, asks Pop to put the popped
// Deltas back, at the end of the queue. Pop then returns Err, which may be
// nil. "Don't retry" is simply any other error: Pop returns it and the
// Deltas are gone.
type ErrRequeue struct {
	Err error
}

// Error describes the requeue and its cause.
func (e ErrRequeue) Error() string {
	if e.Err == nil {
		return "the popped item should be requeued"
	}
	return e.Err.Error()
}

// Unwrap gives the cause to errors.Is and errors.As.
func (e ErrRequeue) Unwrap() error { return e.Err }

// ErrFIFOClosed is returned by Pop once the queue is closed and empty.
var ErrFIFOClosed = errors.New("DeltaFIFO: queue is closed")

// DeltaFIFOOptions configures a DeltaFIFO.
type DeltaFIFOOptions struct {
	// KeyFunction keys objects; nil means MetaNamespaceKeyFunc.
	KeyFunction KeyFunc
	// KnownObjects is the consumer's cache (the informer's indexer). With
	// it, Replace emits tombstones for cached objects missing from a
	// relist, and Resync can re-deliver cached objects. Without it, Replace
	// can only detect deletions among keys still queued, and Resync does
	// nothing.
	KnownObjects KeyListerGetter
	// Trace, if set, is called for every delta queued, with stage "delta",
	// and for every delta dropped by the deletion dedup, with stage
	// "dedup". It runs under the queue's lock: it must be quick and must not
	// call the FIFO.
	Trace func(stage, key string, d Delta)
}

// DeltaFIFO is a producer-consumer queue of per-object change lists. The
// reflector produces; the informer consumes with Pop. It exists so that:
//   - each change reaches the consumer at most once;
//   - when the consumer gets an object, it gets everything that happened to
//     it since it last got it, oldest first, not just the latest state;
//   - deletions are delivered even when the watch missed them (tombstones);
//   - the consumer can ask to see every object again (resync).
//
// Invariants (all under lock):
//   - A key is in queue iff it is in items, and in queue exactly once. The
//     queue is ordered by the first time a key got a delta since it was
//     last popped: later deltas for a queued key join its list and do not
//     move it. A key popped and then changed again goes to the back.
//   - items[key] is never empty. It may hold any sequence of Added,
//     Updated, Replaced, Sync and Deleted; a Deleted may be followed by an
//     Added (the name was reused by a new object).
//   - items[key] never ends with two Deleted deltas: when a second
//     deletion arrives, one is dropped, keeping the one that carries the
//     real object rather than a tombstone (of two real objects, the
//     earlier; of two tombstones, the later).
//   - A DeletedFinalStateUnknown only ever appears as the Object of a
//     Deleted delta queued by Replace, for a key that was known (to
//     KnownObjects, or queued here) but is absent from the new list.
//   - Resync queues a Sync delta only for a key with nothing queued, so a
//     resync never re-delivers a state older than one already queued.
//
// Pop calls the process function while holding the lock. That makes the
// consumer's update of its cache atomic with respect to Replace and Resync,
// which read that cache through KnownObjects; it also means the process
// function must not call back into the DeltaFIFO.
type DeltaFIFO struct {
	keyFunc      KeyFunc
	knownObjects KeyListerGetter
	trace        func(stage, key string, d Delta)

	// lock guards every field below; cond (on lock) wakes Pop when a key
	// is queued or the queue is closed.
	lock sync.RWMutex
	cond sync.Cond

	// items holds each queued key's deltas, oldest first.
	items map[string]Deltas
	// queue holds the queued keys in the order they will be popped.
	queue []string

	// populated is set by the first Add, Update, Delete or Replace.
	populated bool
	// initialPopulationCount is the number of keys the first Replace
	// queued that have not been popped yet. HasSynced is populated &&
	// initialPopulationCount == 0.
	initialPopulationCount int

	// lastSyncResourceVersion is the resourceVersion of the last Replace.
	lastSyncResourceVersion string

	// closed is set by Close; Pop then returns ErrFIFOClosed once empty.
	closed bool
}

// NewDeltaFIFO returns an empty, open DeltaFIFO.
func NewDeltaFIFO(opts DeltaFIFOOptions) *DeltaFIFO {
	f := &DeltaFIFO{
		keyFunc:      opts.KeyFunction,
		knownObjects: opts.KnownObjects,
		trace:        opts.Trace,
		items:        map[string]Deltas{},
	}
	if f.keyFunc == nil {
		f.keyFunc = MetaNamespaceKeyFunc
	}
	f.cond.L = &f.lock
	return f
}

// KeyOf returns the key of obj, which may be an api.Object, a
// DeletedFinalStateUnknown, or a Deltas (keyed by its newest object).
func (f *DeltaFIFO) KeyOf(obj any) (string, error) {
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

// Add queues an Added delta for obj.
func (f *DeltaFIFO) Add(obj api.Object) error {
	return f.queueAction(Added, obj)
}

// Update queues an Updated delta for obj.
func (f *DeltaFIFO) Update(obj api.Object) error {
	return f.queueAction(Updated, obj)
}

// queueAction keys obj and queues a delta of type t for it.
func (f *DeltaFIFO) queueAction(t DeltaType, obj api.Object) error {
	key, err := f.KeyOf(obj)
	if err != nil {
		return err
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	f.populated = true
	f.queueActionLocked(t, key, obj)
	return nil
}

// Delete queues a Deleted delta for obj, unless the consumer does not know
// the object and nothing is queued for it: then a relist has already
// reported the deletion with a tombstone, and a second report would be a
// duplicate.
func (f *DeltaFIFO) Delete(obj api.Object) error {
	key, err := f.KeyOf(obj)
	if err != nil {
		return err
	}
	f.lock.Lock()
	defer f.lock.Unlock()
	f.populated = true
	if _, queued := f.items[key]; !queued {
		if f.knownObjects == nil {
			return nil
		}
		// On a lookup error, queue the deletion anyway: a duplicate is
		// harmless to handlers, a lost deletion is not.
		if _, known, err := f.knownObjects.GetByKey(key); err == nil && !known {
			return nil
		}
	}
	f.queueActionLocked(Deleted, key, obj)
	return nil
}

// queueActionLocked appends a delta to key's list, collapsing a double
// deletion, and queues the key if it was not queued.
func (f *DeltaFIFO) queueActionLocked(t DeltaType, key string, obj any) {
	d := Delta{Type: t, Object: obj}
	if f.trace != nil {
		f.trace("delta", key, d)
	}
	deltas := append(f.items[key], d)
	if n := len(deltas); n >= 2 {
		if keep, drop, ok := dedupDeletion(deltas[n-2], deltas[n-1]); ok {
			deltas[n-2] = keep
			deltas = deltas[:n-1]
			if f.trace != nil {
				f.trace("dedup", key, drop)
			}
		}
	}
	if _, queued := f.items[key]; !queued {
		f.queue = append(f.queue, key)
	}
	f.items[key] = deltas
	f.cond.Broadcast()
}

// dedupDeletion decides, for the last two deltas of a list, whether they
// report the same deletion (both are Deleted) and which one to keep: the
// one with the real object rather than a tombstone; of two real objects
// the earlier, of two tombstones the later — upstream's rule.
func dedupDeletion(earlier, later Delta) (keep, drop Delta, ok bool) {
	if earlier.Type != Deleted || later.Type != Deleted {
		return Delta{}, Delta{}, false
	}
	if _, tombstone := earlier.Object.(DeletedFinalStateUnknown); tombstone {
		return later, earlier, true
	}
	return earlier, later, true
}

// Replace reports a fresh LIST of every object, read at resourceVersion.
// Each listed object gets a Replaced delta. Each key the consumer knew but
// the list lacks gets a Deleted delta whose Object is a
// DeletedFinalStateUnknown: the object was deleted while the watch was not
// looking. "Known" means either queued here (with the newest queued state
// as the tombstone's Obj) or, if it has nothing queued, present in
// KnownObjects (with the cached state as Obj).
//
// The first call also fixes what HasSynced waits for: every key it queued.
func (f *DeltaFIFO) Replace(list []api.Object, resourceVersion string) error {
	keys := make([]string, len(list))
	for i, obj := range list {
		key, err := f.KeyOf(obj)
		if err != nil {
			return fmt.Errorf("replace at resourceVersion %q: %w", resourceVersion, err)
		}
		keys[i] = key
	}

	f.lock.Lock()
	defer f.lock.Unlock()
	listed := make(map[string]struct{}, len(list))
	for i, obj := range list {
		listed[keys[i]] = struct{}{}
		f.queueActionLocked(Replaced, keys[i], obj)
	}

	// Tombstones are queued in key order so that a relist's output is the
	// same every time, which the trace and the tests rely on.
	var vanished []string
	for key := range f.items {
		if _, ok := listed[key]; !ok {
			vanished = append(vanished, key)
		}
	}
	slices.Sort(vanished)
	queuedDeletions := 0
	for _, key := range vanished {
		f.queueActionLocked(Deleted, key, DeletedFinalStateUnknown{Key: key, Obj: lastKnownState(f.items[key])})
		queuedDeletions++
	}

	if f.knownObjects != nil {
		known := f.knownObjects.ListKeys()
		slices.Sort(known)
		for _, key := range known {
			if _, ok := listed[key]; ok {
				continue
			}
			if len(f.items[key]) > 0 {
				continue // already tombstoned above, with a newer state
			}
			obj, exists, err := f.knownObjects.GetByKey(key)
			if err != nil || !exists {
				slog.Warn("relist: object vanished from the cache; its tombstone has no last state",
					"component", "informer", "key", key, "err", err)
				obj = nil
			}
			f.queueActionLocked(Deleted, key, DeletedFinalStateUnknown{Key: key, Obj: obj})
			queuedDeletions++
		}
	}

	if !f.populated {
		f.populated = true
		f.initialPopulationCount = len(listed) + queuedDeletions
	}
	f.lastSyncResourceVersion = resourceVersion
	return nil
}

// lastKnownState returns the newest object in d, looking through a
// tombstone so that tombstones never nest.
func lastKnownState(d Deltas) api.Object {
	newest := d.Newest()
	if newest == nil {
		return nil
	}
	switch o := newest.Object.(type) {
	case DeletedFinalStateUnknown:
		return o.Obj
	case api.Object:
		return o
	default:
		return nil
	}
}

// Resync queues a Sync delta for every object in KnownObjects that has no
// deltas queued. A key with queued deltas is skipped because the cache
// still holds its older state: re-delivering that would move the consumer
// backwards. Without KnownObjects there is nothing to resync.
func (f *DeltaFIFO) Resync() error {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.knownObjects == nil {
		return nil
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
		if len(f.items[key]) > 0 {
			continue
		}
		f.queueActionLocked(Sync, key, obj)
	}
	return nil
}

// Pop waits until a key is queued, removes it with its Deltas, and calls
// process on them while holding the lock. It returns the Deltas (as any)
// and process's error. If process returns ErrRequeue, the Deltas go back to
// the end of the queue and Pop returns the wrapped error instead.
//
// Closing the queue wakes a waiting Pop. Like upstream, a closed queue
// still hands out what it holds; Pop returns ErrFIFOClosed once it is
// empty.
func (f *DeltaFIFO) Pop(process PopProcessFunc) (any, error) {
	f.lock.Lock()
	defer f.lock.Unlock()
	for len(f.queue) == 0 {
		if f.closed {
			return nil, ErrFIFOClosed
		}
		f.cond.Wait()
	}
	isInInitialList := !f.hasSyncedLocked()
	key := f.queue[0]
	f.queue = f.queue[1:]
	if f.initialPopulationCount > 0 {
		f.initialPopulationCount--
	}
	deltas := f.items[key] // never missing: a key is queued iff it has items
	delete(f.items, key)

	err := process(deltas, isInInitialList)
	var requeue ErrRequeue
	if errors.As(err, &requeue) {
		// A copy, so that the caller's Deltas and the queued ones never
		// share an array a later append could write into.
		f.addIfNotPresentLocked(key, slices.Clone(deltas))
		err = requeue.Err
	}
	return deltas, err
}

// addIfNotPresentLocked queues deltas under key unless the key is queued.
func (f *DeltaFIFO) addIfNotPresentLocked(key string, deltas Deltas) {
	f.populated = true
	if _, queued := f.items[key]; queued {
		return
	}
	f.queue = append(f.queue, key)
	f.items[key] = deltas
	f.cond.Broadcast()
}

// HasSynced reports whether the initial list has been delivered: true once
// every key queued by the first Replace has been popped, or at once if an
// Add, Update or Delete came before any Replace.
func (f *DeltaFIFO) HasSynced() bool {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return f.hasSyncedLocked()
}

func (f *DeltaFIFO) hasSyncedLocked() bool {
	return f.populated && f.initialPopulationCount == 0
}

// Close marks the queue closed and wakes every waiting Pop.
func (f *DeltaFIFO) Close() {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (f *DeltaFIFO) IsClosed() bool {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return f.closed
}

// ListKeys returns the queued keys in the order Pop will return them.
func (f *DeltaFIFO) ListKeys() []string {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return slices.Clone(f.queue)
}

// GetByKey returns a copy of the deltas queued for key.
func (f *DeltaFIFO) GetByKey(key string) (Deltas, bool, error) {
	f.lock.RLock()
	defer f.lock.RUnlock()
	d, ok := f.items[key]
	if !ok {
		return nil, false, nil
	}
	return slices.Clone(d), true, nil
}

// Len returns the number of queued keys (the queue depth a metric shows).
func (f *DeltaFIFO) Len() int {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return len(f.queue)
}

// LastSyncResourceVersion returns the resourceVersion passed to the most
// recent Replace ("" before the first).
func (f *DeltaFIFO) LastSyncResourceVersion() string {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return f.lastSyncResourceVersion
}
