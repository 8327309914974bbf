package cache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"kplane/pkg/store"
)

// Decoder turns a stored value into what the cache keeps for it. The
// apiserver's decoder parses the JSON, sets metadata.resourceVersion from
// kv.ModRevision, and pre-computes what every reader would otherwise compute
// again (the response bytes, the labels and fields that selectors look at).
// The cache calls it once per change, so that work is shared by every List
// and every watcher.
type Decoder func(kv store.KV) (any, error)

// Entry is one key of the snapshot: the latest state of one object.
type Entry struct {
	Key string
	// Revision is the key's mod revision, i.e. the object's resourceVersion.
	Revision int64
	// Object is what the Decoder returned. It is shared; never modify it.
	Object any
}

// Event is one change delivered to a watcher, in revision order.
type Event struct {
	// Type is store.Added, Modified, Deleted, Bookmark or Error.
	Type store.EventType
	Key  string
	// Revision is the revision of the change; for a Bookmark, the revision the
	// watch has caught up to.
	Revision int64
	// Object is the new state. For Deleted it is the last state, decoded with
	// its resourceVersion set to the delete's revision (as Kubernetes reports
	// a deleted object).
	Object any
	// PrevObject is the state before the change (Modified, Deleted); nil for
	// Added. The apiserver needs it to turn a change that moves an object out
	// of a label selector into DELETED for that selector's watchers.
	PrevObject any
	// PrevRevision is PrevObject's revision (0 for Added): with it, a list
	// at an earlier revision is rebuilt from the history (page.go).
	PrevRevision int64
	// Err says why the watch ended, for an Error event (errors.Is(Err,
	// store.ErrGone) means "re-list").
	Err error
}

// Watcher is a running watch on the cache. Events arrive in revision order
// on ResultChan, which is closed when the watch ends: after Stop, when the
// context given to Watch ends, after an Error event, when the watcher fell
// too far behind (see dispatch.go), or when the cache stops. A client whose
// channel closed without an Error event resumes by watching again from the
// last revision it saw.
type Watcher interface {
	ResultChan() <-chan Event
	Stop()
}

// Errors returned by List and Watch; test them with errors.Is.
var (
	// ErrTooLargeRevision: the cache did not reach the requested revision
	// within Options.FreshnessTimeout. Upstream answers such a request with
	// 504 (reason Timeout, cause ResourceVersionTooLarge); for a consistent
	// read the apiserver may instead read from the store directly.
	ErrTooLargeRevision = errors.New("watch cache has not reached the requested revision")
	// ErrStopped: the cache's Run has returned; it serves nothing any more.
	ErrStopped = errors.New("watch cache is stopped")
)

// TooLargeRevisionError is the error of a wait for a revision the cache did
// not reach in time: Requested is the revision waited for, Current the
// cache's revision when it gave up. errors.Is(err, ErrTooLargeRevision)
// holds for it.
type TooLargeRevisionError struct {
	Requested, Current int64
	Waited             time.Duration
}

func (e *TooLargeRevisionError) Error() string {
	return fmt.Sprintf("%v: waited %s for revision %d, the cache is at %d",
		ErrTooLargeRevision, e.Waited, e.Requested, e.Current)
}

// Unwrap makes errors.Is(err, ErrTooLargeRevision) true.
func (e *TooLargeRevisionError) Unwrap() error { return ErrTooLargeRevision }

// Cache is the watch cache of one store prefix. Create it with New, start
// Run in a goroutine, and wait for Ready before relying on Get.
type Cache struct {
	store  store.Interface
	prefix string
	decode Decoder
	opts   Options
	log    *slog.Logger

	ready     chan struct{} // closed once the first list is loaded
	readyOnce sync.Once
	stopped   chan struct{} // closed when Run returns

	// mu guards the fields below. The Run goroutine is their only writer
	// (except that Watch and Stop add and remove watchers).
	mu       sync.RWMutex
	snapshot snapshot
	history  history
	// revision is how far the cache has caught up with the store: every
	// change under the prefix up to it is in the snapshot.
	revision int64
	// revisionAdvanced is closed (and replaced) whenever revision grows or
	// the cache stops, to wake waitForRevision.
	revisionAdvanced chan struct{}
	watchers         map[int64]*cacheWatcher
	nextWatcherID    int64
	// storeWatchers are the watches relayed from the store (see
	// store_watcher.go), tracked only so that they end with the cache.
	storeWatchers map[*storeWatcher]struct{}
	// storeWatch is the cache's own watch on the store while one is open;
	// waitForRevision and bookmarks ask it for progress notifications.
	storeWatch store.Watcher
	isStopped  bool

	// drops carries DropWatches' requests to the Run goroutine.
	drops chan dropRequest

	// Owned by the Run goroutine, no lock needed.
	budget  dispatchBudget
	targets []*cacheWatcher // reused per event: the watchers it goes to
	blocked []*cacheWatcher // reused per event: the ones whose buffer was full
}

