package informer

// This file assembles the pipeline for one resource:
//
//	Reflector ──Add/Update/Delete/Replace──▶ DeltaFIFO ──Pop──▶ handleDeltas
//	                                                              │
//	                                   indexer.Add/Update/Delete ◀┤
//	                                                              ▼
//	                                           sharedProcessor.distribute
//	                                              │          │
//	                                         listener 1  listener 2 …  (own buffer, own goroutine)
//	                                              ▼          ▼
//	                                          handler 1  handler 2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
)

// SharedIndexInformer keeps one resource's objects cached, indexed and up to
// date, and tells any number of event handlers about every change. "Shared"
// because one informer per resource serves every controller in a process:
// one LIST and one WATCH, one copy of the objects in memory, however many
// controllers care about pods.
type SharedIndexInformer interface {
	// AddEventHandler registers a handler with the informer's default
	// resync period. A handler added after Run receives an OnAdd for every
	// object already cached (isInInitialList true), then the changes that
	// follow, with none missed or repeated.
	AddEventHandler(handler ResourceEventHandler) (ResourceEventHandlerRegistration, error)
	// AddEventHandlerWithResyncPeriod registers a handler that also gets an
	// OnUpdate(obj, obj) for every cached object each resyncPeriod. The
	// period is raised to at least one second, and to the informer's resync
	// check period if the informer already runs; 0 means no resync.
	AddEventHandlerWithResyncPeriod(handler ResourceEventHandler, resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error)
	// RemoveEventHandler unregisters a handler; notifications it has not
	// yet handled are dropped.
	RemoveEventHandler(handle ResourceEventHandlerRegistration) error
	// GetStore returns the cache. Read it; never write to it.
	GetStore() Store
	// GetIndexer returns the cache with its indexes. Read it; never write.
	GetIndexer() Indexer
	// AddIndexers adds indexes; only before Run.
	AddIndexers(indexers Indexers) error
	// Run lists, watches and dispatches until ctx ends, then stops every
	// goroutine it started and returns. An informer runs once.
	Run(ctx context.Context)
	// HasSynced reports whether the initial list has been applied to the
	// cache (and handed to the handlers' buffers).
	HasSynced() bool
	// LastSyncResourceVersion is the resourceVersion the cache is known to
	// be up to date with ("" before the first list).
	LastSyncResourceVersion() string
}

// minimumResyncPeriod is the shortest resync a handler may ask for
// (upstream's value): resyncing more often only burns CPU.
const minimumResyncPeriod = time.Second

// NewSharedIndexInformer returns an informer for the objects lw lists and
// watches. exampleObject is an object of the expected Go type, e.g.
// &api.Pod{}: watch events of another type are logged and dropped.
// defaultResync is the resync period of handlers added with
// AddEventHandler (0: none). indexers are installed on the cache from the
// start.
func NewSharedIndexInformer(lw ListerWatcher, exampleObject api.Object, defaultResync time.Duration, indexers Indexers, opts ...Option) SharedIndexInformer {
	o := buildOptions(opts)
	name := o.name
	if name == "" {
		name = defaultInformerName(exampleObject)
	}
	if indexers == nil {
		indexers = Indexers{}
	}
	s := &sharedIndexInformer{
		name:                            name,
		lw:                              lw,
		exampleObject:                   exampleObject,
		indexer:                         NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, indexers),
		processor:                       newSharedProcessor(o.clock),
		clock:                           o.clock,
		trace:                           o.tracer.WithResource(name).Also(journalTracer(o.journal, name)),
		log:                             o.logger.With("component", "informer", "informer", name),
		baseLog:                         o.logger,
		backoff:                         o.backoff,
		fifoKind:                        o.fifo,
		resyncCheckPeriod:               defaultResync,
		defaultEventHandlerResyncPeriod: defaultResync,
	}
	return s
}

