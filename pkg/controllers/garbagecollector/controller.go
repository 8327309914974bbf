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
)

// Queue names. They label the workqueue metrics and logs; they are upstream's
// two queue names under the controller's name.
const (
	attemptToDeleteQueueName = "garbagecollector_attempt_to_delete"
	attemptToOrphanQueueName = "garbagecollector_attempt_to_orphan"
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

	graph        *graphBuilder
	absentOwners *absentOwnerCache

	attemptToDelete *workqueue.Queue[string]
	attemptToOrphan *workqueue.Queue[string]

	// synced are the HasSynced of the handler registrations: true once
	// the graph holds every object of the informers' initial lists.
	synced []func() bool
}

// New builds the garbage collector and registers its graph builder's
// handlers on the shared informers of every monitored resource.
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	log := opts.Logger.With("controller", "garbagecollector")
	gc := &Controller{
		client:       c,
		recorder:     recorder,
		log:          log,
		absentOwners: newAbsentOwnerCache(absentOwnerCacheSize),
		attemptToDelete: workqueue.New(workqueue.Options[string]{
			Name: attemptToDeleteQueueName, Clock: opts.Clock,
			RateLimiter: workqueue.DefaultControllerRateLimiter[string](opts.Clock),
		}),
		attemptToOrphan: workqueue.New(workqueue.Options[string]{
			Name: attemptToOrphanQueueName, Clock: opts.Clock,
			RateLimiter: workqueue.DefaultControllerRateLimiter[string](opts.Clock),
		}),
	}
	gc.graph = &graphBuilder{
		log:             log,
		graph:           newGraph(),
		attemptToDelete: gc.attemptToDelete,
		attemptToOrphan: gc.attemptToOrphan,
	}
	for _, m := range monitors(informers) {
		reg, err := m.informer.AddEventHandler(gc.graph.handlerFor(m.resource))
		if err != nil {
			return nil, fmt.Errorf("garbagecollector: watch %s: %w", m.resource, err)
		}
		gc.synced = append(gc.synced, reg.HasSynced)
	}
	return gc, nil
}

// Run waits until the graph holds the informers' initial state, then runs
// workers workers on each of the two queues until ctx ends.
func (gc *Controller) Run(ctx context.Context, workers int) {
	gc.log.Info("starting", "workers", workers)
	defer gc.log.Info("stopped")
	if !informer.WaitForCacheSync(ctx, gc.synced...) {
		gc.attemptToDelete.ShutDown()
		gc.attemptToOrphan.ShutDown()
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		controllerutil.RunWorkers(ctx, gc.attemptToDelete, workers, gc.syncAttemptToDelete, gc.log)
	})
	wg.Go(func() {
		controllerutil.RunWorkers(ctx, gc.attemptToOrphan, workers, gc.syncAttemptToOrphan, gc.log)
	})
	wg.Wait()
}
