package informer

// This file is the teaching trace: an optional hook every stage of the
// pipeline calls once per object, so a student can watch one pod travel
//
//	watch event → delta → pop → store → handler → enqueue
//
// and see which component did what, in which order, at which
// resourceVersion. With no tracer configured (the default) the stages skip
// the call and format nothing.

import (
	"context"
	"log/slog"
	"strings"
)

// The stages of the pipeline, in the order an object passes them.
const (
	// StageList: the reflector received the object in a (re)list. Only
	// lists, which start an informer and follow a 410 Gone, have it.
	StageList = "list"
	// StageWatch: the reflector received a watch event (ADDED, MODIFIED,
	// DELETED) from the apiserver.
	StageWatch = "watch"
	// StageRewatch: the reflector's watch was dropped on purpose (`ctl
	// fault drop-watch`) and it watches again from rv, the last
	// resourceVersion it saw, without a relist. Its key is empty: it is
	// about the whole resource, not one object.
	StageRewatch = "rewatch"
	// StageDelta: the FIFO queued a Delta for the object: the DeltaFIFO
	// appended it to the key's list, the RealFIFO (detail fifo=real) queued
	// it as an item of its own.
	StageDelta = "delta"
	// StagePop: the informer took one item off the FIFO, with detail
	// fifo=delta|real and deltas=N, how many deltas the item carries. A
	// DeltaFIFO item holds every delta the key got while it waited (two
	// quick updates: one pop, deltas=2); a RealFIFO item is always one
	// (two pops).
	StagePop = "pop"
	// StageStore: the informer applied a Delta to its indexer (the cache).
	StageStore = "store"
	// StageHandler: the processor called one registered event handler.
	StageHandler = "handler"
	// StageEnqueue: a controller's handler put the object's key on its
	// workqueue. Controllers report it with Tracer.Enqueue, or by giving
	// their queue Tracer.QueueTrace.
	StageEnqueue = "enqueue"
	// StageQueue: the key moved inside the workqueue afterwards (a worker
	// got it, finished it, or it was parked for a retry); reported by
	// Tracer.QueueTrace.
	StageQueue = "queue"
)

// Tracer receives one call per object per pipeline stage.
//
// key is the object's cache key ("namespace/name", or "name" for a
// cluster-scoped object). detail is a list of space-separated name=value
// pairs, e.g. "resource=pods rv=1234 type=ADDED"; the names the informer
// uses are resource, rv, type (event or delta type), op (store operation),
// handler, method and queue. Values never contain spaces.
//
// A nil Tracer is valid and means "tracing off": its methods do nothing.
// A Tracer may be called from several goroutines at once.
type Tracer func(stage string, key string, detail string)

// Trace calls t if it is set.
func (t Tracer) Trace(stage, key, detail string) {
	if t != nil {
		t(stage, key, detail)
	}
}

// Enqueue reports that the controller owning queue added key to it. Event
// handlers call it right after queue.Add(key), so the trace shows the last
// hop from informer to controller.
func (t Tracer) Enqueue(queue, key string) {
	if t != nil {
		t(StageEnqueue, key, "queue="+queue)
	}
}

// QueueTrace returns a hook for a workqueue's Options.Trace that reports
// the queue's events on this tracer: "add" as the enqueue stage (so a
// controller whose queue has this hook need not call Enqueue), and "get",
// "done" and "requeue-after" as the queue stage, with event=<name>. A nil
// t gives nil, which a workqueue treats as "no trace".
func (t Tracer) QueueTrace(queue string) func(event string, key string) {
	if t == nil {
		return nil
	}
	return func(event, key string) {
		if event == "add" {
			t(StageEnqueue, key, "queue="+queue)
			return
		}
		t(StageQueue, key, "queue="+queue+" event="+event)
	}
}

// Also returns a Tracer that calls t and then other; either may be nil.
func (t Tracer) Also(other Tracer) Tracer {
	switch {
	case t == nil:
		return other
	case other == nil:
		return t
	}
	return func(stage, key, detail string) {
		t(stage, key, detail)
		other(stage, key, detail)
	}
}

// WithResource returns a Tracer that prefixes every detail with
// "resource=<resource> ", so several informers can share one sink and their
// lines still say which resource they are about. A nil t stays nil.
func (t Tracer) WithResource(resource string) Tracer {
	if t == nil {
		return nil
	}
	prefix := "resource=" + resource
	return func(stage, key, detail string) {
		if detail == "" {
			t(stage, key, prefix)
			return
		}
		t(stage, key, prefix+" "+detail)
	}
}

// componentOf names the component that owns a stage, for the trace line.
func componentOf(stage string) string {
	switch stage {
	case StageList, StageWatch, StageRewatch:
		return "reflector"
	case StageDelta, StagePop:
		return "deltafifo"
	case StageStore:
		return "indexer"
	case StageHandler:
		return "processor"
	case StageEnqueue, StageQueue:
		return "workqueue"
	}
	return "informer"
}

// traceMessages is the slog message of each stage: what just happened.
var traceMessages = map[string]string{
	StageList:    "listed object received",
	StageWatch:   "watch event received",
	StageRewatch: "watch dropped, watching again",
	StageDelta:   "delta queued",
	StagePop:     "item popped",
	StageStore:   "cache updated",
	StageHandler: "handler called",
	StageEnqueue: "key enqueued",
	StageQueue:   "workqueue event",
}

// SlogTracer returns a Tracer that writes one log line per stage at Info
// level, with the attributes component, stage, resource, key and rv first,
// then the rest of the detail pairs:
//
//	level=INFO msg="watch event received" component=reflector stage=watch resource=pods key=default/web rv=1234 type=ADDED
func SlogTracer(logger *slog.Logger) Tracer {
	if logger == nil {
		logger = slog.Default()
	}
	return func(stage, key, detail string) {
		msg, ok := traceMessages[stage]
		if !ok {
			msg = stage
		}
		component := componentOf(stage)
		if component == "deltafifo" && strings.Contains(detail, "fifo=real") {
			component = "realfifo"
		}
		attrs := make([]slog.Attr, 0, 8)
		attrs = append(attrs, slog.String("component", component), slog.String("stage", stage))
		// resource and rv go first whatever their place in detail, so the
		// columns line up when a student reads the trace.
		var resource, rv string
		var rest []slog.Attr
		for _, pair := range strings.Fields(detail) {
			name, value, _ := strings.Cut(pair, "=")
			switch name {
			case "resource":
				resource = value
			case "rv":
				rv = value
			default:
				rest = append(rest, slog.String(name, value))
			}
		}
		if resource != "" {
			attrs = append(attrs, slog.String("resource", resource))
		}
		attrs = append(attrs, slog.String("key", key))
		if rv != "" {
			attrs = append(attrs, slog.String("rv", rv))
		}
		attrs = append(attrs, rest...)
		logger.LogAttrs(context.Background(), slog.LevelInfo, msg, attrs...)
	}
}