// defaultInformerName names an informer after its Go type: "Pod" for *api.Pod.
func defaultInformerName(example api.Object) string {
	if example == nil {
		return "informer"
	}
	t := reflect.TypeOf(example)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// sharedIndexInformer implements SharedIndexInformer.
type sharedIndexInformer struct {
	name          string
	lw            ListerWatcher
	exampleObject api.Object
	indexer       Indexer
	processor     *sharedProcessor
	clock         clock.Clock
	trace         Tracer
	log           *slog.Logger
	// baseLog is the logger as given, for the reflector to label itself.
	baseLog *slog.Logger
	backoff Backoff
	// fifoKind is the queue between reflector and cache (WithFIFO).
	fifoKind FIFOKind

	// blockDeltas is held while a popped key is applied to the cache and
	// distributed, and while a late handler is added and given the cache's
	// content. That makes the replay and the live notifications meet
	// exactly: each object reaches the new handler once, never twice, never
	// not at all.
	blockDeltas sync.Mutex

	// mu guards the fields below.
	mu        sync.Mutex
	started   bool
	stopped   bool
	fifo      FIFO
	reflector *Reflector
	// resyncCheckPeriod is how often the reflector asks the processor
	// whether some handler's resync is due: the shortest handler period
	// requested before Run.
	resyncCheckPeriod time.Duration
	// defaultEventHandlerResyncPeriod is AddEventHandler's resync period.
	defaultEventHandlerResyncPeriod time.Duration
}

func (s *sharedIndexInformer) AddEventHandler(handler ResourceEventHandler) (ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithResyncPeriod(handler, s.defaultEventHandlerResyncPeriod)
}

func (s *sharedIndexInformer) AddEventHandlerWithResyncPeriod(handler ResourceEventHandler, resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error) {
	if handler == nil {
		return nil, errors.New("add event handler: handler is nil")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, fmt.Errorf("add event handler to the %s informer: it has stopped", s.name)
	}
	if resyncPeriod > 0 {
		if resyncPeriod < minimumResyncPeriod {
			s.log.Warn("resync period too short, raised to the minimum", "requested", resyncPeriod, "minimum", minimumResyncPeriod)
			resyncPeriod = minimumResyncPeriod
		}
		if resyncPeriod < s.resyncCheckPeriod {
			if s.started {
				// The reflector's resync timer is already running.
				s.log.Warn("resync period shorter than the running informer checks for, raised",
					"requested", resyncPeriod, "checkPeriod", s.resyncCheckPeriod)
				resyncPeriod = s.resyncCheckPeriod
			} else {
				s.resyncCheckPeriod = resyncPeriod
			}
		}
		if s.resyncCheckPeriod == 0 {
			// As upstream: an informer created without resync never checks,
			// so a per-handler period cannot take effect.
			s.log.Warn("resync period ignored: the informer was created with resync disabled", "requested", resyncPeriod)
			resyncPeriod = 0
		}
	}
	l := newProcessorListener(handler, resyncPeriod, s.clock.Now(), s.HasSynced, s.trace, s.log)
	if !s.started {
		s.processor.addListener(l)
		return l, nil
	}
	// Running: hold the deltas back while the new handler joins and gets
	// the cache's current content, so nothing slips between the two.
	s.blockDeltas.Lock()
	defer s.blockDeltas.Unlock()
	s.processor.addListener(l)
	for _, obj := range s.indexer.List() {
		l.add(notification{kind: addNotification, newObj: obj, isInInitialList: true})
	}
	return l, nil
}

func (s *sharedIndexInformer) RemoveEventHandler(handle ResourceEventHandlerRegistration) error {
	l, ok := handle.(*processorListener)
	if !ok || !s.processor.removeListener(l) {
		return fmt.Errorf("remove event handler from the %s informer: not one of its registrations", s.name)
	}
	return nil
}

func (s *sharedIndexInformer) GetStore() Store     { return s.indexer }
func (s *sharedIndexInformer) GetIndexer() Indexer { return s.indexer }

func (s *sharedIndexInformer) AddIndexers(indexers Indexers) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return fmt.Errorf("add indexers to the %s informer: it has already started", s.name)
	}
	return s.indexer.AddIndexers(indexers)
}

