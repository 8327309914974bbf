package informer

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/debug"
)

// SharedInformerFactory hands out one SharedIndexInformer per resource for a
// whole process. Every controller of the controller-manager asks the same
// factory for, say, the pod informer, and gets the same one: a single LIST
// and WATCH of pods, one cache, many handlers. This is why upstream calls
// the informers "shared".
//
// The usual sequence is: build the factory, let each controller ask for the
// informers it needs (which registers them), Start, WaitForCacheSync, run
// the controllers; at exit cancel the context and Shutdown.
type SharedInformerFactory struct {
	client        *client.Client
	defaultResync time.Duration
	opts          options

	mu        sync.Mutex
	informers map[client.Resource]SharedIndexInformer
	// types is the Go type of each informer ForResource built, so that
	// asking for one resource as two types fails loudly (checkType).
	types map[client.Resource]reflect.Type
	// started records the informers Start has launched, so a second Start
	// only launches those requested since.
	started map[client.Resource]bool
	// stops ends one started informer (RemoveInformer); it is keyed like
	// started.
	stops map[client.Resource]context.CancelFunc
	// cancels stop what each Start launched; Shutdown calls them.
	cancels      []context.CancelFunc
	shuttingDown bool
	wg           sync.WaitGroup
}

// NewSharedInformerFactory returns a factory whose informers list and watch
// through c, with defaultResync as every informer's handler resync period
// (0: none, the usual choice in kplane's controllers). Options: WithNamespace,
// WithTweakListOptions, WithObjectFilter, WithTrace, WithJournal, WithClock,
// WithLogger, WithBackoff, WithFIFO.
func NewSharedInformerFactory(c *client.Client, defaultResync time.Duration, opts ...Option) *SharedInformerFactory {
	f := &SharedInformerFactory{
		client:        c,
		defaultResync: defaultResync,
		opts:          buildOptions(opts),
		informers:     map[client.Resource]SharedIndexInformer{},
		types:         map[client.Resource]reflect.Type{},
		started:       map[client.Resource]bool{},
		stops:         map[client.Resource]context.CancelFunc{},
	}
	// `ctl fault drop-watch` reaches the informers through the journal.
	f.opts.journal.RegisterWatches(f)
	return f
}

// InformerFor returns the factory's informer for res, calling newInformer to
// build it the first time res is asked for. Later calls return the same
// informer whatever newInformer they pass.
func (f *SharedInformerFactory) InformerFor(res client.Resource, newInformer func() SharedIndexInformer) SharedIndexInformer {
	f.mu.Lock()
	defer f.mu.Unlock()
	if inf, ok := f.informers[res]; ok {
		return inf
	}
	inf := newInformer()
	f.informers[res] = inf
	return inf
}

// Tracer returns the factory's trace sink — the WithTrace tracer and the
// debug journal, either or both; nil if neither — so controllers can
// report their enqueues: f.Tracer().Enqueue("deployment", key).
func (f *SharedInformerFactory) Tracer() Tracer {
	return f.opts.tracer.Also(journalTracer(f.opts.journal, ""))
}

// Journal returns the debug journal the factory was given (nil if none),
// so the controllers built on it register their workqueues there.
func (f *SharedInformerFactory) Journal() *debug.Journal {
	if f == nil {
		return nil
	}
	return f.opts.journal
}

// Start runs every informer requested so far that is not yet running, each
// in its own goroutine, until ctx ends or Shutdown is called. It does not
// wait; call WaitForCacheSync for that. Calling Start again after asking for
// more informers starts just the new ones.
func (f *SharedInformerFactory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shuttingDown {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	f.cancels = append(f.cancels, cancel)
	for res, inf := range f.informers {
		if f.started[res] {
			continue
		}
		f.started[res] = true
		informerCtx, stop := context.WithCancel(ctx)
		f.stops[res] = stop
		f.wg.Go(func() { inf.Run(informerCtx) })
	}
}

// RemoveInformer stops the informer for res, if it runs, and forgets it:
// the next request for res builds a new informer, with an empty cache. It
// is for a resource that went away while the process runs (a deleted
// CustomResourceDefinition), whose watch would otherwise fail forever.
// Handlers registered on the old informer get no more events.
func (f *SharedInformerFactory) RemoveInformer(res client.Resource) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if stop, ok := f.stops[res]; ok {
		stop()
	}
	delete(f.stops, res)
	delete(f.started, res)
	delete(f.informers, res)
	delete(f.types, res)
}

