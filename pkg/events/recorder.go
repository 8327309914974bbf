package events

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/informer/workqueue"
)

// The write path's defaults; see the package documentation for why.
const (
	// DefaultQPS and DefaultBurst size the token bucket of a recorder's own
	// event client: events never spend the component's main bucket.
	DefaultQPS   = 1000
	DefaultBurst = 2000
	// DefaultWriters is how many event writes a recorder has in flight at
	// most, which bounds what a burst of events takes of the apiserver.
	DefaultWriters = 4
	// DefaultMaxPending is how many distinct events may wait to be written;
	// beyond it new events are dropped (repeats of waiting ones still count).
	// It is above a 5 000-pod burst's Scheduled events, five times
	// upstream's 1 000-event broadcaster queue.
	DefaultMaxPending = 10000
)

// Recorder records events about objects through the API. Safe for
// concurrent use; Event never blocks on the API.
type Recorder struct {
	client *client.Client
	source api.EventSource
	log    *slog.Logger
	// clock stamps each event's timestamps.
	clock clock.Clock

	// Options, fixed once the recorder starts.
	qps                   float32
	burst                 int
	ownBucket             bool
	writers               int
	maxPending            int
	correlatorOptions     CorrelatorOptions
	eventsV1              bool
	seriesRefresh, finish time.Duration

	// mu guards the correlation state and pending.
	mu         sync.Mutex
	correlator *correlator
	series     *seriesCache
	// pending maps an event's name to the state it must be written in.
	// Invariant: a name is in pending iff it is in queue (waiting or being
	// written); a writer removes it only after writing its latest state.
	pending map[string]*pendingWrite
	closed  bool

	// queue hands event names to the writers: never one name to two
	// writers at once, so an event's create comes before its count patches.
	queue *workqueue.Queue[string]
	// stop ends the writes in flight when Shutdown gives up waiting.
	stop    context.CancelFunc
	stopCtx context.Context
	// heartbeatStop ends the series heartbeat when Shutdown begins.
	heartbeatStop chan struct{}
	done          sync.WaitGroup
	dropped       atomic.Int64
}

// pendingWrite is the latest state of one event to write.
type pendingWrite struct {
	event *api.Event
	// repeat: the event was written before (or is being written), so the
	// write is a patch of its count or series.
	repeat bool
	// tries counts failed attempts, up to maxTries.
	tries int
}

// maxTries is how often a write is tried while the apiserver cannot be
// reached (upstream's maxTriesPerEvent).
const maxTries = 12

// Option configures a Recorder.
type Option func(*Recorder)

// WithClock stamps events with clk's time instead of the wall clock's: the
// component's clock, which is the cluster clock under --virtual-clock, so
// that an event's age agrees with the objects it is about.
func WithClock(clk clock.Clock) Option {
	return func(r *Recorder) {
		if clk != nil {
			r.clock = clk
		}
	}
}

// WithRateLimit sizes the recorder's own client bucket (default DefaultQPS,
// DefaultBurst; qps 0: none).
func WithRateLimit(qps float32, burst int) Option {
	return func(r *Recorder) { r.qps, r.burst = qps, burst }
}

// WithClientBucket writes through the client as given instead of through a
// bucket of the recorder's own: for a client that already is events-only,
// like the kubelet's, whose --event-qps bucket all the process's hollow
// nodes share.
func WithClientBucket() Option {
	return func(r *Recorder) { r.ownBucket = false }
}

// WithWriters sets how many writes may be in flight (default DefaultWriters).
func WithWriters(n int) Option {
	return func(r *Recorder) {
		if n > 0 {
			r.writers = n
		}
	}
}

// WithMaxPending sets how many distinct events may wait (default DefaultMaxPending).
func WithMaxPending(n int) Option {
	return func(r *Recorder) {
		if n > 0 {
			r.maxPending = n
		}
	}
}

// WithCorrelator changes the correlator's settings (default: upstream's).
func WithCorrelator(o CorrelatorOptions) Option {
	return func(r *Recorder) { r.correlatorOptions = o }
}

