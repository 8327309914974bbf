// Package persistentvolume is the PersistentVolume binder: it binds each
// PersistentVolumeClaim to a PersistentVolume that satisfies it and keeps
// both objects' phases true — a volume is Available, Bound or Released, a
// claim Pending, Bound or Lost — as upstream's "persistentvolume-binder"
// controller in kube-controller-manager does.
//
// A binding is a pointer each way: the volume's spec.claimRef names the
// claim (with its UID), the claim's spec.volumeName names the volume.
// Nothing makes the four writes that set them (volume spec, volume status,
// claim spec, claim status) one transaction, so every sync looks at both
// ends, finishes what a crashed or conflicted sync left half done, and
// writes only what differs.
//
// The flow: an informer event enqueues a claim key ("namespace/name") on the
// claim queue or a volume name on the volume queue — handlers.go; a worker
// syncs it — claim.go, volume.go — choosing volumes with the pure functions
// in match.go and writing through bind.go. Every ResyncPeriod all claims
// and volumes are queued again, which is how a claim whose volume is
// missing gets another look. See docs/controllers/persistentvolume-binder.md.
//
// Volumes are cluster-scoped and carry no ownerReferences: no garbage
// collection is involved. A released volume goes when its reclaim policy
// is Delete, because this controller deletes it.
package persistentvolume

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's --controllers name, upstream's, and its
// "controller" log attribute. Its queues are Name+"-claims" and
// Name+"-volumes".
const Name = "persistentvolume-binder"

// DefaultResyncPeriod is how often every claim and volume is queued again:
// upstream's --pvclaimbinder-sync-period default. It bounds how long a
// claim waits for a volume created by something the handlers miss.
const DefaultResyncPeriod = 15 * time.Second

// The reasons of the events the controller records, as upstream's.
const (
	ReasonFailedBinding              = "FailedBinding"
	ReasonProvisioningFailed         = "ProvisioningFailed"
	ReasonVolumeMismatch             = "VolumeMismatch"
	ReasonClaimLost                  = "ClaimLost"
	ReasonClaimMisbound              = "ClaimMisbound"
	ReasonVolumeUnknownReclaimPolicy = "VolumeUnknownReclaimPolicy"
)

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock drives the queues' back-off, the resync and the phases'
	// lastPhaseTransitionTime; nil is the wall clock.
	Clock clock.Clock
	// ResyncPeriod is how often all claims and volumes are queued again;
	// 0 is DefaultResyncPeriod.
	ResyncPeriod time.Duration
}

// Controller binds claims to volumes. Build it with New, run it with Run.
type Controller struct {
	client   *client.Client
	recorder events.EventRecorder
	log      *slog.Logger
	clock    clock.Clock
	resync   time.Duration
	// claimDecisions and volumeDecisions record what the syncs decide
	// (decision.go).
	claimDecisions, volumeDecisions *controllerutil.DecisionLog

	volumeLister *informer.Lister[*api.PersistentVolume]
	claimLister  *informer.Lister[*api.PersistentVolumeClaim]
	classLister  *informer.Lister[*api.StorageClass]
	// cachesSynced are the handler registrations' HasSynced: no worker
	// starts before both caches hold the whole cluster, or a claim would
	// be told no volume fits while the volumes are still being listed.
	cachesSynced []func() bool

	// claimQueue holds claim keys ("namespace/name"), volumeQueue volume
	// names. Upstream keeps the two apart too: a claim sync chooses and
	// binds, a volume sync keeps the volume's phase and reclaims it.
	claimQueue  *workqueue.Queue[string]
	volumeQueue *workqueue.Queue[string]
}

