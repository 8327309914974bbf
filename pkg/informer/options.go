package informer

import (
	"log/slog"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/debug"
)

// Option configures a SharedIndexInformer (NewSharedIndexInformer) or a
// SharedInformerFactory (NewSharedInformerFactory). Options that only make
// sense for a factory (WithNamespace, WithTweakListOptions,
// WithObjectFilter) are ignored by an informer, which already has its
// ListerWatcher.
type Option func(*options)

// options is what the Option functions fill in.
type options struct {
	// tracer is WithTrace's; the journal's trace is added where it is
	// used (journalTracer), so that it gets the resource as a field.
	tracer    Tracer
	journal   *debug.Journal
	clock     clock.Clock
	logger    *slog.Logger
	name      string
	namespace string
	tweak     func(*client.ListOptions)
	filter    func(api.Object) bool
	backoff   Backoff
	fifo      FIFOKind
}

func buildOptions(opts []Option) options {
	o := options{clock: clock.Real{}, logger: slog.Default(), fifo: FIFODelta}
	for _, opt := range opts {
		opt(&o)
	}
	if o.fifo == "" {
		o.fifo = FIFODelta
	}
	return o
}

// WithTrace turns on the teaching trace: every stage of the pipeline calls t
// once per object (see Tracer). SlogTracer(logger) gives a ready-made t.
func WithTrace(t Tracer) Option {
	return func(o *options) { o.tracer = t }
}

// WithJournal records the teaching trace into the component's debug
// journal (as well as into any WithTrace tracer), and lets the factory's
// users (controllers' workqueues) find the journal through Journal.
func WithJournal(j *debug.Journal) Option {
	return func(o *options) { o.journal = j }
}

// WithClock makes the informer read time (resync periods, back-off delays)
// from c instead of the wall clock; tests pass a clock.Fake.
func WithClock(c clock.Clock) Option {
	return func(o *options) {
		if c != nil {
			o.clock = c
		}
	}
}

// WithLogger sets the logger for warnings and errors (watch failures,
// relists, objects of an unexpected type). The default is slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// WithName names an informer in logs and traces; the factory names each
// informer after its resource ("pods", "deployments.apps").
func WithName(name string) Option {
	return func(o *options) { o.name = name }
}

// WithNamespace limits a factory's informers for namespaced resources to one
// namespace. Cluster-scoped resources (nodes, namespaces, persistent volumes)
// are always watched whole. The default, "", watches all namespaces.
func WithNamespace(namespace string) Option {
	return func(o *options) { o.namespace = namespace }
}

// WithTweakListOptions lets a factory adjust every list and watch its
// informers make, typically to set a label or field selector (the kubelet
// watches only the pods with spec.nodeName equal to its node).
func WithTweakListOptions(tweak func(*client.ListOptions)) Option {
	return func(o *options) { o.tweak = tweak }
}

// WithObjectFilter makes a factory's informers keep only the objects keep
// accepts (FilterListWatch), for a part of a resource no selector names;
// keep must depend only on fields that never change (filter.go).
func WithObjectFilter(keep func(api.Object) bool) Option {
	return func(o *options) { o.filter = keep }
}

// WithBackoff sets the reflectors' back-off between failed lists and
// watches; zero fields keep upstream's values (DefaultBackoff). Tests use
// a short one so a reconnect does not cost seconds.
func WithBackoff(b Backoff) Option {
	return func(o *options) { o.backoff = b }
}

// WithFIFO chooses the queue between each informer's reflector and its
// cache: FIFODelta (the default, "" too) or FIFOReal, upstream's default
// since Kubernetes 1.33. Both feed the same cache and handlers; they
// differ in whether an object's waiting changes are handed out together
// and in what order changes to different objects arrive (fifo.go).
func WithFIFO(kind FIFOKind) Option {
	return func(o *options) { o.fifo = kind }
}

// ComponentOptions are the factory options every component builds its
// shared informers with: its logger, clock, debug journal and FIFO kind
// (--informer-fifo), and with trace (--trace-informers) the teaching trace
// logged through log. Components append their own (a field selector).
func ComponentOptions(log *slog.Logger, clk clock.Clock, journal *debug.Journal, fifo FIFOKind, trace bool) []Option {
	opts := []Option{WithLogger(log), WithClock(clk), WithJournal(journal), WithFIFO(fifo)}
	if trace {
		opts = append(opts, WithTrace(SlogTracer(log)))
	}
	return opts
}

// journalTracer is the Tracer that records into j the trace of the
// informer for resource (nil for a nil journal: no trace).
func journalTracer(j *debug.Journal, resource string) Tracer {
	if j == nil {
		return nil
	}
	return func(stage, key, detail string) { j.TraceResource(resource, stage, key, detail) }
}
