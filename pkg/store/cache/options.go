package cache

import (
	"log/slog"
	"time"
)

// Options tunes a Cache. The zero value means "all defaults".
type Options struct {
	// EventBufferSize is how many recent events the cache keeps so that a
	// watch resuming from an older revision is replayed from memory instead
	// of from etcd. Default 10 000. Each buffered event keeps one version of
	// an object alive (a pod with its pre-encoded JSON is a few KiB), so a
	// busy resource may hold tens of MiB here; the ring grows only as events
	// arrive, so an idle resource costs almost nothing. Upstream starts at 100
	// and resizes to hold about 75 s of history.
	EventBufferSize int
	// WatcherBufferSize is how many events may queue for one watcher before
	// the dispatcher has to wait for it. Default 100: upstream's size for a
	// watcher that is not narrowed by an index.
	WatcherBufferSize int
	// BookmarkInterval is how often a watcher that asked for bookmarks gets
	// one, carrying the cache's revision, when that revision has moved past
	// the last thing it was sent. Default 1 s. Upstream sends them about once
	// a minute, a choice made for clusters with tens of thousands of
	// watchers; kplane's are few, and a bookmark is a few dozen bytes. A
	// short interval keeps every informer's resourceVersion close to etcd's,
	// so a client that reconnects resumes from memory instead of re-listing,
	// and it makes bookmarks visible in a lesson.
	BookmarkInterval time.Duration
	// FreshnessTimeout is how long List and Watch wait for the cache to reach
	// a requested revision before returning ErrTooLargeRevision. Default 3 s,
	// upstream's wait before it answers "Too large resource version".
	FreshnessTimeout time.Duration
	// Logger receives the cache's logs. Default slog.Default().
	Logger *slog.Logger
	// OnDispatch, when set, is called with each change the cache hands to
	// its watchers and how many watchers (whose key prefix matched) it
	// goes to: the apiserver's debug journal records the fan-out with it.
	// It runs in the cache's Run goroutine, so it must be quick.
	OnDispatch func(ev Event, watchers int)
	// Index, when set, files every object under the value it returns (a
	// pod under its spec.nodeName; "" files nothing), so that ByIndex
	// finds the objects with one value without scanning them all
	// (index.go). It is called with the Decoder's objects, under the
	// cache's lock, so it must be quick.
	Index func(obj any) string
}

// Defaults; see the field comments on Options for the reasons.
const (
	DefaultEventBufferSize   = 10000
	DefaultWatcherBufferSize = 100
	DefaultBookmarkInterval  = time.Second
	DefaultFreshnessTimeout  = 3 * time.Second
)

func (o Options) withDefaults() Options {
	if o.EventBufferSize <= 0 {
		o.EventBufferSize = DefaultEventBufferSize
	}
	if o.WatcherBufferSize <= 0 {
		o.WatcherBufferSize = DefaultWatcherBufferSize
	}
	if o.BookmarkInterval <= 0 {
		o.BookmarkInterval = DefaultBookmarkInterval
	}
	if o.FreshnessTimeout <= 0 {
		o.FreshnessTimeout = DefaultFreshnessTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}