// WithEventsV1 makes the recorder write events.k8s.io/v1 Events, as
// upstream's scheduler does: eventTime, action, reportingController (the
// source's component) and reportingInstance ("<component>-<hostname>"),
// repeats folded into series on a heartbeat of refresh (0: 30 min, as
// upstream) instead of counted, and no core/v1 source, timestamps or count.
func WithEventsV1(refresh time.Duration) Option {
	return func(r *Recorder) {
		r.eventsV1 = true
		if refresh > 0 {
			r.seriesRefresh = refresh
		}
	}
}

// NewRecorder starts a recorder that reports as source (e.g.
// {Component: "default-scheduler"} or {Component: "kubelet", Host: "node1"}).
// Call Shutdown to write what is still queued and stop its writers.
func NewRecorder(c *client.Client, source api.EventSource, logger *slog.Logger, opts ...Option) *Recorder {
	if logger == nil {
		logger = slog.Default()
	}
	r := &Recorder{source: source, log: logger.With("component", "events"), clock: clock.Real{},
		qps: DefaultQPS, burst: DefaultBurst, ownBucket: true, writers: DefaultWriters, maxPending: DefaultMaxPending,
		seriesRefresh: DefaultSeriesRefresh, finish: DefaultSeriesFinish,
		pending: map[string]*pendingWrite{}, series: &seriesCache{events: map[seriesKey]*api.Event{}}}
	for _, opt := range opts {
		opt(r)
	}
	r.client = c
	if r.ownBucket {
		r.client = c.WithRateLimit(r.qps, r.burst)
	}
	r.correlator = newCorrelator(r.correlatorOptions)
	r.queue = workqueue.New(workqueue.Options[string]{Name: "events", Clock: r.clock})
	r.stopCtx, r.stop = context.WithCancel(context.Background())
	r.heartbeatStop = make(chan struct{})
	for range r.writers {
		r.done.Go(r.runWriter)
	}
	if r.eventsV1 {
		r.done.Go(r.runSeriesHeartbeat)
	}
	return r
}

// Event records an event about obj. eventType is api.EventTypeNormal or
// api.EventTypeWarning; reason is a short CamelCase word.
func (r *Recorder) Event(obj api.Object, eventType, reason, message string) {
	r.Record(obj, nil, eventType, reason, "", message)
}

// Eventf is Event with a formatted message.
func (r *Recorder) Eventf(obj api.Object, eventType, reason, format string, args ...any) {
	r.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}

// Record is Event with the fields of upstream's newer recorder: action, what
// the component did (e.g. "Binding"), and related, a second object the
// event involves (nil if none).
func (r *Recorder) Record(regarding, related api.Object, eventType, reason, action, message string) {
	now := r.clock.Now()
	ev := &api.Event{InvolvedObject: Reference(regarding), Type: eventType, Reason: reason, Message: message, Action: action}
	if related != nil {
		ref := Reference(related)
		ev.Related = &ref
	}
	ev.Namespace = ev.InvolvedObject.Namespace
	if ev.Namespace == "" {
		ev.Namespace = "default" // events about cluster-scoped objects live in default, as upstream
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return // as after a crash: nothing more is written
	}
	var out *api.Event
	var repeat bool
	if r.eventsV1 {
		ev.ReportingController, ev.ReportingInstance = r.source.Component, reportingInstance(r.source.Component)
		ev.EventTime = api.MicroTime{Time: now}
		ev.Name = r.correlator.name(ev.InvolvedObject.Name, now)
		if out, repeat = r.series.observe(ev, now); out == nil {
			return // counted in the series; the heartbeat writes it
		}
	} else {
		ev.Source, ev.ReportingController, ev.ReportingInstance = r.source, r.source.Component, r.source.Host
		var ok bool
		if out, repeat, ok = r.correlator.correlate(ev, now); !ok {
			return // over the object's spam budget
		}
	}
	r.enqueueLocked(out, repeat)
}