func (s *sharedIndexInformer) HasSynced() bool {
	s.mu.Lock()
	fifo := s.fifo
	s.mu.Unlock()
	return fifo != nil && fifo.HasSynced()
}

func (s *sharedIndexInformer) LastSyncResourceVersion() string {
	s.mu.Lock()
	r := s.reflector
	s.mu.Unlock()
	if r == nil {
		return ""
	}
	return r.LastSyncResourceVersion()
}

// dropWatch ends the reflector's watch in progress, if the informer runs
// and is watching (see Reflector.DropWatch).
func (s *sharedIndexInformer) dropWatch() bool {
	s.mu.Lock()
	r := s.reflector
	s.mu.Unlock()
	return r != nil && r.DropWatch()
}

// Run wires reflector → FIFO (a DeltaFIFO, or a RealFIFO with
// WithFIFO(FIFOReal)) → handleDeltas and runs them with the processor until
// ctx ends.
func (s *sharedIndexInformer) Run(ctx context.Context) {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		s.log.Warn("informer already started; Run ignored")
		return
	}
	// The indexer is the FIFO's KnownObjects: on a relist it tells the
	// FIFO which cached objects vanished (tombstones), and on resync which
	// objects to re-deliver.
	s.fifo = newFIFO(s.fifoKind, s.indexer, s.deltaTracer())
	s.reflector = NewReflector(s.name, s.lw, s.fifo, ReflectorOptions{
		ExpectedType: s.exampleObject,
		Clock:        s.clock,
		ResyncPeriod: s.resyncCheckPeriod,
		ShouldResync: s.processor.shouldResync,
		Backoff:      s.backoff,
		Trace:        s.trace,
		Logger:       s.baseLog,
	})
	s.started = true
	fifo, reflector := s.fifo, s.reflector
	s.mu.Unlock()

	var wg sync.WaitGroup
	wg.Go(func() { s.processor.run(ctx) })
	wg.Go(func() { reflector.Run(ctx) })
	// Closing the FIFO wakes the Pop below once ctx ends.
	stopFIFO := context.AfterFunc(ctx, fifo.Close)
	defer stopFIFO()
	for {
		_, err := fifo.Pop(s.handleDeltas)
		if errors.Is(err, ErrFIFOClosed) {
			break
		}
		if err != nil {
			s.log.Error("apply deltas to the cache", "err", err)
		}
	}
	wg.Wait()
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
}

// handleDeltas is the FIFO's process function: it applies one popped
// item's deltas, oldest first, to the indexer and queues the matching
// notifications. A DeltaFIFO item is every delta of one key since it was
// last popped; a RealFIFO item is always one delta. It runs under the
// FIFO's lock, so it must be quick: it never calls a handler, only appends
// to their buffers.
func (s *sharedIndexInformer) handleDeltas(obj any, isInInitialList bool) error {
	deltas, ok := obj.(Deltas)
	if !ok {
		return fmt.Errorf("popped %T, want Deltas", obj)
	}
	// Every delta of an item has the same key; it is computed once, and
	// only for the trace.
	key := s.tracePop(deltas)
	s.blockDeltas.Lock()
	defer s.blockDeltas.Unlock()
	for _, d := range deltas {
		switch d.Type {
		case Sync, Replaced, Added, Updated:
			newObj, ok := d.Object.(api.Object)
			if !ok {
				return fmt.Errorf("%s delta carries %T, want an api.Object", d.Type, d.Object)
			}
			if old, exists, err := s.indexer.Get(newObj); err == nil && exists {
				if err := s.indexer.Update(newObj); err != nil {
					return fmt.Errorf("update cache: %w", err)
				}
				s.traceStore(key, "update", newObj)
				// A version the cache already has (a resync, or a relist
				// that found the object unchanged) is a "sync": it goes
				// only to handlers whose resync is due.
				isSync := old.GetObjectMeta().ResourceVersion == newObj.GetObjectMeta().ResourceVersion
				s.processor.distribute(notification{kind: updateNotification, oldObj: old, newObj: newObj}, isSync)
			} else {
				if err := s.indexer.Add(newObj); err != nil {
					return fmt.Errorf("add to cache: %w", err)
				}
				s.traceStore(key, "add", newObj)
				s.processor.distribute(notification{kind: addNotification, newObj: newObj, isInInitialList: isInInitialList}, false)
			}
		case Deleted:
			if cached := s.cachedFor(d.Object); cached != nil {
				if err := s.indexer.Delete(cached); err != nil {
					return fmt.Errorf("delete from cache: %w", err)
				}
			}
			s.traceStore(key, "delete", d.Object)
			s.processor.distribute(notification{kind: deleteNotification, newObj: d.Object}, false)
		}
	}
	return nil
}

