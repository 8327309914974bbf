package informer

// This file is the first stage of the informer pipeline: the reflector
// keeps a local store in step with the apiserver by listing once and then
// watching. It is the only part of the informer that talks to the network.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"sync"
	"syscall"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
)

// ReflectorStore is where a Reflector writes what it learns: every watch
// event becomes an Add, Update or Delete, every (re)list a Replace, and
// every resync period a Resync. The informer passes its DeltaFIFO.
type ReflectorStore interface {
	Add(obj api.Object) error
	Update(obj api.Object) error
	Delete(obj api.Object) error
	// Replace makes list the complete content, read at resourceVersion.
	Replace(list []api.Object, resourceVersion string) error
	// Resync asks the store to re-deliver everything it knows.
	Resync() error
}

// ReflectorOptions tune a Reflector. The zero value is usable: wall clock,
// no resync, upstream's back-off and watch timeout.
type ReflectorOptions struct {
	// ExpectedType is an example of the objects the reflector should see
	// (e.g. &api.Pod{}). Watch events carrying another Go type are logged
	// and dropped, as upstream does. nil accepts any type.
	ExpectedType api.Object
	// Clock reads time for back-off delays, resync periods and the
	// short-watch check. Default: the wall clock.
	Clock clock.Clock
	// ResyncPeriod is how often the reflector calls store.Resync (when
	// ShouldResync, if set, agrees). 0 disables resync. A resync re-delivers
	// the cached objects so handlers can retry what they missed; it does not
	// talk to the apiserver.
	ResyncPeriod time.Duration
	// ShouldResync, when set, is asked before each resync; the shared
	// informer uses it to resync only when some handler's period is due.
	ShouldResync func() bool
	// Backoff spaces out relists and re-watches after failures. Zero fields
	// take DefaultBackoff's values.
	Backoff Backoff
	// WatchTimeout is the shortest watch the reflector asks for: each watch
	// requests a random timeout between WatchTimeout and twice it, so the
	// watches of many clients end (and reconnect, possibly to another
	// apiserver) at different times. Upstream's minWatchTimeout: 5 minutes.
	WatchTimeout time.Duration
	// Trace receives a "watch" line per watch event and a "list" line per
	// listed object. nil: no trace.
	Trace Tracer
	// Logger receives warnings and errors. Default: slog.Default().
	Logger *slog.Logger
}

// defaultWatchTimeout is upstream's minWatchTimeout.
const defaultWatchTimeout = 5 * time.Minute

// shortWatchThreshold: a watch that ends this soon without delivering a
// single event probably failed (upstream calls it "very short watch"); the
// reflector backs off before watching again instead of hammering the
// apiserver.
const shortWatchThreshold = time.Second

// errShortWatch reports a watch that ended at once without events.
var errShortWatch = errors.New("watch ended immediately without events")

// Reflector keeps a ReflectorStore in step with one resource on the
// apiserver. Its loop (Run) is:
//
//  1. List the resource and Replace the store's content with the result.
//     The first list asks for resourceVersion "0" (whatever the apiserver's
//     cache holds, cheap); a relist asks for "not older than the last
//     resourceVersion seen", so the store never goes back in time; if the
//     apiserver says that version is too old, the reflector asks for the
//     latest state ("").
//  2. Watch from the list's resourceVersion, with bookmarks. Each ADDED,
//     MODIFIED or DELETED event becomes store.Add, Update or Delete, and its
//     resourceVersion becomes the last one seen; a BOOKMARK only moves the
//     last resourceVersion forward.
//  3. When a watch ends cleanly (server timeout, broken connection), watch
//     again from the last resourceVersion seen: no relist, no event missed,
//     none repeated, because a watch from N replays exactly the changes
//     after N.
//  4. When the apiserver answers 410 Gone (the history after our
//     resourceVersion was compacted away), or a watch cannot be started,
//     go back to 1 after a back-off delay. The relist's Replace lets the
//     store work out what was deleted meanwhile (DeletedFinalStateUnknown).
//
// Alongside, every ResyncPeriod it calls store.Resync.
type Reflector struct {
	name         string
	lw           ListerWatcher
	store        ReflectorStore
	expectedType reflect.Type
	clock        clock.Clock
	resyncPeriod time.Duration
	shouldResync func() bool
	backoff      *backoffTimer
	watchTimeout time.Duration
	trace        Tracer
	log          *slog.Logger

	mu sync.RWMutex
	// lastSyncResourceVersion is the resourceVersion of the last list or
	// watch event applied to the store: where the next watch starts.
	lastSyncResourceVersion string
	// lastSyncResourceVersionUnavailable is set when the apiserver refused
	// to list at lastSyncResourceVersion (it is compacted); the next list
	// asks for the latest state instead.
	lastSyncResourceVersionUnavailable bool
	// cancelWatch ends the watch in progress (nil between watches), for
	// DropWatch.
	cancelWatch context.CancelFunc
}

