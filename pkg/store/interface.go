// Package store is the only code in kplane that talks to etcd. It keeps
// objects as JSON values under /registry/<resource>/[<namespace>/]<name>, uses
// the etcd mod revision of a key as the object's resourceVersion, and turns
// etcd's answers into a few typed errors (ErrNotFound, ErrAlreadyExists,
// ErrConflict, ErrGone) the apiserver maps onto Kubernetes Status codes.
package store

import (
	"context"
	"errors"
	"fmt"
)

// The errors a Store returns; test them with errors.Is.
var (
	// ErrNotFound: no value under the key.
	ErrNotFound = errors.New("key not found")
	// ErrAlreadyExists: Create found the key taken.
	ErrAlreadyExists = errors.New("key already exists")
	// ErrConflict: Update or Delete was told a revision the key no longer has.
	ErrConflict = errors.New("revision conflict")
	// ErrGone: the requested revision has been compacted away.
	ErrGone = errors.New("required revision has been compacted")
	// ErrTooLarge: etcd refused the value as bigger than its request limit.
	ErrTooLarge = errors.New("value too large for the store")
	// ErrFutureRevision: a read asked for a revision etcd has not reached.
	ErrFutureRevision = errors.New("required revision is a future revision")
)

// FutureRevisionError is the error of a read at a revision etcd has not
// reached: Requested is the revision asked for, Current the store's revision
// when it refused (0 if that could not be read). errors.Is(err,
// ErrFutureRevision) holds for it.
type FutureRevisionError struct {
	Requested, Current int64
}

func (e *FutureRevisionError) Error() string {
	return fmt.Sprintf("%v: requested %d, current %d", ErrFutureRevision, e.Requested, e.Current)
}

// Unwrap makes errors.Is(err, ErrFutureRevision) true.
func (e *FutureRevisionError) Unwrap() error { return ErrFutureRevision }

// KV is one stored value and the revisions that describe it.
type KV struct {
	Key            string
	Value          []byte
	ModRevision    int64 // the revision of the last write: the object's resourceVersion
	CreateRevision int64
	// Version counts the writes to the key since it was created: 1 after
	// the create, 2 after the first update. A delete resets it to 0.
	Version int64
}

// EventType says what happened to a key.
type EventType string

// Event types. Bookmark carries only a revision: "nothing you watch changed up
// to here". Error carries Err and ends the watch.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Bookmark EventType = "BOOKMARK"
	Error    EventType = "ERROR"
)

// Event is one change seen by a watch. For Deleted, KV holds the last value
// the key had and KV.ModRevision is the revision of the delete itself (as
// Kubernetes reports a deleted object's resourceVersion). PrevKV, when known,
// is the value before a Modified or Deleted.
type Event struct {
	Type     EventType
	KV       KV
	PrevKV   *KV
	Revision int64 // the revision of this event (== KV.ModRevision except for Bookmark/Error)
	Err      error
}

// ListOptions narrows a List.
type ListOptions struct {
	// Revision reads the state as of this revision; 0 means the latest.
	// A compacted revision gives ErrGone.
	Revision int64
	// Limit caps the number of items; 0 means all.
	Limit int64
	// StartAfter continues a paginated list after this key (exclusive).
	StartAfter string
}

// ListResult is a page of keys under a prefix, in key order.
type ListResult struct {
	Items []KV
	// Revision is the store revision the list was read at.
	Revision int64
	// More says keys remain after the last item; Remaining counts them.
	More      bool
	Remaining int64
}

// Watcher is a running watch. Events arrive in revision order on ResultChan,
// which is closed when the watch ends (Stop, context cancel, or an Error event).
type Watcher interface {
	ResultChan() <-chan Event
	Stop()
	// RequestProgress asks etcd to send a Bookmark event carrying its current
	// revision, so a watcher learns how far the store has moved even when
	// nothing under its prefix changed.
	RequestProgress(ctx context.Context) error
}

// Interface is what the apiserver needs from storage.
type Interface interface {
	// Get returns the current value of key, or ErrNotFound.
	Get(ctx context.Context, key string) (KV, error)
	// List returns the keys under prefix (which should end in "/").
	List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error)
	// Create stores value under key if the key is free, else ErrAlreadyExists.
	Create(ctx context.Context, key string, value []byte) (KV, error)
	// Update replaces the value of key if its mod revision is still
	// expectedRevision, else ErrConflict (or ErrNotFound if it is gone).
	Update(ctx context.Context, key string, value []byte, expectedRevision int64) (KV, error)
	// Delete removes key if its mod revision is expectedRevision (0: any) and
	// returns the last value, with ModRevision set to the delete's revision.
	Delete(ctx context.Context, key string, expectedRevision int64) (KV, error)
	// Watch streams the changes under prefix with revision > afterRevision
	// (0: from now). A compacted afterRevision gives ErrGone, either at once or
	// as an Error event.
	Watch(ctx context.Context, prefix string, afterRevision int64) (Watcher, error)
	// CurrentRevision returns the store's latest revision.
	CurrentRevision(ctx context.Context) (int64, error)
	// Compact discards history before revision.
	Compact(ctx context.Context, revision int64) error
}
