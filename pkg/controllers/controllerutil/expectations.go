package controllerutil

import (
	"sync"
	"time"

	"kplane/pkg/clock"
)

// ExpectationsTimeout is how long a controller trusts its expectations: if
// the watch events it waits for have not arrived after 5 minutes (upstream's
// value) it syncs anyway, so a lost event can stall an owner but not forever.
const ExpectationsTimeout = 5 * time.Minute

// Expectations remember, per owner key, how many creates and deletes a
// controller has asked the apiserver for and not yet seen come back through
// its informer. Until they are seen, the informer's cache is behind the
// controller's own writes, and a sync that trusted it would create (or
// delete) the same pods again. So a sync first asks Satisfied and, if not,
// does nothing: the watch events that lower the counts enqueue the owner
// again. This is what makes "a slow watch never causes double creates" true.
//
// Deletions are tracked by pod key, not by count, so that a pod deleted by
// someone else (or a graceful deletion seen twice) is not counted twice.
type Expectations struct {
	clock clock.Clock
	mu    sync.Mutex
	items map[string]*expectation
}

type expectation struct {
	adds      int
	deletes   map[string]struct{} // pod keys whose deletion we wait to see
	timestamp time.Time
}

// NewExpectations returns an empty set of expectations; a nil clock is the
// wall clock.
func NewExpectations(c clock.Clock) *Expectations {
	if c == nil {
		c = clock.Real{}
	}
	return &Expectations{clock: c, items: map[string]*expectation{}}
}

// Satisfied reports whether ownerKey's sync may trust the cache: no creates
// or deletes outstanding, none recorded at all, or the record is older than
// ExpectationsTimeout.
func (e *Expectations) Satisfied(ownerKey string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	exp, ok := e.items[ownerKey]
	if !ok {
		return true
	}
	if exp.adds <= 0 && len(exp.deletes) == 0 {
		return true
	}
	return e.clock.Since(exp.timestamp) > ExpectationsTimeout
}

// ExpectCreations records that ownerKey's sync is about to create n pods.
// It replaces the creates recorded before and keeps the deletes, so one
// sync may both create and delete.
func (e *Expectations) ExpectCreations(ownerKey string, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	exp := e.entryLocked(ownerKey)
	exp.adds = n
}

// ExpectDeletions records that ownerKey's sync is about to delete the pods
// with these keys. It replaces the deletes recorded before and keeps the
// creates.
func (e *Expectations) ExpectDeletions(ownerKey string, podKeys []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	exp := e.entryLocked(ownerKey)
	exp.deletes = make(map[string]struct{}, len(podKeys))
	for _, k := range podKeys {
		exp.deletes[k] = struct{}{}
	}
}

// entryLocked returns ownerKey's record, created if missing, with its
// timestamp refreshed: the timeout counts from the latest expectation.
func (e *Expectations) entryLocked(ownerKey string) *expectation {
	exp, ok := e.items[ownerKey]
	if !ok {
		exp = &expectation{deletes: map[string]struct{}{}}
		e.items[ownerKey] = exp
	}
	exp.timestamp = e.clock.Now()
	return exp
}

// CreationObserved lowers ownerKey's outstanding creates by one: the
// informer saw one of its pods arrive, or a create failed and will never
// arrive.
func (e *Expectations) CreationObserved(ownerKey string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if exp, ok := e.items[ownerKey]; ok && exp.adds > 0 {
		exp.adds--
	}
}

// DeletionObserved marks the deletion of podKey as seen for ownerKey (the
// informer saw it go, or the delete failed).
func (e *Expectations) DeletionObserved(ownerKey, podKey string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if exp, ok := e.items[ownerKey]; ok {
		delete(exp.deletes, podKey)
	}
}

// Delete forgets ownerKey, when the owner itself is deleted.
func (e *Expectations) Delete(ownerKey string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.items, ownerKey)
}

// Pending returns the creates and deletes ownerKey still waits for (for
// logs and tests).
func (e *Expectations) Pending(ownerKey string) (adds, deletes int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if exp, ok := e.items[ownerKey]; ok {
		return exp.adds, len(exp.deletes)
	}
	return 0, 0
}
