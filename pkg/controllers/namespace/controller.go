// Package namespace is the namespace controller: when a namespace is
// deleted, it empties it and then lets it go.
//
// Deleting a namespace does not remove it. The apiserver marks it
// (metadata.deletionTimestamp, status.phase Terminating) and keeps it
// because spec.finalizers still holds "kubernetes"; from then on
// admission refuses new objects in it. This controller sees the marked
// namespace, deletes every namespaced object in it resource by resource,
// waits while graceful pod deletions finish, and finally removes the
// "kubernetes" finalizer through the finalize subresource, at which point
// the apiserver deletes the namespace. While it works it keeps the status
// conditions (NamespaceContentRemaining, …) that `kubectl describe ns`
// shows up to date.
//
// It reproduces upstream's pkg/controller/namespace (namespace_controller.go
// and deletion/namespaced_resources_deleter.go). See
// docs/controllers/namespace.md for the walkthrough.
package namespace

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
	"kplane/pkg/restmapper"
)

// Name is the controller's name as --controllers spells it; its workqueue,
// its logs and its metrics carry it too.
const Name = "namespace"

// DefaultDeletionGracePeriod is how long the controller waits after seeing
// a namespace marked for deletion before it starts emptying it (upstream's
// namespaceDeletionGracePeriod, 5 s). The pause lets every apiserver's
// admission notice the deletion and refuse new content, and lets a create
// that was admitted just before the deletion reach etcd, so that the
// controller's sweep finds it instead of leaving it behind.
const DefaultDeletionGracePeriod = 5 * time.Second

// DefaultMaxRecheckDelay caps the wait before a namespace whose content is
// still going away is looked at again (see recheckDelay).
const DefaultMaxRecheckDelay = 2 * time.Second

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil means slog.Default().
	Logger *slog.Logger
	// Clock drives the queue's delays and the deletion estimates; nil means
	// clock.Real{}.
	Clock clock.Clock
	// DeletionGracePeriod delays the first sync of a namespace marked for
	// deletion: 0 means DefaultDeletionGracePeriod, a negative value no delay
	// (tests).
	DeletionGracePeriod time.Duration
	// MaxRecheckDelay caps the wait between passes while content remains:
	// 0 means DefaultMaxRecheckDelay, a negative value no cap (upstream's
	// plain estimate/2 + 1 s).
	MaxRecheckDelay time.Duration
	// Discover lists the resources the apiserver serves, read at every
	// pass over a namespace's content so that custom resources are
	// emptied too (nil → the apiserver's discovery documents through the
	// client).
	Discover func(ctx context.Context) ([]restmapper.APIResource, error)
}

// Controller empties and finalizes namespaces marked for deletion.
type Controller struct {
	client   *client.Client
	recorder events.EventRecorder
	log      *slog.Logger
	// decisions records each content pass (decision.go).
	decisions *controllerutil.DecisionLog
	clock     clock.Clock

	// namespaceLister reads namespaces from the shared informer's cache.
	namespaceLister *informer.Lister[*api.Namespace]
	// cachesSynced are the handler registrations' HasSynced: true once the
	// handler has seen every namespace of the initial list.
	cachesSynced []func() bool

	// queue holds namespace names. A name is queued only while the
	// namespace is marked for deletion.
	queue *workqueue.Queue[string]

	// discover lists the served resources (Options.Discover).
	discover func(ctx context.Context) ([]restmapper.APIResource, error)

	deletionGracePeriod time.Duration
	maxRecheckDelay     time.Duration
}

