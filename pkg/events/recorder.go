// Package events records Kubernetes Events — the "Scheduled", "Pulled",
// "ScalingReplicaSet" lines at the bottom of `kubectl describe` — for
// components. Recording never blocks the caller: events go through a buffer
// to one writer goroutine, and a repeat of the same event (same object,
// reason, message, type and source) is not a new object but a count on the
// first one, which is how describe can show "(x2 over 2m18s)".
package events

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
)

// bufferSize is how many events may wait for the writer; beyond it new events
// are dropped (and logged) rather than slowing down the component.
const bufferSize = 1000

// maxRemembered bounds the events kept for aggregation (upstream: 4096).
const maxRemembered = 4096

// Recorder records events about objects through the API. Safe for concurrent use.
type Recorder struct {
	client *client.Client
	source api.EventSource
	log    *slog.Logger
	// clock stamps each event's first and last timestamps.
	clock   clock.Clock
	pending chan pendingEvent
	done    chan struct{}
	once    sync.Once
	dropped atomic.Int64

	// seen maps an event's identity to the Event object written for it, so a
	// repeat increments its count. Only the writer goroutine touches it.
	seen map[eventKey]*api.Event
}

type pendingEvent struct {
	ref       api.ObjectReference
	eventType string
	reason    string
	message   string
	at        time.Time
}

// eventKey is what makes two events "the same" for aggregation.
type eventKey struct {
	uid, kind, namespace, name string
	eventType, reason, message string
}

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

// NewRecorder starts a recorder that reports as source (e.g.
// {Component: "default-scheduler"} or {Component: "kubelet", Host: "node1"}).
func NewRecorder(c *client.Client, source api.EventSource, logger *slog.Logger, opts ...Option) *Recorder {
	if logger == nil {
		logger = slog.Default()
	}
	r := &Recorder{client: c, source: source, log: logger.With("component", "events"), clock: clock.Real{},
		pending: make(chan pendingEvent, bufferSize), done: make(chan struct{}), seen: map[eventKey]*api.Event{}}
	for _, opt := range opts {
		opt(r)
	}
	go r.run()
	return r
}

// Event records an event about obj. eventType is api.EventTypeNormal or
// api.EventTypeWarning; reason is a short CamelCase word.
func (r *Recorder) Event(obj api.Object, eventType, reason, message string) {
	ev := pendingEvent{ref: Reference(obj), eventType: eventType, reason: reason, message: message, at: r.clock.Now()}
	defer func() {
		// Shutdown closed the channel: the event is dropped, as after a crash.
		_ = recover()
	}()
	select {
	case r.pending <- ev:
	default:
		// Say so once per 100 drops, not once per event: a burst that fills
		// the buffer would otherwise flood the log as well.
		if n := r.dropped.Add(1); n%100 == 1 {
			r.log.Warn("event buffer full, dropping events", "dropped", n, "object", ev.ref.Name, "reason", reason)
		}
	}
}

// Eventf is Event with a formatted message.
func (r *Recorder) Eventf(obj api.Object, eventType, reason, format string, args ...any) {
	r.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}

// Shutdown writes the events still buffered (for at most 5 s) and stops.
func (r *Recorder) Shutdown() {
	r.once.Do(func() { close(r.pending) })
	select {
	case <-r.done:
	case <-time.After(5 * time.Second):
		r.log.Warn("gave up writing the remaining events")
	}
}

func (r *Recorder) run() {
	defer close(r.done)
	for ev := range r.pending {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := r.write(ctx, ev); err != nil {
			r.log.Warn("could not record event", "object", ev.ref.Namespace+"/"+ev.ref.Name, "reason", ev.reason, "err", err)
		}
		cancel()
	}
}

// write creates the event, or counts a repeat on the one already written.
func (r *Recorder) write(ctx context.Context, ev pendingEvent) error {
	key := eventKey{ev.ref.UID, ev.ref.Kind, ev.ref.Namespace, ev.ref.Name, ev.eventType, ev.reason, ev.message}
	namespace := ev.ref.Namespace
	if namespace == "" {
		namespace = "default" // events about cluster-scoped objects live in default, as upstream
	}
	events := r.client.Events(namespace)
	if prev, ok := r.seen[key]; ok {
		patch, _ := json.Marshal(map[string]any{
			"count":         prev.Count + 1,
			"lastTimestamp": api.NewTime(ev.at.UTC().Truncate(time.Second)),
		})
		updated, err := events.Patch(ctx, prev.Name, client.MergePatchType, patch, client.PatchOptions{})
		if err == nil {
			r.seen[key] = updated
			return nil
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		delete(r.seen, key) // someone deleted it: start a new one
	}
	at := api.NewTime(ev.at.UTC().Truncate(time.Second))
	event := &api.Event{
		ObjectMeta: api.ObjectMeta{
			Name:      fmt.Sprintf("%s.%x", ev.ref.Name, ev.at.UnixNano()),
			Namespace: namespace,
		},
		InvolvedObject:      ev.ref,
		Reason:              ev.reason,
		Message:             ev.message,
		Type:                ev.eventType,
		Source:              r.source,
		Count:               1,
		FirstTimestamp:      at,
		LastTimestamp:       at,
		ReportingController: r.source.Component,
		ReportingInstance:   r.source.Host,
	}
	created, err := events.Create(ctx, event, client.CreateOptions{})
	if err != nil {
		return err
	}
	if len(r.seen) >= maxRemembered {
		r.seen = map[eventKey]*api.Event{}
	}
	r.seen[key] = created
	return nil
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
