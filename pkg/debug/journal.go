package debug

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"kplane/pkg/clock"
)

// DefaultRingSize is how many records a journal keeps unless told
// otherwise (--debug-ring-size): enough for a few hundred objects' full
// trace, a few MiB at most.
const DefaultRingSize = 20000

// Journal is one component's bounded record of what it saw and did. Create
// it with NewJournal; a nil *Journal records nothing and every method is
// safe to call on it. A Journal is safe for concurrent use.
type Journal struct {
	component string
	clock     clock.Clock

	// size is how many records the ring keeps at most.
	size uint64

	mu sync.Mutex
	// ring[(seq-1) % size] holds record seq. It starts empty and grows
	// with the records until it holds size of them, so that a component
	// that records little (an idle cluster) does not keep a full ring of
	// empty records in its heap.
	ring    []Record
	lastSeq uint64
	// changed is closed (and replaced) when a record is added while a
	// follower waits, so followers sleep instead of polling.
	changed chan struct{}
	waiting int

	queues  map[string]QueueSource
	leaders []LeaderSource
	watches []WatchDropper
	// routes holds the component's own routes (Handle); a ServeMux may
	// gain patterns while it serves, so routes added after the server
	// started are served too.
	routes *http.ServeMux
}

// NewJournal returns the journal of component, keeping the last size
// records (size ≤ 0: DefaultRingSize), timed by clk (nil: the wall clock).
func NewJournal(component string, size int, clk clock.Clock) *Journal {
	if size <= 0 {
		size = DefaultRingSize
	}
	if clk == nil {
		clk = clock.Real{}
	}
	return &Journal{
		component: component,
		clock:     clk,
		size:      uint64(size),
		changed:   make(chan struct{}),
		queues:    map[string]QueueSource{},
		routes:    http.NewServeMux(),
	}
}

// Component names the journal's component ("" for a nil journal).
func (j *Journal) Component() string {
	if j == nil {
		return ""
	}
	return j.component
}

// Enabled reports whether j records anything: callers that must build an
// expensive record check it first.
func (j *Journal) Enabled() bool { return j != nil }

// Add records r, filling in Seq, Component and (if unset) Time.
func (j *Journal) Add(r Record) {
	if j == nil {
		return
	}
	r.Component = j.component
	if r.Time.IsZero() {
		r.Time = j.clock.Now()
	}
	j.mu.Lock()
	j.lastSeq++
	r.Seq = j.lastSeq
	j.store(r)
	if j.waiting > 0 {
		close(j.changed)
		j.changed = make(chan struct{})
		j.waiting = 0
	}
	j.mu.Unlock()
}

// store puts r, numbered, into its slot of the ring, growing the ring
// while it is not yet full. Callers hold mu.
func (j *Journal) store(r Record) {
	if i := (r.Seq - 1) % j.size; i < uint64(len(j.ring)) {
		j.ring[i] = r
		return
	}
	if len(j.ring) == cap(j.ring) {
		// Double as append would, but never beyond size.
		grown := make([]Record, len(j.ring), min(max(2*cap(j.ring), 64), int(j.size)))
		copy(grown, j.ring)
		j.ring = grown
	}
	j.ring = append(j.ring, r)
}

// Trace records one trace step of key: stage is an informer stage or
// StageSync, detail its name=value pairs. The pairs resource=, rv= and
// queue= (or handler=) fill the record's Resource, ResourceVersion and
// Actor.
func (j *Journal) Trace(stage, key, detail string) {
	if j == nil {
		return
	}
	j.TraceResource("", stage, key, detail)
}

// TraceResource is Trace for a caller that knows the resource apart from
// the detail (an informer's tracer), so nobody joins it into the detail
// string only for Trace to split it out again. This is the hot path of
// every informer with a journal: in the usual case, resource= and rv=
// leading the detail, it allocates nothing.
func (j *Journal) TraceResource(resource, stage, key, detail string) {
	if j == nil {
		return
	}
	r := Record{Type: TypeTrace, Stage: stage, Key: key, Resource: resource}
	// Lift the leading resource= and rv= pairs into their fields; the rest
	// of the string is the Detail, without a copy.
	for detail != "" {
		pair, rest, _ := strings.Cut(detail, " ")
		name, value, _ := strings.Cut(pair, "=")
		if name == "resource" {
			r.Resource = value
		} else if name == "rv" {
			r.ResourceVersion = value
		} else {
			break
		}
		detail = rest
	}
	r.Actor = actorOf(detail)
	if strings.Contains(detail, "resource=") || strings.Contains(detail, "rv=") {
		detail = liftFields(&r, detail) // rare: those pairs came later
	}
	r.Detail = detail
	j.Add(r)
}