// NewReflector returns a Reflector that mirrors what lw lists and watches
// into store. name appears in logs and traces (the factory uses the
// resource, e.g. "pods").
func NewReflector(name string, lw ListerWatcher, store ReflectorStore, opts ReflectorOptions) *Reflector {
	r := &Reflector{
		name:         name,
		lw:           lw,
		store:        store,
		clock:        opts.Clock,
		resyncPeriod: opts.ResyncPeriod,
		shouldResync: opts.ShouldResync,
		watchTimeout: opts.WatchTimeout,
		trace:        opts.Trace,
		log:          opts.Logger,
	}
	if opts.ExpectedType != nil {
		r.expectedType = reflect.TypeOf(opts.ExpectedType)
	}
	if r.clock == nil {
		r.clock = clock.Real{}
	}
	if r.watchTimeout <= 0 {
		r.watchTimeout = defaultWatchTimeout
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	r.log = r.log.With("component", "reflector", "reflector", name)
	r.backoff = newBackoffTimer(opts.Backoff, r.clock)
	return r
}

// Run lists and watches until ctx is cancelled, relisting with back-off
// whenever the watch cannot continue. It returns once every goroutine it
// started has stopped.
func (r *Reflector) Run(ctx context.Context) {
	var wg sync.WaitGroup
	if r.resyncPeriod > 0 {
		wg.Go(func() { r.resyncLoop(ctx) })
	}
	for {
		err := r.listAndWatch(ctx)
		if ctx.Err() != nil {
			break
		}
		if apierrors.IsGone(err) {
			r.log.Info("watch history compacted, relisting", "resourceVersion", r.LastSyncResourceVersion(), "err", err)
		} else {
			r.log.Warn("list and watch failed, relisting after back-off", "err", err)
		}
		if !r.sleep(ctx, r.backoff.next()) {
			break
		}
	}
	wg.Wait()
}

// LastSyncResourceVersion is the resourceVersion of the last list or watch
// event the reflector applied ("" before the first list).
func (r *Reflector) LastSyncResourceVersion() string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.lastSyncResourceVersion
}

func (r *Reflector) setLastSyncResourceVersion(rv string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastSyncResourceVersion = rv
}

// relistResourceVersion is the resourceVersion the next list asks for.
func (r *Reflector) relistResourceVersion() string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.lastSyncResourceVersionUnavailable {
		// Our version is compacted: only a read of the latest state works.
		return ""
	}
	if r.lastSyncResourceVersion == "" {
		// First list: any state the apiserver's cache holds is fine, and the
		// watch that follows brings us up to date.
		return "0"
	}
	return r.lastSyncResourceVersion
}

func (r *Reflector) setLastSyncResourceVersionUnavailable(unavailable bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastSyncResourceVersionUnavailable = unavailable
}

// listAndWatch lists once, then watches until the watch cannot go on. It
// always returns an error saying why it stopped.
func (r *Reflector) listAndWatch(ctx context.Context) error {
	if err := r.list(ctx); err != nil {
		return err
	}
	return r.watch(ctx)
}

