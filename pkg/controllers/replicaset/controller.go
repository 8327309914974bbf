// Package replicaset is the ReplicaSet controller: it keeps spec.replicas
// pods matching each ReplicaSet's selector running, adopting orphans that
// match and releasing pods relabelled out of the selector, creating pods
// in slow-start batches and deleting the least valuable first, and reports
// the counts in status.
//
// Where to start reading: this file builds the controller (New, Run);
// handlers.go turns informer events into queued keys; sync.go is one
// reconcile step (Sync), with replicas.go (creates and deletes) and
// status.go (the counts). The controller works on any kind through a
// small adapter, Kind (kind.go), which wires ReplicaSets in here and
// ReplicationControllers in pkg/controllers/replicationcontroller. See
// docs/controllers/replicaset.md.
package replicaset

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

// Name is the controller's name as --controllers spells it: its
// workqueue's and its logs'.
const Name = "replicaset"

// BurstReplicas is how many pods one sync creates or deletes at most
// (upstream's burstReplicas, 500): a ReplicaSet scaled from 0 to 5000 gets
// there in ten syncs, each waiting for the informer to see the previous
// one's pods, rather than in one flood of requests.
const BurstReplicas = 500

// Options configure the controller. The ReplicationController controller
// takes the same options.
type Options struct {
	Logger *slog.Logger // nil → slog.Default()
	Clock  clock.Clock  // nil → clock.Real{}
	// BurstReplicas caps the pods one sync creates or deletes; 0 means
	// BurstReplicas (500).
	BurstReplicas int
}

// Controller keeps, for every owner of kind T (a ReplicaSet or a
// ReplicationController), spec.replicas active pods that match the owner's
// selector and are controlled by it. It is upstream's
// ReplicaSetController, which serves both kinds too.
//
// The flow of a change: an informer event (an owner added or scaled, one
// of its pods created, deleted or relabelled) computes the owner's key and
// adds it to the workqueue — see handlers.go; a worker calls Sync(key),
// which reads the owner and the namespace's pods from the listers, claims
// its pods, creates or deletes the difference, and writes status — see
// sync.go, replicas.go and status.go. The expectations keep a sync from
// acting twice on a cache that has not yet seen its own writes.
type Controller[T api.Object] struct {
	kind      Kind[T]
	podLister *informer.Lister[*api.Pod]
	// podControl creates, deletes and patches pods and records the
	// SuccessfulCreate/SuccessfulDelete events.
	podControl   controllerutil.PodControl
	expectations *controllerutil.Expectations
	// decisions records what each sync decided, for `ctl why rs/NAME`
	// (decision.go); nil without a debug journal.
	decisions *controllerutil.DecisionLog
	queue     *workqueue.Queue[string]
	clock     clock.Clock
	log       *slog.Logger

	// burstReplicas caps creates and deletes per sync.
	burstReplicas int
	// cachesSynced are the handler registrations' HasSynced: Run waits for
	// them before the first sync reads a lister.
	cachesSynced []func() bool
}

// New builds the ReplicaSet controller on the shared informers (it
// registers the ReplicaSet and Pod informers); it writes through c and
// records events with recorder (whose source is "replicaset-controller").
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller[*api.ReplicaSet], error) {
	return NewForKind(replicaSetKind(c, informers), c, informers, recorder, opts)
}

// NewForKind builds the controller for the owners kind describes: it
// registers event handlers on the owners' informer (kind.Informer) and on
// the pod informer, and creates and deletes pods through c. It does not
// start the informers. The ReplicationController controller is this with
// its own Kind.
func NewForKind[T api.Object](kind Kind[T], c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller[T], error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.BurstReplicas <= 0 {
		opts.BurstReplicas = BurstReplicas
	}
	pods := informers.Pods()
	ctrl := &Controller[T]{
		kind:          kind,
		podLister:     pods.Lister(),
		podControl:    controllerutil.PodControl{Client: c, Recorder: recorder},
		expectations:  controllerutil.NewExpectations(opts.Clock),
		decisions:     controllerutil.NewDecisionLog(informers.Journal(), kind.Name, kind.Resource),
		queue:         controllerutil.NewQueue(kind.Name, opts.Clock, informers),
		clock:         opts.Clock,
		log:           opts.Logger.With("controller", kind.Name),
		burstReplicas: opts.BurstReplicas,
	}
	var err error
	ctrl.cachesSynced, err = controllerutil.AddEventHandlers(kind.Name,
		controllerutil.Handlers{Informer: kind.Informer.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.addOwner,
			UpdateFunc: ctrl.updateOwner,
			DeleteFunc: ctrl.deleteOwner,
		}},
		// Every pod change reaches the owner: most are status updates (a
		// pod became ready), and a sync of an owner whose expectations are
		// met only reads local caches, so that is cheap.
		controllerutil.Handlers{Informer: pods.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.addPod,
			UpdateFunc: ctrl.updatePod,
			DeleteFunc: ctrl.deletePod,
		}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the caches to sync, then runs workers workers over the
// queue until ctx ends. It does not start the informers: the
// controller-manager starts the shared factory once every controller has
// registered its handlers.
func (c *Controller[T]) Run(ctx context.Context, workers int) {
	c.log.Info("starting controller", "workers", workers)
	defer c.log.Info("stopped controller")
	if !informer.WaitForCacheSync(ctx, c.cachesSynced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.Sync, c.log)
}

// enqueue adds owner's key to the queue.
func (c *Controller[T]) enqueue(owner T) {
	c.queue.Add(keyOf(owner))
}

// enqueueAfter adds owner's key to the queue once d has passed.
func (c *Controller[T]) enqueueAfter(owner T, d time.Duration) {
	c.queue.AddAfter(keyOf(owner), d)
}