// enqueueLocked queues ev to be written, or, if a write of it is already
// waiting, updates what that write will send. The caller holds mu.
func (r *Recorder) enqueueLocked(ev *api.Event, repeat bool) {
	if p, ok := r.pending[ev.Name]; ok {
		p.event = ev
		p.repeat = p.repeat || repeat
		r.queue.Add(ev.Name) // no-op if queued; re-queues it if being written
		return
	}
	if len(r.pending) >= r.maxPending {
		// Say so once per 100 drops, not once per event: a burst that fills
		// the queue would otherwise flood the log as well.
		if n := r.dropped.Add(1); n%100 == 1 {
			r.log.Warn("event queue full, dropping events", "dropped", n, "object", ev.InvolvedObject.Name, "reason", ev.Reason)
		}
		return
	}
	r.pending[ev.Name] = &pendingWrite{event: ev, repeat: repeat}
	r.queue.Add(ev.Name)
}

// pendingLen returns how many events wait to be written or are being written.
func (r *Recorder) pendingLen() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}

// Dropped returns how many events were dropped because the queue was full.
func (r *Recorder) Dropped() int64 { return r.dropped.Load() }

// Shutdown writes the events still queued (for at most 5 s) and stops.
func (r *Recorder) Shutdown() {
	r.mu.Lock()
	already := r.closed
	r.closed = true
	r.mu.Unlock()
	if already {
		return
	}
	if r.eventsV1 {
		// Close every series with its final count, as a heartbeat would.
		r.mu.Lock()
		for _, ev := range r.series.finish(r.clock.Now(), -1) {
			r.enqueueLocked(ev, true)
		}
		r.mu.Unlock()
	}
	close(r.heartbeatStop)
	r.queue.ShutDown() // writers still drain what is queued
	finished := make(chan struct{})
	go func() { r.done.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		r.log.Warn("gave up writing the remaining events", "events", r.pendingLen())
		r.stop()
		<-finished
	}
	r.stop()
}

// runSeriesHeartbeat writes open series every seriesRefresh and closes quiet
// ones every finish interval, until Shutdown.
func (r *Recorder) runSeriesHeartbeat() {
	refresh, finish := r.clock.NewTicker(r.seriesRefresh), r.clock.NewTicker(r.finish)
	defer refresh.Stop()
	defer finish.Stop()
	for {
		select {
		case <-r.heartbeatStop:
			return
		case <-refresh.C():
			r.heartbeat(false)
		case <-finish.C():
			r.heartbeat(true)
		}
	}
}

// heartbeat queues the writes of the open series (finishing: of the
// series that have gone quiet, which are then forgotten).
func (r *Recorder) heartbeat(finishing bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	events := r.series.open()
	if finishing {
		events = r.series.finish(r.clock.Now(), r.finish)
	}
	for _, ev := range events {
		r.enqueueLocked(ev, true)
	}
}

// reportingInstance is upstream's "<controller>-<hostname>".
func reportingInstance(controller string) string {
	host, _ := os.Hostname()
	return controller + "-" + host
}

// Reference builds the involvedObject of an event about obj. Objects read
// from the API carry their kind and apiVersion; for one built in Go without
// them, the kind is the Go type's name and the apiVersion comes from the
// resource table.
func Reference(obj api.Object) api.ObjectReference {
	meta, tm := obj.GetObjectMeta(), obj.GetTypeMeta()
	kind, apiVersion := tm.Kind, tm.APIVersion
	if kind == "" {
		kind = reflect.TypeOf(obj).Elem().Name()
	}
	if apiVersion == "" {
		for _, res := range client.BuiltinResources() {
			if res.Kind == kind {
				apiVersion = res.GroupVersion()
				break
			}
		}
	}
	return api.ObjectReference{Kind: kind, APIVersion: apiVersion, Namespace: meta.Namespace, Name: meta.Name,
		UID: meta.UID, ResourceVersion: meta.ResourceVersion}
}
