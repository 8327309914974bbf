// Package garbagecollector deletes objects whose owners are gone, and carries
// out the three deletion propagation policies, as upstream's garbage
// collector (pkg/controller/garbagecollector) does.
//
// It keeps an ownership graph — every watched object, linked to the owners
// its ownerReferences name (graph.go), built from informer events
// (graph_builder.go) — and two queues of uids:
//
//   - attemptToDelete (attempt_to_delete.go): a dependent whose owner may be
//     gone is deleted when no owner is left alive, or loses its dangling
//     ownerReferences when one is (Background); an owner in foreground
//     deletion loses its foregroundDeletion finalizer once no dependent
//     blocks it (Foreground); a virtual node — an owner named by a
//     reference but never observed — is checked against the apiserver.
//   - attemptToOrphan (attempt_to_orphan.go): an owner deleted with the
//     orphan finalizer has its ownerReference removed from every dependent,
//     then loses the finalizer (Orphan).
//
// The apiserver starts each deletion (pkg/apiserver/handlers_delete.go adds
// the finalizer a propagation policy asks for); the collector finishes it.
// Every decision that something is gone is checked against the apiserver,
// never taken from the informer caches alone. See
// docs/controllers/garbagecollector.md.
package garbagecollector

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
	"kplane/pkg/restmapper"
)

// Name is the controller's name as --controllers spells it; its logs
// carry it, and its two queues' names start with it.
const Name = "garbagecollector"

// Queue names. They label the workqueue metrics, the logs and
// --trace-informers; they are upstream's two queue names under the
// controller's name.
const (
	attemptToDeleteQueueName = Name + "_attempt_to_delete"
	attemptToOrphanQueueName = Name + "_attempt_to_orphan"
)

// DefaultWorkers is the number of workers per queue the controller-manager
// runs (--concurrent-gc-syncs, upstream's default 20).
const DefaultWorkers = 20

// virtualNodeRecheckPeriod is how often an owner that exists but has never
// been observed through an informer is checked again. Upstream requeues
// such a node until an informer reports it, so that a node for an object
// created and deleted between two watches cannot stay in the graph
// forever. The informer of a watched kind reports the owner within
// moments; the recheck matters for a kind nothing watches (one whose
// resource discovery does not list as deletable, or before the first
// resync), where it is a slow poll that notices the owner's deletion.
const virtualNodeRecheckPeriod = time.Minute

// absentOwnerCacheSize bounds the absent-owner cache (upstream: 500).
const absentOwnerCacheSize = 500

// DefaultResourceResyncPeriod is how often the collector reads discovery
// again to watch new resources and stop watching removed ones: upstream's
// controller-manager calls the collector's Sync every 30 s.
const DefaultResourceResyncPeriod = 30 * time.Second

// Options configure the controller.
type Options struct {
	Logger *slog.Logger // nil → slog.Default()
	Clock  clock.Clock  // nil → clock.Real{}
	// ResourceResyncPeriod is how often discovery is read again (0 →
	// DefaultResourceResyncPeriod).
	ResourceResyncPeriod time.Duration
	// Discover lists the resources the apiserver serves (nil → read the
	// apiserver's discovery documents through the client).
	Discover func(ctx context.Context) ([]restmapper.APIResource, error)
}

// Controller is the garbage collector.
type Controller struct {
	client   *client.Client
	recorder events.EventRecorder
	log      *slog.Logger
	// decisions records what the workers decide (decision.go).
	decisions decisionRecorder

	graph        *graphBuilder
	absentOwners *absentOwnerCache

	// informers gives the monitors their informers: shared typed ones for
	// built-in kinds, dynamic ones for custom resources.
	informers *informer.SharedInformerFactory
	// mapper resolves ownerReferences to resources, built-in or discovered.
	mapper *restMapper
	// monitors are the watched resources: the workload kinds from the
	// start, every other deletable one as each resync finds it.
	monitors     monitorSet
	discover     func(ctx context.Context) ([]restmapper.APIResource, error)
	clock        clock.Clock
	resyncPeriod time.Duration

	attemptToDelete *workqueue.Queue[string]
	attemptToOrphan *workqueue.Queue[string]
}

// New builds the garbage collector and registers its graph builder's
// handlers on the shared informers of every monitored resource; objects
// are read, patched and deleted through kubeClient's dynamic client.
func New(kubeClient *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.ResourceResyncPeriod <= 0 {
		opts.ResourceResyncPeriod = DefaultResourceResyncPeriod
	}
	if opts.Discover == nil {
		opts.Discover = func(ctx context.Context) ([]restmapper.APIResource, error) {
			m, err := restmapper.Discover(ctx, kubeClient)
			if err != nil {
				return nil, err
			}
			return m.Resources(), nil
		}
	}
	log := opts.Logger.With("controller", Name)
	mapper := newRESTMapper()
	c := &Controller{
		client:          kubeClient,
		recorder:        recorder,
		log:             log,
		decisions:       decisionRecorder{journal: informers.Journal(), mapper: mapper},
		absentOwners:    newAbsentOwnerCache(absentOwnerCacheSize),
		attemptToDelete: controllerutil.NewQueue(attemptToDeleteQueueName, opts.Clock, informers),
		attemptToOrphan: controllerutil.NewQueue(attemptToOrphanQueueName, opts.Clock, informers),
		informers:       informers,
		mapper:          mapper,
		monitors:        monitorSet{monitors: map[client.Resource]*monitor{}},
		discover:        opts.Discover,
		clock:           opts.Clock,
		resyncPeriod:    opts.ResourceResyncPeriod,
	}
	c.graph = &graphBuilder{
		log:             log,
		graph:           newGraph(mapper),
		attemptToDelete: c.attemptToDelete,
		attemptToOrphan: c.attemptToOrphan,
	}
	for _, m := range typedMonitors(informers) {
		reg, err := m.informer.AddEventHandler(c.graph.handlerFor(m.resource))
		if err != nil {
			return nil, fmt.Errorf("%s: monitor %s: %w", Name, m.resource, err)
		}
		m.registration = reg
		c.monitors.monitors[m.resource] = &m
	}
	return c, nil
}

// Run reads discovery to add a monitor for every deletable resource beyond
// the built-in ones, waits until the graph holds the informers' initial
// state, then runs workers workers on each of the two queues, and resyncs
// the monitors with discovery every resource resync period, until ctx ends.
// A failed first discovery is not fatal: the built-in monitors work, and
// the next resync tries again.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("starting", "workers", workers)
	defer c.log.Info("stopped")
	if _, err := c.resyncMonitors(ctx); err != nil {
		c.log.Warn("initial discovery failed; watching the built-in resources only until the next resync", "err", err)
	}
	c.informers.Start(ctx)
	if !informer.WaitForCacheSync(ctx, c.monitorsSynced) {
		c.attemptToDelete.ShutDown()
		c.attemptToOrphan.ShutDown()
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { c.runResync(ctx) })
	wg.Go(func() {
		controllerutil.RunWorkers(ctx, c.attemptToDelete, workers, c.syncAttemptToDelete, c.log)
	})
	wg.Go(func() {
		controllerutil.RunWorkers(ctx, c.attemptToOrphan, workers, c.syncAttemptToOrphan, c.log)
	})
	wg.Wait()
}
