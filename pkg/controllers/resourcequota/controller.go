// Package resourcequota is the resource quota controller: it keeps every
// ResourceQuota's status current, as upstream's resourcequota controller
// in kube-controller-manager does (pkg/controller/resourcequota).
//
// Quota is enforced in two places. The apiserver's quota admission
// (pkg/apiserver/admission_quota.go) charges each new object to
// status.used before the object is written, so usage only ever grows
// there. This controller does the rest:
//
//   - it copies spec.hard to status.hard, which is what admission enforces,
//     so a new or changed quota takes effect once the controller has seen it;
//   - it recounts status.used from its informers' caches with the same
//     evaluators admission uses (pkg/quota), which gives usage back when
//     objects go away: a pod deleted or finished, a Service removed
//     (upstream calls this replenishment);
//   - it recounts every quota each --resource-quota-sync-period (5 m), the
//     full resync that repairs whatever admission charged for a write that
//     then failed.
//
// A quota is synced when it is created, when its spec.hard changes (not on
// its own status writes: admission's charges would otherwise each trigger
// a recount), when a charged object in its namespace is updated into a
// state that no longer charges or is deleted, and on the periodic resync.
// See docs/controllers/resourcequota.md.
package resourcequota

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
	"kplane/pkg/quota"
)

// Name is the controller's --controllers name, upstream's.
const Name = "resourcequota"

// DefaultSyncPeriod is upstream's --resource-quota-sync-period: how often
// every quota is recounted even when nothing signalled a change.
const DefaultSyncPeriod = 5 * time.Minute

// DefaultWorkers is upstream's --concurrent-resource-quota-syncs.
const DefaultWorkers = 5

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock drives the back-off, the resync and the pods' grace periods;
	// nil is the wall clock.
	Clock clock.Clock
	// SyncPeriod is the full resync's period; 0 is DefaultSyncPeriod.
	SyncPeriod time.Duration
}

// Controller keeps ResourceQuota status current. Build it with New, run it
// with Run.
type Controller struct {
	client     *client.Client
	log        *slog.Logger
	clock      clock.Clock
	syncPeriod time.Duration

	// decisions records each status write (decision.go).
	decisions *controllerutil.DecisionLog

	quotas *informer.Lister[*api.ResourceQuota]
	// counted lists, per resource with an informer, the objects of one
	// namespace (counted.go); other count/ resources are listed live.
	counted map[quota.GroupResource]namespaceLister
	// synced are the handler registrations' HasSynced: a recount from a
	// cache still filling would hand quota back that is in use.
	synced []func() bool
	// queue holds quota keys, namespace/name.
	queue *workqueue.Queue[string]
}

// New builds the controller and registers its handlers on the quota
// informer and on the informers of every resource it counts; the caller
// starts the factory. Upstream's controller records no Events, and neither
// does this one.
func New(c *client.Client, informers *informer.SharedInformerFactory, _ events.EventRecorder, opts Options) (*Controller, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	period := opts.SyncPeriod
	if period <= 0 {
		period = DefaultSyncPeriod
	}
	ctrl := &Controller{
		client:     c,
		log:        logger.With("controller", Name),
		clock:      clk,
		syncPeriod: period,
		decisions:  controllerutil.NewDecisionLog(informers.Journal(), Name, "resourcequotas"),
		quotas:     informers.ResourceQuotas().Lister(),
		queue:      controllerutil.NewQueue(Name, opts.Clock, informers),
	}
	handlers := []controllerutil.Handlers{{Informer: informers.ResourceQuotas().Informer(), Handler: informer.ResourceEventHandlerFuncs{
		AddFunc:    ctrl.quotaAdded,
		UpdateFunc: ctrl.quotaUpdated,
		DeleteFunc: ctrl.quotaDeleted,
	}}}
	var countedHandlers []controllerutil.Handlers
	ctrl.counted, countedHandlers = ctrl.countedResources(informers)
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name, append(handlers, countedHandlers...)...)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// quotaAdded enqueues a quota the controller has not synced.
func (c *Controller) quotaAdded(obj api.Object) {
	c.enqueue(obj)
}

// quotaUpdated enqueues a quota whose spec.hard changed. Its status
// changes are admission's charges and this controller's own writes; a
// recount for each would turn every pod create into a namespace-wide
// recount (upstream ignores them for the same reason).
func (c *Controller) quotaUpdated(oldObj, newObj api.Object) {
	old, ok1 := oldObj.(*api.ResourceQuota)
	cur, ok2 := newObj.(*api.ResourceQuota)
	if ok1 && ok2 && quota.Equals(old.Spec.Hard, cur.Spec.Hard) {
		return
	}
	c.enqueue(newObj)
}

// quotaDeleted forgets nothing: a deleted quota's key syncs to a no-op.
func (c *Controller) quotaDeleted(obj any) {
	if q, ok := informer.DeletedObject[*api.ResourceQuota](obj); ok {
		c.enqueue(q)
	}
}

func (c *Controller) enqueue(obj api.Object) {
	meta := obj.GetObjectMeta()
	c.queue.Add(meta.Namespace + "/" + meta.Name)
}

// replenish enqueues the quotas of namespace that limit something e
// charges: an object of e's resource went away or stopped charging.
func (c *Controller) replenish(e quota.Evaluator, namespace string) {
	quotas, err := c.quotas.Namespace(namespace).List(nil)
	if err != nil {
		c.log.Warn("list quotas to replenish", "namespace", namespace, "err", err)
		return
	}
	for _, q := range quotas {
		if len(e.MatchingResources(quota.ResourceNames(q.Status.Hard))) > 0 {
			c.enqueue(q)
		}
	}
}

// Run waits for the caches, then syncs quotas with workers goroutines and
// enqueues every quota each sync period, until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	go c.resyncLoop(ctx)
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// resyncLoop enqueues every quota once per sync period: the full recount
// (upstream's enqueueAll), on the controller's clock.
func (c *Controller) resyncLoop(ctx context.Context) {
	ticker := c.clock.NewTicker(c.syncPeriod)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
			c.enqueueAll()
		}
	}
}

// enqueueAll enqueues every quota in the cache.
func (c *Controller) enqueueAll() {
	quotas, err := c.quotas.List(nil)
	if err != nil {
		c.log.Warn("list quotas for the full resync", "err", err)
		return
	}
	for _, q := range quotas {
		c.enqueue(q)
	}
}
