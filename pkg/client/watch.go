package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// EventType of a watch event.
type EventType string

// The event types a watch stream carries.
const (
	// Added: the object was created (or, at the start of a watch from
	// resourceVersion "" or "0", already existed; or started to match the
	// selector).
	Added EventType = "ADDED"
	// Modified: the object changed.
	Modified EventType = "MODIFIED"
	// Deleted: the object is gone (or stopped matching the selector); the
	// event carries its last state.
	Deleted EventType = "DELETED"
	// Bookmark: nothing changed, but the stream has progressed to the
	// object's metadata.resourceVersion; resume from there.
	Bookmark EventType = "BOOKMARK"
	// Error: the server ended the watch with a Status, e.g. 410 Expired
	// when the starting resourceVersion has been compacted.
	Error EventType = "ERROR"
)

// Event is one watch event. Object is the typed object (for BOOKMARK: an
// object of the kind carrying only metadata.resourceVersion). For ERROR,
// Object is nil and Err is the *errors.StatusError the server sent (e.g.
// 410 Expired).
type Event struct {
	Type   EventType
	Object api.Object
	Err    error
}

// Watcher is a running watch. ResultChan closes when the server ends the
// stream, the context is cancelled, Stop is called, or the connection
// breaks (the caller decides whether to resume).
type Watcher interface {
	// ResultChan delivers the events in the order the server sent them.
	ResultChan() <-chan Event
	// Stop ends the watch and releases its connection stream. It may be
	// called more than once and from any goroutine; once it returns the
	// watch's goroutine has exited.
	Stop()
}

// wireEvent is one line of a watch stream as the apiserver writes it:
// {"type":"ADDED","object":{…}}.
type wireEvent struct {
	Type   EventType       `json:"type"`
	Object json.RawMessage `json:"object"`
}

// streamWatcher reads a watch response body and hands each decoded event
// to its channel. E is Event for typed clients and DynamicEvent for the
// dynamic one; decode turns a wire event into an E.
//
// One goroutine (run) owns the body: it decodes, sends, and on any end
// closes the body and the channel. Stop cancels the request's context,
// which unblocks a read in progress, and waits for run to finish, so a
// stopped watcher never leaves a goroutine behind.
type streamWatcher[E any] struct {
	result   chan E
	cancel   context.CancelFunc
	stopped  chan struct{} // closed by Stop
	finished chan struct{} // closed when run returns
	stopOnce sync.Once
	log      *slog.Logger
}

// eventDecoder turns wire events into the events a watcher delivers:
// decode for each line, failure for the ERROR event that reports a stream
// the client could not read.
type eventDecoder[E any] struct {
	decode  func(wireEvent) (E, error)
	failure func(err error) E
}

// newStreamWatcher starts reading resp's body; cancel must cancel the
// context resp was requested with.
func newStreamWatcher[E any](resp *http.Response, cancel context.CancelFunc, dec eventDecoder[E], log *slog.Logger) *streamWatcher[E] {
	w := &streamWatcher[E]{
		result:   make(chan E),
		cancel:   cancel,
		stopped:  make(chan struct{}),
		finished: make(chan struct{}),
		log:      log,
	}
	go w.run(resp.Body, dec)
	return w
}

// ResultChan returns the channel of events.
func (w *streamWatcher[E]) ResultChan() <-chan E { return w.result }

// Stop ends the watch and waits for its goroutine to exit.
func (w *streamWatcher[E]) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		w.cancel()
	})
	<-w.finished
}

func (w *streamWatcher[E]) run(body io.ReadCloser, dec eventDecoder[E]) {
	defer close(w.finished)
	defer close(w.result)
	defer w.cancel()
	defer body.Close()

	decoder := json.NewDecoder(body)
	for {
		var wire wireEvent
		if err := decoder.Decode(&wire); err != nil {
			if w.isStopped() || errors.Is(err, io.EOF) {
				// Stopped by the caller, or the server ended the stream
				// (timeoutSeconds, shutdown): a normal end.
				return
			}
			var syntax *json.SyntaxError
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &syntax) || errors.As(err, &typeErr) {
				// Not a connection problem: the server sent something that
				// is not a watch event. Say so rather than end silently.
				w.send(dec.failure(apierrors.NewInternalError(fmt.Errorf("unable to decode an event from the watch stream: %w", err))))
				return
			}
			// The connection broke; the caller resumes from the last
			// resourceVersion it saw.
			w.log.Debug("watch stream ended", "err", err)
			return
		}
		ev, err := dec.decode(wire)
		if err != nil {
			w.send(dec.failure(apierrors.NewInternalError(err)))
			return
		}
		if !w.send(ev) {
			return
		}
	}
}

// send delivers ev unless the watch is being stopped.
func (w *streamWatcher[E]) send(ev E) bool {
	select {
	case w.result <- ev:
		return true
	case <-w.stopped:
		return false
	}
}

func (w *streamWatcher[E]) isStopped() bool {
	select {
	case <-w.stopped:
		return true
	default:
		return false
	}
}

// decodeWatchStatus turns an ERROR event's object into the error it
// reports (statusErr). An object that is no Status is a stream the client
// cannot read (err): like any undecodable line it ends the watch, rather
// than report an error and read on.
func decodeWatchStatus(raw json.RawMessage) (statusErr, err error) {
	var status api.Status
	if err := json.Unmarshal(raw, &status); err != nil {
		return nil, fmt.Errorf("unable to decode the Status of an ERROR watch event: %w", err)
	}
	if status.Code == 0 && status.Reason == "" {
		return nil, fmt.Errorf("watch ended with an ERROR event without a Status: %s", raw)
	}
	return apierrors.FromStatus(status), nil
}

// isNull reports a missing or JSON null object.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// checkEventType rejects event types the protocol does not have.
func checkEventType(t EventType) error {
	switch t {
	case Added, Modified, Deleted, Bookmark, Error:
		return nil
	}
	return fmt.Errorf("got invalid watch event type: %q", t)
}

// typedEvents decodes wire events into Events whose Object is a T.
func typedEvents[T api.Object]() eventDecoder[Event] {
	return eventDecoder[Event]{
		decode: func(wire wireEvent) (Event, error) {
			if err := checkEventType(wire.Type); err != nil {
				return Event{}, err
			}
			if wire.Type == Error {
				statusErr, err := decodeWatchStatus(wire.Object)
				if err != nil {
					return Event{}, err
				}
				return Event{Type: Error, Err: statusErr}, nil
			}
			if isNull(wire.Object) {
				return Event{}, fmt.Errorf("%s watch event without an object", wire.Type)
			}
			// T is a pointer type (*api.Pod); unmarshalling into a nil one
			// allocates the object.
			var obj T
			if err := json.Unmarshal(wire.Object, &obj); err != nil {
				return Event{}, fmt.Errorf("unable to decode the object of a %s watch event: %w", wire.Type, err)
			}
			return Event{Type: wire.Type, Object: obj}, nil
		},
		failure: func(err error) Event { return Event{Type: Error, Err: err} },
	}
}

// watch opens a watch on path with opts and decodes it with dec.
func watch[E any](ctx context.Context, c *Client, path string, opts ListOptions, dec eventDecoder[E]) (*streamWatcher[E], error) {
	q := opts.query()
	q.Set("watch", "true")
	ctx, cancel := context.WithCancel(ctx)
	resp, err := c.stream(ctx, &request{method: http.MethodGet, path: path, query: q})
	if err != nil {
		cancel()
		return nil, err
	}
	return newStreamWatcher(resp, cancel, dec, c.log.With("path", path)), nil
}