// cachedFor returns the object to remove from the indexer for a Deleted
// delta: the object itself, or the tombstone's last state (looked up by key
// if the tombstone carries none).
func (s *sharedIndexInformer) cachedFor(obj any) api.Object {
	switch o := obj.(type) {
	case api.Object:
		return o
	case DeletedFinalStateUnknown:
		if o.Obj != nil {
			return o.Obj
		}
		cached, _, _ := s.indexer.GetByKey(o.Key)
		return cached
	}
	return nil
}

// traceStore reports an indexer operation on obj, of key, to the tracer.
func (s *sharedIndexInformer) traceStore(key, op string, obj any) {
	if s.trace == nil {
		return
	}
	s.trace(StageStore, key, "rv="+resourceVersionOf(obj)+" op="+op)
}

// tracePop reports the item the FIFO handed out: how many deltas it
// carries is where the two FIFOs differ (a DeltaFIFO item may carry
// several of one key, a RealFIFO item always one). It returns the item's
// key ("" when tracing is off).
func (s *sharedIndexInformer) tracePop(deltas Deltas) string {
	if s.trace == nil || len(deltas) == 0 {
		return ""
	}
	newest := deltas.Newest().Object
	key, _ := DeletionHandlingMetaNamespaceKeyFunc(newest)
	detail := "rv=" + resourceVersionOf(newest) + " fifo=" + string(s.fifoKind) + " deltas=" + strconv.Itoa(len(deltas))
	if len(deltas) > 1 {
		// Changes that arrived before the informer got to the key are
		// handled in one go: the DeltaFIFO's compression.
		types := make([]string, len(deltas))
		for i, d := range deltas {
			types[i] = string(d.Type)
		}
		detail += " types=" + strings.Join(types, ",")
	}
	s.trace(StagePop, key, detail)
	return key
}

// deltaTracer adapts the tracer to the FIFO's hook (nil if off). A
// RealFIFO's lines say fifo=real, so a log shows which queue was at work.
func (s *sharedIndexInformer) deltaTracer() func(stage, key string, d Delta) {
	if s.trace == nil {
		return nil
	}
	inOrder := s.fifoKind == FIFOReal
	return func(stage, key string, d Delta) {
		detail := "rv=" + resourceVersionOf(d.Object) + " type=" + string(d.Type)
		if _, ok := d.Object.(DeletedFinalStateUnknown); ok {
			detail += " tombstone=true"
		}
		if inOrder {
			detail += " fifo=real"
		}
		if stage != StageDelta {
			// The FIFO's other stage is "dedup": a duplicate deletion
			// dropped. Keep it under the delta stage, flagged.
			detail += " action=" + stage
		}
		s.trace(StageDelta, key, detail)
	}
}

// WaitForCacheSync polls the given HasSynced functions every 100 ms
// (upstream's period) until all report true, and returns true; or returns
// false if ctx ends first. Controllers call it in Run before starting
// workers, so no worker reads a half-filled lister.
func WaitForCacheSync(ctx context.Context, synced ...func() bool) bool {
	allSynced := func() bool {
		for _, f := range synced {
			if !f() {
				return false
			}
		}
		return true
	}
	if allSynced() {
		return true
	}
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-ticker.C:
			if allSynced() {
				return true
			}
		}
	}
}