// New returns a cache of the keys under prefix, which must end in "/" (so
// that /registry/pods/ns1/ never matches /registry/pods/ns10/). decode is
// called once for every value listed or watched. Nothing happens until Run.
func New(s store.Interface, prefix string, decode Decoder, opts Options) *Cache {
	if s == nil || decode == nil {
		panic("cache.New: store and decoder are required")
	}
	if !strings.HasSuffix(prefix, "/") {
		panic(fmt.Sprintf("cache.New: prefix %q must end in \"/\"", prefix))
	}
	opts = opts.withDefaults()
	logger := opts.Logger.With("component", "watch-cache", "prefix", prefix)
	return &Cache{
		store:            s,
		prefix:           prefix,
		decode:           decode,
		opts:             opts,
		log:              logger,
		ready:            make(chan struct{}),
		stopped:          make(chan struct{}),
		history:          newHistory(opts.EventBufferSize, 0),
		revisionAdvanced: make(chan struct{}),
		watchers:         make(map[int64]*cacheWatcher),
		storeWatchers:    make(map[*storeWatcher]struct{}),
		budget:           newDispatchBudget(),
		drops:            make(chan dropRequest),
	}
}

// Ready returns a channel that is closed once the first list is loaded.
func (c *Cache) Ready() <-chan struct{} { return c.ready }

// Revision returns the store revision the cache has caught up to: every
// change under its prefix up to this revision is reflected in Get and List.
func (c *Cache) Revision() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.revision
}

// Get returns the cached entry for key. It does not wait for freshness (use
// List with minRevision for that) and finds nothing before Ready.
func (c *Cache) Get(key string) (Entry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.snapshot.get(key)
}

// List returns every entry under prefix in key order, as of a revision >=
// minRevision, and that revision. minRevision 0 means a consistent read:
// the cache first asks the store for its current revision and waits until it
// has caught up to it. Waiting gives up after Options.FreshnessTimeout with
// ErrTooLargeRevision, or when ctx ends.
func (c *Cache) List(ctx context.Context, prefix string, minRevision int64) ([]Entry, int64, error) {
	if err := c.checkPrefix(prefix); err != nil {
		return nil, 0, err
	}
	if err := c.waitReady(ctx); err != nil {
		return nil, 0, err
	}
	if minRevision == 0 {
		current, err := c.store.CurrentRevision(ctx)
		if err != nil {
			return nil, 0, fmt.Errorf("consistent list of %s: read the store's revision: %w", prefix, err)
		}
		minRevision = current
	}
	if err := c.waitForRevision(ctx, minRevision); err != nil {
		return nil, 0, fmt.Errorf("list %s: %w", prefix, err)
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.snapshot.list(prefix), c.revision, nil
}

// checkPrefix rejects a prefix outside the cache's own, or one that does not
// end in "/" (which would let /registry/pods/ns1 match ns10's keys too).
func (c *Cache) checkPrefix(prefix string) error {
	if !strings.HasPrefix(prefix, c.prefix) || !strings.HasSuffix(prefix, "/") {
		return fmt.Errorf("prefix %q is not a \"/\"-terminated prefix under the cache's prefix %q", prefix, c.prefix)
	}
	return nil
}

// advanceLocked records that the cache has caught up to rev and wakes the
// goroutines waiting for a revision. Revisions never go back.
func (c *Cache) advanceLocked(rev int64) {
	if rev <= c.revision {
		return
	}
	c.revision = rev
	close(c.revisionAdvanced)
	c.revisionAdvanced = make(chan struct{})
}
