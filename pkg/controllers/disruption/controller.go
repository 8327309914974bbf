// Package disruption is the disruption controller: it keeps the status of
// every PodDisruptionBudget — how many of the pods it selects are healthy
// (Ready), how many must be, how many it expects, and so how many may be
// disrupted now — which the apiserver's pods/eviction subresource reads
// to allow an eviction or refuse it with a 429. It mirrors upstream's
// pkg/controller/disruption/disruption.go.
//
// The numbers, for a budget over some pods:
//
//	minAvailable: N        desiredHealthy = N, expectedPods = the pods selected
//	minAvailable: P%       expectedPods = the sum of the pods' controllers' scale
//	maxUnavailable: N|P%   (spec.replicas of their Deployment, ReplicaSet,
//	                       StatefulSet or ReplicationController);
//	                       desiredHealthy = P% of it rounded up, or
//	                       expectedPods − maxUnavailable
//	currentHealthy = selected pods that are Ready, not being deleted, and not
//	                 in status.disruptedPods (evicted a moment ago)
//	disruptionsAllowed = max(0, currentHealthy − desiredHealthy)
//	                     (0 while expectedPods is 0)
//
// An eviction records the pod it allowed in status.disruptedPods; the
// controller keeps the entry until it sees the pod being deleted, or for
// two minutes (DeletionTimeout), after which it assumes the deletion never
// happened. When the numbers cannot be computed (a pod of an unknown
// controller under a percentage) the budget gets disruptionsAllowed 0 and
// DisruptionAllowed=False with reason SyncFailed: fail closed.
//
// It also sets back to False a DisruptionTarget condition left on a pod
// whose deletion never came (stale.go).
//
// Where to start reading: this file builds the controller; handlers.go
// turns informer events into budget keys; sync.go is one sync;
// counts.go has the arithmetic; scale.go finds the pods' controllers.
// See docs/controllers/disruption.md.
package disruption

import (
	"context"
	"log/slog"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's --controllers name, upstream's.
const Name = "disruption"

// EventSource is the source.component of the controller's Events:
// upstream's disruption controller records as "controllermanager".
const EventSource = "controllermanager"

// DefaultWorkers is how many budgets are synced at once: upstream runs one
// worker and has no flag for it.
const DefaultWorkers = 1

// DeletionTimeout is how long an entry of status.disruptedPods counts:
// long enough for the eviction's delete to reach the controller's cache
// (upstream's DeletionTimeout, 2 minutes). After it the pod, still not
// being deleted, counts as healthy again.
const DeletionTimeout = 2 * time.Minute

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock expires disruptedPods entries and drives the workqueue; nil is
	// the wall clock.
	Clock clock.Clock
}

// Controller keeps PodDisruptionBudget status. Build it with New, run it
// with Run.
type Controller struct {
	client   *client.Client
	recorder events.EventRecorder
	log      *slog.Logger
	clock    clock.Clock
	// decisions records each budget's arithmetic for `ctl why pdb/NAME`.
	decisions *controllerutil.DecisionLog

	budgets                *informer.Lister[*api.PodDisruptionBudget]
	pods                   *informer.Lister[*api.Pod]
	replicationControllers *informer.Lister[*api.ReplicationController]
	replicaSets            *informer.Lister[*api.ReplicaSet]
	deployments            *informer.Lister[*api.Deployment]
	statefulSets           *informer.Lister[*api.StatefulSet]
	synced                 []func() bool

	// queue holds budget keys ("namespace/name"). A budget whose
	// disruptedPods entries will expire is re-added (AddAfter) for the
	// moment the first does, upstream's recheck queue.
	queue *workqueue.Queue[string]
}

// New builds the controller and registers its handlers on the budget and
// pod informers (and the listers of the workloads whose scale it reads);
// the caller starts the factory.
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	ctrl := &Controller{
		client:                 c,
		recorder:               recorder,
		log:                    logger.With("controller", Name),
		clock:                  clk,
		decisions:              controllerutil.NewDecisionLog(informers.Journal(), Name, "poddisruptionbudgets.policy"),
		budgets:                informers.PodDisruptionBudgets().Lister(),
		pods:                   informers.Pods().Lister(),
		replicationControllers: informers.ReplicationControllers().Lister(),
		replicaSets:            informers.ReplicaSets().Lister(),
		deployments:            informers.Deployments().Lister(),
		statefulSets:           informers.StatefulSets().Lister(),
		queue:                  controllerutil.NewQueue(Name, clk, informers),
	}
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.PodDisruptionBudgets().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.budgetChanged,
			UpdateFunc: func(_, newObj api.Object) { ctrl.budgetChanged(newObj) },
			DeleteFunc: ctrl.budgetDeleted,
		}},
		controllerutil.Handlers{Informer: informers.Pods().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.podChanged,
			UpdateFunc: func(_, newObj api.Object) { ctrl.podChanged(newObj) },
			DeleteFunc: ctrl.podDeleted,
		}},
		// The workloads are only read (their spec.replicas), as upstream's
		// listers are; no handler is needed, a registration for the sync.
		controllerutil.Handlers{Informer: informers.ReplicationControllers().Informer(), Handler: informer.ResourceEventHandlerFuncs{}},
		controllerutil.Handlers{Informer: informers.ReplicaSets().Informer(), Handler: informer.ResourceEventHandlerFuncs{}},
		controllerutil.Handlers{Informer: informers.Deployments().Informer(), Handler: informer.ResourceEventHandlerFuncs{}},
		controllerutil.Handlers{Informer: informers.StatefulSets().Informer(), Handler: informer.ResourceEventHandlerFuncs{}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the caches, then syncs budgets with workers goroutines
// until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	c.log.Info("starting controller", "workers", workers)
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}