// New builds the controller and registers its handlers on the
// PersistentVolume and PersistentVolumeClaim informers of informers; the
// caller starts the factory. Events are recorded with recorder (source
// "persistentvolume-controller" in the controller-manager).
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.ResyncPeriod <= 0 {
		opts.ResyncPeriod = DefaultResyncPeriod
	}
	volumes, claims := informers.PersistentVolumes(), informers.PersistentVolumeClaims()
	ctrl := &Controller{
		client:          c,
		recorder:        recorder,
		log:             opts.Logger.With("controller", Name),
		clock:           opts.Clock,
		resync:          opts.ResyncPeriod,
		claimDecisions:  controllerutil.NewDecisionLog(informers.Journal(), Name, "persistentvolumeclaims"),
		volumeDecisions: controllerutil.NewDecisionLog(informers.Journal(), Name, "persistentvolumes"),
		volumeLister:    volumes.Lister(),
		claimLister:     claims.Lister(),
		classLister:     informers.StorageClasses().Lister(),
		claimQueue:      controllerutil.NewQueue(Name+"-claims", opts.Clock, informers),
		volumeQueue:     controllerutil.NewQueue(Name+"-volumes", opts.Clock, informers),
	}
	var err error
	ctrl.cachesSynced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: volumes.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.addVolume,
			UpdateFunc: func(_, newObj api.Object) { ctrl.addVolume(newObj) },
			DeleteFunc: ctrl.deleteVolume,
		}},
		controllerutil.Handlers{Informer: claims.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.addClaim,
			UpdateFunc: func(_, newObj api.Object) { ctrl.addClaim(newObj) },
			DeleteFunc: ctrl.deleteClaim,
		}},
		// Classes are only read; a claim waiting for its class gets
		// another look at the next resync.
		controllerutil.Handlers{Informer: informers.StorageClasses().Informer(), Handler: informer.ResourceEventHandlerFuncs{}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the caches, then syncs claims and volumes, each queue with
// workers goroutines, and queues everything again every ResyncPeriod, until
// ctx ends. Upstream runs one worker per queue, and 1 is the default here:
// two workers could choose the same volume for two claims at once. That is
// safe — every write carries the resourceVersion read, so the second one
// gets a Conflict and retries — but it is wasted work.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("starting controller", "workers", workers)
	defer c.log.Info("stopped controller")
	if !informer.WaitForCacheSync(ctx, c.cachesSynced...) {
		c.claimQueue.ShutDown()
		c.volumeQueue.ShutDown()
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { c.resyncLoop(ctx) })
	wg.Go(func() { controllerutil.RunWorkers(ctx, c.volumeQueue, workers, c.syncVolumeKey, c.log) })
	controllerutil.RunWorkers(ctx, c.claimQueue, workers, c.syncClaimKey, c.log)
	wg.Wait()
}

// ClaimQueue returns the claim workqueue (for tests and views).
func (c *Controller) ClaimQueue() *workqueue.Queue[string] { return c.claimQueue }

// VolumeQueue returns the volume workqueue (for tests and views).
func (c *Controller) VolumeQueue() *workqueue.Queue[string] { return c.volumeQueue }

// resyncLoop queues every claim and volume each resync period: upstream's
// periodic resync, the retry for claims nothing else wakes.
func (c *Controller) resyncLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.clock.After(c.resync):
		}
		c.enqueueAll()
	}
}

// enqueueAll queues every claim and volume in the caches.
func (c *Controller) enqueueAll() {
	claims, err := c.claimLister.List(labels.Everything())
	if err != nil {
		c.log.Error("cannot list claims for the resync", "err", err)
	}
	for _, claim := range claims {
		c.claimQueue.Add(claimKey(claim))
	}
	volumes, err := c.volumeLister.List(labels.Everything())
	if err != nil {
		c.log.Error("cannot list volumes for the resync", "err", err)
	}
	for _, pv := range volumes {
		c.volumeQueue.Add(pv.Name)
	}
}

// syncClaimKey syncs the claim named key ("namespace/name"). A claim that
// is gone needs nothing: its deletion queued its volume, whose sync
// releases it.
func (c *Controller) syncClaimKey(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(err)
	}
	claim, err := c.claimLister.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.claimDecisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get claim %s from cache: %w", key, err)
	}
	return c.syncClaim(ctx, claim)
}

// syncVolumeKey syncs the volume named key. A volume that is gone needs
// nothing: its deletion queued its claim, whose sync marks it Lost.
func (c *Controller) syncVolumeKey(ctx context.Context, key string) error {
	pv, err := c.volumeLister.Get(key)
	if apierrors.IsNotFound(err) {
		c.volumeDecisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get volume %s from cache: %w", key, err)
	}
	return c.syncVolume(ctx, pv)
}