// actorOf is the value of the first queue= or handler= pair of detail.
func actorOf(detail string) string {
	for detail != "" {
		var pair string
		pair, detail, _ = strings.Cut(detail, " ")
		if name, value, _ := strings.Cut(pair, "="); name == "queue" || name == "handler" {
			return value
		}
	}
	return ""
}

// liftFields moves every resource= and rv= pair of detail into r and
// returns the other pairs.
func liftFields(r *Record, detail string) string {
	var rest []string
	for _, pair := range strings.Fields(detail) {
		switch name, value, _ := strings.Cut(pair, "="); name {
		case "resource":
			r.Resource = value
		case "rv":
			r.ResourceVersion = value
		default:
			rest = append(rest, pair)
		}
	}
	return strings.Join(rest, " ")
}

// Tracer returns j.Trace as a function value, the shape of
// informer.Tracer, or nil for a nil journal (tracing off).
func (j *Journal) Tracer() func(stage, key, detail string) {
	if j == nil {
		return nil
	}
	return j.Trace
}

// Decision records what actor decided about the object resource/key:
// message in words, values as numbers by name, lines as further rows, and
// source the upstream file the decision mirrors.
func (j *Journal) Decision(d Decision) {
	if j == nil {
		return
	}
	j.Add(Record{
		Type: TypeDecision, Actor: d.Actor, Resource: d.Resource, Key: d.Key, UID: d.UID,
		ResourceVersion: d.ResourceVersion, Message: d.Message, Values: d.Values, Lines: d.Lines, Source: d.Source,
	})
}

// Decision is the argument of Journal.Decision.
type Decision struct {
	// Actor is the controller or scheduler plugin that decided.
	Actor string
	// Resource and Key name the object decided about ("deployments.apps",
	// "default/web"); UID and ResourceVersion are the version it saw.
	Resource, Key, UID, ResourceVersion string
	// Message is the decision in one line of words and numbers.
	Message string
	// Values are the numbers by name, for tests and tools.
	Values map[string]string
	// Lines are further rows (a table), each one line.
	Lines []string
	// Source is the upstream file mirrored, e.g.
	// "pkg/controller/deployment/rolling.go".
	Source string
}

// After returns the records newer than seq still in the ring, oldest
// first, and the sequence number of the newest record (the next call's
// seq). If the ring has already dropped records after seq, the first
// record returned has Seq > seq+1: a gap the caller can report.
func (j *Journal) After(seq uint64) (records []Record, last uint64) {
	if j == nil {
		return nil, 0
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.afterLocked(seq), j.lastSeq
}

func (j *Journal) afterLocked(seq uint64) []Record {
	size := j.size
	oldest := uint64(1)
	if j.lastSeq > size {
		oldest = j.lastSeq - size + 1
	}
	if seq+1 > oldest {
		oldest = seq + 1
	}
	if oldest > j.lastSeq {
		return nil
	}
	out := make([]Record, 0, j.lastSeq-oldest+1)
	for s := oldest; s <= j.lastSeq; s++ {
		out = append(out, j.ring[(s-1)%size])
	}
	return out
}

// Follow calls emit with every record newer than seq, then with each new
// record as it is added, until ctx ends or emit returns an error.
func (j *Journal) Follow(ctx context.Context, seq uint64, emit func([]Record) error) error {
	if j == nil {
		<-ctx.Done()
		return ctx.Err()
	}
	for {
		j.mu.Lock()
		batch := j.afterLocked(seq)
		last := j.lastSeq
		var changed chan struct{}
		if len(batch) == 0 {
			j.waiting++
			changed = j.changed
		}
		j.mu.Unlock()
		if len(batch) > 0 {
			if err := emit(batch); err != nil {
				return err
			}
			seq = last
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// Handle adds a component-specific route to the debug API, served behind
// the same authentication: the kubelet's pause, the apiserver's faults.
// pattern is an http.ServeMux pattern such as "POST /debug/kplane/pause".
// A route may be added before or after the server starts.
func (j *Journal) Handle(pattern string, h http.Handler) {
	if j == nil {
		return
	}
	j.routes.Handle(pattern, h)
}