// list replaces the store's content with a fresh list.
func (r *Reflector) list(ctx context.Context) error {
	rv := r.relistResourceVersion()
	objects, listRV, err := r.lw.List(ctx, client.ListOptions{ResourceVersion: rv})
	if err != nil && rv != "" && apierrors.IsGone(err) {
		r.setLastSyncResourceVersionUnavailable(true)
		objects, listRV, err = r.lw.List(ctx, client.ListOptions{ResourceVersion: ""})
	}
	if err != nil {
		return fmt.Errorf("list %s at resourceVersion %q: %w", r.name, rv, err)
	}
	r.setLastSyncResourceVersionUnavailable(false)
	if r.trace != nil {
		for _, obj := range objects {
			r.traceObject(StageList, obj, "LIST")
		}
	}
	if err := r.store.Replace(objects, listRV); err != nil {
		return fmt.Errorf("replace the %s store with a list of %d at resourceVersion %s: %w", r.name, len(objects), listRV, err)
	}
	r.setLastSyncResourceVersion(listRV)
	r.log.Debug("listed", "items", len(objects), "resourceVersion", listRV)
	return nil
}

// watch starts watch after watch from the last resourceVersion seen, until
// one fails in a way that needs a relist.
func (r *Reflector) watch(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rv := r.LastSyncResourceVersion()
		started, dropped, err := r.watchOnce(ctx, rv)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case dropped:
			// Ended on purpose (DropWatch): watch again now, from where we are.
			r.traceRewatch()
		case !started && isRetriableWatchError(err):
			// The apiserver is away or busy, but our resourceVersion is
			// still good: wait and watch again, no relist needed.
			r.log.Info("watch could not start, retrying after back-off", "resourceVersion", rv, "err", err)
			if !r.sleep(ctx, r.backoff.next()) {
				return ctx.Err()
			}
		case !started:
			return fmt.Errorf("start watch of %s from resourceVersion %s: %w", r.name, rv, err)
		case err == nil:
			r.log.Debug("watch ended, resuming", "resourceVersion", r.LastSyncResourceVersion())
		case errors.Is(err, errShortWatch), apierrors.IsTooManyRequests(err):
			r.log.Info("watch ended early, retrying after back-off", "resourceVersion", rv, "err", err)
			if !r.sleep(ctx, r.backoff.next()) {
				return ctx.Err()
			}
		default:
			return err
		}
	}
}

// watchOnce runs one watch from rv until it ends. started says whether the
// apiserver accepted it; dropped, that DropWatch ended it; err is the
// failure to start it or handleWatch's verdict on how it ended.
func (r *Reflector) watchOnce(ctx context.Context, rv string) (started, dropped bool, err error) {
	// Each watch has a context of its own, so DropWatch can end this one
	// without stopping the reflector.
	watchCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.setCancelWatch(cancel)
	defer r.setCancelWatch(nil)
	timeout := int64(r.watchTimeout.Seconds() * (1 + rand.Float64()))
	w, err := r.lw.Watch(watchCtx, client.ListOptions{
		ResourceVersion:     rv,
		AllowWatchBookmarks: true,
		TimeoutSeconds:      &timeout,
	})
	if err == nil {
		started = true
		err = r.handleWatch(watchCtx, w)
		w.Stop()
	}
	return started, watchCtx.Err() != nil && ctx.Err() == nil, err
}

// DropWatch ends the watch in progress, as a broken connection would, and
// reports whether there was one. The reflector watches again at once from
// the last resourceVersion it saw: no relist, and no event missed or
// repeated (the lesson of `ctl fault drop-watch`). Between watches (while
// listing or backing off) there is nothing to drop.
func (r *Reflector) DropWatch() bool {
	r.mu.Lock()
	cancel := r.cancelWatch
	r.cancelWatch = nil
	r.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel()
	return true
}