// WaitForCacheSync waits until every started informer has synced, or ctx
// ends, and reports for each whether it synced.
func (f *SharedInformerFactory) WaitForCacheSync(ctx context.Context) map[client.Resource]bool {
	f.mu.Lock()
	started := map[client.Resource]SharedIndexInformer{}
	for res, inf := range f.informers {
		if f.started[res] {
			started[res] = inf
		}
	}
	f.mu.Unlock()
	result := make(map[client.Resource]bool, len(started))
	for res, inf := range started {
		result[res] = WaitForCacheSync(ctx, inf.HasSynced)
	}
	return result
}

// DropWatches ends the watch of every running informer, as a broken
// connection would, and returns the resources whose watch it ended, sorted.
// Each reflector watches again at once from its last resourceVersion, so
// nothing is missed and nothing relisted. It is the informers' side of
// `ctl fault drop-watch`.
func (f *SharedInformerFactory) DropWatches() []string {
	f.mu.Lock()
	informers := make(map[client.Resource]SharedIndexInformer, len(f.informers))
	for res, inf := range f.informers {
		if f.started[res] {
			informers[res] = inf
		}
	}
	f.mu.Unlock()
	var dropped []string
	for res, inf := range informers {
		if d, ok := inf.(interface{ dropWatch() bool }); ok && d.dropWatch() {
			dropped = append(dropped, res.String())
		}
	}
	slices.Sort(dropped)
	return dropped
}

// Shutdown stops every informer the factory started and waits until their
// goroutines have returned. Afterwards Start does nothing.
func (f *SharedInformerFactory) Shutdown() {
	f.mu.Lock()
	f.shuttingDown = true
	for _, cancel := range f.cancels {
		cancel()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// TypedInformer pairs a resource's shared informer with a typed lister over
// its cache. The factory's accessors (Pods(), Deployments(), …) return one.
type TypedInformer[T api.Object] struct {
	informer SharedIndexInformer
	lister   *Lister[T]
}

// Informer returns the shared informer, to add event handlers and to wait
// for HasSynced.
func (t TypedInformer[T]) Informer() SharedIndexInformer { return t.informer }

// Lister returns a typed, read-only view of the informer's cache.
func (t TypedInformer[T]) Lister() *Lister[T] { return t.lister }

// ForResource returns f's informer for res, creating it if needed, as a
// TypedInformer of Go type T (a pointer type such as *api.Pod). The informer
// lists and watches through f's client (in f's namespace, for a namespaced
// resource), with f's list tweak, object filter and tracer, and carries the namespace
// index listers use.
//
// One resource has one informer, of one type: asking for res as a second
// type (pods as *api.CustomObject after *api.Pod) panics, since the cache
// holds objects of the first type and a lister of the second would fail
// on each of them.
func ForResource[T api.Object](f *SharedInformerFactory, res client.Resource) TypedInformer[T] {
	f.checkType(res, reflect.TypeFor[T]())
	inf := f.InformerFor(res, func() SharedIndexInformer {
		tc := client.For[T](f.client, res)
		if res.Namespaced && f.opts.namespace != "" {
			tc = tc.Namespace(f.opts.namespace)
		}
		lw := NewListWatch(tc, f.opts.tweak)
		if f.opts.filter != nil {
			lw = FilterListWatch(lw, f.opts.filter)
		}
		return NewSharedIndexInformer(lw, newExample[T](), f.defaultResync,
			Indexers{NamespaceIndex: MetaNamespaceIndexFunc},
			WithName(res.String()), WithTrace(f.opts.tracer), WithJournal(f.opts.journal), WithClock(f.opts.clock), WithLogger(f.opts.logger), WithBackoff(f.opts.backoff), WithFIFO(f.opts.fifo))
	})
	return TypedInformer[T]{
		informer: inf,
		lister:   NewLister[T](inf.GetIndexer(), errors.Resource{Group: res.Group, Resource: res.Resource}),
	}
}

// checkType records t as res's informer type, and panics if res was asked
// for as another type before.
func (f *SharedInformerFactory) checkType(res client.Resource, t reflect.Type) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if first, ok := f.types[res]; ok && first != t {
		panic(fmt.Sprintf("informer: %s was asked for as %v and now as %v; a resource has one informer of one Go type (use BuiltinInformer before a dynamic informer)", res, first, t))
	}
	f.types[res] = t
}

// newExample returns a new zero object of type T (e.g. &api.Pod{}), the
// informer's example of the type its watch events must have.
func newExample[T api.Object]() T {
	var zero T
	t := reflect.TypeOf(zero)
	if t == nil || t.Kind() != reflect.Pointer {
		return zero
	}
	return reflect.New(t.Elem()).Interface().(T)
}