// New creates the controller and registers its handler on the namespace
// informer of informers; namespaces and their content are read and
// deleted through kubeClient. recorder is kept for symmetry with the other
// controllers; upstream's namespace controller records no events.
func New(kubeClient *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	c := &Controller{
		client:              kubeClient,
		recorder:            recorder,
		log:                 opts.Logger.With("controller", Name),
		decisions:           controllerutil.NewDecisionLog(informers.Journal(), Name, "namespaces"),
		clock:               opts.Clock,
		namespaceLister:     informers.Namespaces().Lister(),
		discover:            opts.Discover,
		deletionGracePeriod: opts.DeletionGracePeriod,
		maxRecheckDelay:     opts.MaxRecheckDelay,
	}
	if c.discover == nil {
		c.discover = func(ctx context.Context) ([]restmapper.APIResource, error) {
			m, err := restmapper.Discover(ctx, kubeClient)
			if err != nil {
				return nil, err
			}
			return m.Resources(), nil
		}
	}
	switch {
	case c.deletionGracePeriod == 0:
		c.deletionGracePeriod = DefaultDeletionGracePeriod
	case c.deletionGracePeriod < 0:
		c.deletionGracePeriod = 0
	}
	switch {
	case c.maxRecheckDelay == 0:
		c.maxRecheckDelay = DefaultMaxRecheckDelay
	case c.maxRecheckDelay < 0:
		c.maxRecheckDelay = 0
	}
	c.queue = controllerutil.NewQueue(Name, opts.Clock, informers)

	// No delete handler: a namespace that is gone has nothing left to
	// empty, and a sync of its name finds it gone anyway.
	synced, err := controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.Namespaces().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    c.addNamespace,
			UpdateFunc: c.updateNamespace,
		}},
	)
	if err != nil {
		return nil, err
	}
	c.cachesSynced = synced
	return c, nil
}

// addNamespace enqueues a namespace that is already marked for deletion
// (one deleted while no controller-manager ran, say).
func (c *Controller) addNamespace(obj api.Object) { c.enqueue(obj) }

// updateNamespace enqueues a namespace marked for deletion; every change to
// it (the phase, the conditions this controller writes) brings it back.
func (c *Controller) updateNamespace(_, newObj api.Object) { c.enqueue(newObj) }

// enqueue queues a namespace marked for deletion after the deletion grace
// period. Namespaces that are not being deleted are none of its business.
func (c *Controller) enqueue(obj api.Object) {
	ns, ok := obj.(*api.Namespace)
	if !ok || ns.DeletionTimestamp == nil {
		return
	}
	c.queue.AddAfter(ns.Name, c.deletionGracePeriod)
}

// Run waits for the namespace cache, then runs workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("starting controller", "workers", workers)
	defer c.log.Info("stopped controller")
	if !informer.WaitForCacheSync(ctx, c.cachesSynced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// sync takes one step toward removing the namespace named key: make sure it
// says Terminating, delete its content, and once nothing is left, remove
// the "kubernetes" finalizer. While content remains it requeues the name
// itself, after a delay estimated from the remaining pods' grace periods.
func (c *Controller) sync(ctx context.Context, key string) error {
	start := c.clock.Now()
	defer func() { c.log.Debug("finished syncing namespace", "namespace", key, "duration", c.clock.Since(start)) }()

	cached, err := c.namespaceLister.Get(key)
	if apierrors.IsNotFound(err) {
		c.decisions.Forget(key)
		return nil // gone: nothing left to do
	}
	if err != nil {
		return err
	}
	if cached.DeletionTimestamp == nil {
		return nil
	}

	// Several writers may touch a terminating namespace (the other leader,
	// a user); work from its latest state, not the cache's.
	ns, err := c.client.Namespaces().Get(ctx, key, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ns.DeletionTimestamp == nil {
		return nil
	}
	ns, err = c.retryOnConflict(ctx, ns, c.ensureTerminating)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !slices.Contains(ns.Spec.Finalizers, api.FinalizerKubernetes) {
		return nil // already finalized by us; another finalizer holds it
	}

	estimate, ns, err := c.deleteContent(ctx, ns)
	if err != nil {
		return err
	}
	if estimate > 0 {
		// Not an error: content is on its way out (pods stopping,
		// finalizers running). Look again later, without back-off.
		delay := recheckDelay(estimate, c.maxRecheckDelay)
		c.log.Info("content remaining in namespace", "namespace", key, "estimateSeconds", estimate, "recheckAfter", delay)
		c.queue.AddAfter(key, delay)
		return nil
	}

	if _, err := c.retryOnConflict(ctx, ns, c.finalize); err != nil {
		return err
	}
	c.log.Info("namespace emptied and finalized", "namespace", key)
	return nil
}

// now is the current time as an API timestamp (whole seconds, UTC).
func (c *Controller) now() api.Time {
	return api.NewTime(c.clock.Now().UTC().Truncate(time.Second))
}