func (r *Reflector) setCancelWatch(cancel context.CancelFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cancelWatch = cancel
}

// traceRewatch reports a dropped watch and the resourceVersion the next
// one starts from.
func (r *Reflector) traceRewatch() {
	rv := r.LastSyncResourceVersion()
	r.log.Info("watch dropped on request, watching again", "resourceVersion", rv)
	if r.trace != nil {
		r.trace(StageRewatch, "", "rv="+rv+" reason=dropped")
	}
}

// isRetriableWatchError says whether a failed watch request may simply be
// retried from the same resourceVersion: the apiserver refused the
// connection (it is restarting) or asked us to slow down. Upstream retries
// the same two cases.
func isRetriableWatchError(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || apierrors.IsTooManyRequests(err)
}

// handleWatch applies the events of one watch to the store until the watch
// ends. It returns nil when the stream closed normally, the status error of
// an ERROR event, or errShortWatch.
func (r *Reflector) handleWatch(ctx context.Context, w client.Watcher) error {
	start := r.clock.Now()
	events := 0
	for {
		var ev client.Event
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			if events == 0 && r.clock.Since(start) < shortWatchThreshold {
				return errShortWatch
			}
			return nil
		}
		if ev.Type == client.Error {
			if ev.Err == nil {
				return fmt.Errorf("watch of %s: ERROR event without a status", r.name)
			}
			return fmt.Errorf("watch of %s: %w", r.name, ev.Err)
		}
		if ev.Object == nil {
			r.log.Warn("watch event without an object, ignored", "type", ev.Type)
			continue
		}
		if r.expectedType != nil && reflect.TypeOf(ev.Object) != r.expectedType {
			r.log.Warn("watch event of an unexpected type, ignored", "type", ev.Type,
				"expected", r.expectedType.String(), "got", reflect.TypeOf(ev.Object).String())
			continue
		}
		events++
		var err error
		switch ev.Type {
		case client.Added:
			r.traceObject(StageWatch, ev.Object, string(ev.Type))
			err = r.store.Add(ev.Object)
		case client.Modified:
			r.traceObject(StageWatch, ev.Object, string(ev.Type))
			err = r.store.Update(ev.Object)
		case client.Deleted:
			r.traceObject(StageWatch, ev.Object, string(ev.Type))
			err = r.store.Delete(ev.Object)
		case client.Bookmark:
			// Nothing changed for us up to this resourceVersion: only move
			// the resume point, so a later watch starts closer to now.
		default:
			r.log.Warn("watch event of an unknown type, ignored", "type", ev.Type)
			continue
		}
		if err != nil {
			// The store only fails on objects it cannot key: nothing a
			// retry would fix, so report and go on, as upstream does.
			r.log.Error("apply watch event to the store", "type", ev.Type, "err", err)
		}
		if rv := ev.Object.GetObjectMeta().ResourceVersion; rv != "" {
			r.setLastSyncResourceVersion(rv)
		}
	}
}

// traceObject reports obj at stage with its event type.
func (r *Reflector) traceObject(stage string, obj api.Object, eventType string) {
	if r.trace == nil {
		return
	}
	key, _ := MetaNamespaceKeyFunc(obj)
	r.trace(stage, key, "rv="+obj.GetObjectMeta().ResourceVersion+" type="+eventType)
}

// resyncLoop calls store.Resync every resyncPeriod, when ShouldResync agrees.
func (r *Reflector) resyncLoop(ctx context.Context) {
	for {
		if !r.sleep(ctx, r.resyncPeriod) {
			return
		}
		if r.shouldResync != nil && !r.shouldResync() {
			continue
		}
		if err := r.store.Resync(); err != nil {
			r.log.Error("resync", "err", err)
		}
	}
}

// sleep waits d on the reflector's clock; it returns false if ctx ended first.
func (r *Reflector) sleep(ctx context.Context, d time.Duration) bool {
	t := r.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}
