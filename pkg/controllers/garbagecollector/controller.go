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
	"log/slog"
	"sync"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
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
// forever. For the kinds kplane watches the informer reports it within
// moments; for other kinds (a Node as owner) this is a slow poll that
// notices the owner's deletion.
const virtualNodeRecheckPeriod = time.Minute

// absentOwnerCacheSize bounds the absent-owner cache (upstream: 500).
const absentOwnerCacheSize = 500

// Options configure the controller.
type Options struct {
	Logger *slog.Logger // nil → slog.Default()
	Clock  clock.Clock  // nil → clock.Real{}
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

	attemptToDelete *workqueue.Queue[string]
	attemptToOrphan *workqueue.Queue[string]

	// synced are the HasSynced of the handler registrations: true once
	// the graph holds every object of the informers' initial lists.
	synced []func() bool
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
	log := opts.Logger.With("controller", Name)
	c := &Controller{
		client:          kubeClient,
		recorder:        recorder,
		log:             log,
		decisions:       decisionRecorder{journal: informers.Journal()},
		absentOwners:    newAbsentOwnerCache(absentOwnerCacheSize),
		attemptToDelete: controllerutil.NewQueue(attemptToDeleteQueueName, opts.Clock, informers),
		attemptToOrphan: controllerutil.NewQueue(attemptToOrphanQueueName, opts.Clock, informers),
	}
	c.graph = &graphBuilder{
		log:             log,
		graph:           newGraph(),
		attemptToDelete: c.attemptToDelete,
		attemptToOrphan: c.attemptToOrphan,
	}
	var handlers []controllerutil.Handlers
	for _, m := range monitors(informers) {
		handlers = append(handlers, controllerutil.Handlers{Informer: m.informer, Handler: c.graph.handlerFor(m.resource)})
	}
	synced, err := controllerutil.AddEventHandlers(Name, handlers...)
	if err != nil {
		return nil, err
	}
	c.synced = synced
	return c, nil
}

// Run waits until the graph holds the informers' initial state, then runs
// workers workers on each of the two queues until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("starting", "workers", workers)
	defer c.log.Info("stopped")
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.attemptToDelete.ShutDown()
		c.attemptToOrphan.ShutDown()
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		controllerutil.RunWorkers(ctx, c.attemptToDelete, workers, c.syncAttemptToDelete, c.log)
	})
	wg.Go(func() {
		controllerutil.RunWorkers(ctx, c.attemptToOrphan, workers, c.syncAttemptToOrphan, c.log)
	})
	wg.Wait()
}
