// Package statefulset is the StatefulSet controller: it runs each set's
// pods as <set>-0, <set>-1, … with stable hostnames and their own
// PersistentVolumeClaims, creates them in order (OrderedReady) or all at
// once (Parallel), deletes them highest ordinal first on scale down, and
// rolls a new template out in reverse ordinal order above the partition
// (RollingUpdate) or only as users delete pods (OnDelete). Each template it
// ever ran is kept as a ControllerRevision.
//
// The flow of a change: an informer event (a set created or edited, one of
// its pods created, ready, deleted) enqueues the set's key — handlers.go;
// a worker calls sync(key) — sync.go — which claims the set's pods and
// revisions, finds the update revision — revisions.go —, asks plan — plan.go
// — for the next pod writes, carries them out — pods.go — and writes
// status — status.go. Where to start reading: New and Run below, then
// sync. See docs/controllers/statefulset.md.
package statefulset

import (
	"context"
	"log/slog"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's name as --controllers spells it: its
// workqueue's and its logs'.
const Name = "statefulset"

// Options configure the controller.
type Options struct {
	Logger *slog.Logger // nil → slog.Default()
	Clock  clock.Clock  // nil → clock.Real{}
}

// Controller is the StatefulSet controller.
type Controller struct {
	client    *client.Client
	recorder  events.EventRecorder
	setLister *informer.Lister[*api.StatefulSet]
	podLister *informer.Lister[*api.Pod]
	// claimLister and revisionLister are read in sync only; their changes
	// do not enqueue anything (as upstream, which has no handlers on them).
	claimLister    *informer.Lister[*api.PersistentVolumeClaim]
	revisionLister *informer.Lister[*api.ControllerRevision]
	queue          *workqueue.Queue[string]
	clock          clock.Clock
	log            *slog.Logger
	// decisions records each sync's step (decision.go).
	decisions *controllerutil.DecisionLog

	// cachesSynced are what Run waits for before the first sync.
	cachesSynced []func() bool
}

// New builds the StatefulSet controller on the shared informers (it
// registers the StatefulSet, Pod, PersistentVolumeClaim and
// ControllerRevision informers); it writes through c and records events
// with recorder (whose source is "statefulset-controller").
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	sets, pods := informers.StatefulSets(), informers.Pods()
	claims, revisions := informers.PersistentVolumeClaims(), informers.ControllerRevisions()
	ctrl := &Controller{
		client:         c,
		recorder:       recorder,
		setLister:      sets.Lister(),
		podLister:      pods.Lister(),
		claimLister:    claims.Lister(),
		revisionLister: revisions.Lister(),
		clock:          opts.Clock,
		log:            opts.Logger.With("controller", Name),
		decisions:      controllerutil.NewDecisionLog(informers.Journal(), Name, "statefulsets.apps"),
		queue:          controllerutil.NewQueue(Name, opts.Clock, informers),
	}
	var err error
	ctrl.cachesSynced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: sets.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.addSet,
			UpdateFunc: ctrl.updateSet,
			DeleteFunc: ctrl.deleteSet,
		}},
		controllerutil.Handlers{Informer: pods.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.addPod,
			UpdateFunc: ctrl.updatePod,
			DeleteFunc: ctrl.deletePod,
		}},
		// Claims and revisions are only read, in sync.
		controllerutil.Handlers{Informer: claims.Informer(), Handler: informer.ResourceEventHandlerFuncs{}},
		controllerutil.Handlers{Informer: revisions.Informer(), Handler: informer.ResourceEventHandlerFuncs{}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the caches to sync, then runs workers workers over the
// queue until ctx ends. It does not start the informers.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("starting controller", "workers", workers)
	defer c.log.Info("stopped controller")
	if !informer.WaitForCacheSync(ctx, c.cachesSynced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// enqueue adds obj's key to the queue.
func (c *Controller) enqueue(obj api.Object) {
	key, err := informer.MetaNamespaceKeyFunc(obj)
	if err != nil {
		c.log.Error("cannot key object", "err", err)
		return
	}
	c.queue.Add(key)
}
