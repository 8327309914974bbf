package main

// The Website controller, in the shape of kubernetes/sample-controller:
// NewController wires informers to event handlers that only enqueue keys;
// Run waits for the caches and starts workers; sync(key) compares what a
// Website asks for with what exists and makes one step toward it.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"time"

	websitev1alpha1 "kplane/examples/controller/api"
	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// controllerName names the controller's workqueue, its log lines and (with
// "-controller") the source of its Events.
const controllerName = "website"

// The reasons of the Events the controller records about a Website.
const (
	// ReasonCreated: the controller created the Website's Deployment or
	// Service.
	ReasonCreated = "Created"
	// ReasonUpdated: it put the Deployment or the Service back to what the
	// Website asks for (the spec changed, or someone edited them).
	ReasonUpdated = "Updated"
	// ReasonResourceExists: an object of the Website's name exists that the
	// Website does not own; the controller leaves it alone.
	ReasonResourceExists = "ErrResourceExists"
	// ReasonSyncFailed: a write failed; the sync is retried with back-off.
	ReasonSyncFailed = "SyncFailed"
)

// Options configure the controller.
type Options struct {
	Logger *slog.Logger // nil → slog.Default()
	Clock  clock.Clock  // nil → clock.Real{}; tests pass a fake one
}

// Controller makes every Website's Deployment and Service exist and match
// its spec, and reports in the Website's status how many replicas are
// ready.
//
// The flow of a change: an informer event — a Website created or edited,
// or a change to a Deployment or Service a Website owns — computes the
// Website's key ("namespace/name") and adds it to the workqueue; a worker
// takes the key and calls sync, which reads everything from the listers
// (the informers' caches, never the network) and writes only what
// differs.
type Controller struct {
	// websites writes Websites' status; reads go through websiteLister.
	websites      *client.TypedClient[*websitev1alpha1.Website]
	deployments   func(namespace string) *client.TypedClient[*api.Deployment]
	services      func(namespace string) *client.TypedClient[*api.Service]
	websiteLister *informer.Lister[*websitev1alpha1.Website]
	// deploymentLister and serviceLister see the objects the controller
	// created, and everyone else's too: sync checks the ownerReference
	// before it touches one.
	deploymentLister *informer.Lister[*api.Deployment]
	serviceLister    *informer.Lister[*api.Service]

	// queue holds the keys of Websites to sync. It is rate limited: a key
	// whose sync failed comes back after 5 ms, 10 ms, 20 ms, … up to
	// 1000 s, so a Website that cannot be reconciled does not hot-loop.
	queue    *workqueue.Queue[string]
	recorder events.EventRecorder
	// decisions records what each sync decided into the process's debug
	// journal, where `ctl why website/NAME` reads it (decision.go); nil
	// when the controller runs without one (--debug-data-dir unset).
	decisions *controllerutil.DecisionLog
	clock     clock.Clock
	log       *slog.Logger
	// cachesSynced are the handlers' HasSynced: Run waits for them before
	// the first sync reads a lister.
	cachesSynced []func() bool
}

// NewController builds the controller on informers (it asks the factory
// for the Website, Deployment and Service informers and adds its event
// handlers to them), writing through c and recording Events with recorder.
// It starts nothing: the caller starts the factory once every controller
// has asked for its informers, then calls Run.
func NewController(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	// The Website informer is typed by our own Go type: the factory lists
	// and watches /apis/examples.kplane.dev/v1alpha1/websites and decodes
	// each object into a *Website.
	websiteInformer := informer.ForResource[*websitev1alpha1.Website](informers, websitev1alpha1.WebsitesResource)
	deploymentInformer := informers.Deployments()
	serviceInformer := informers.Services()

	ctrl := &Controller{
		websites:         client.For[*websitev1alpha1.Website](c, websitev1alpha1.WebsitesResource),
		deployments:      c.Deployments,
		services:         c.Services,
		websiteLister:    websiteInformer.Lister(),
		deploymentLister: deploymentInformer.Lister(),
		serviceLister:    serviceInformer.Lister(),
		queue:            controllerutil.NewQueue(controllerName, opts.Clock, informers),
		recorder:         recorder,
		decisions:        controllerutil.NewDecisionLog(informers.Journal(), controllerName, websitesGroupResource),
		clock:            opts.Clock,
		log:              opts.Logger.With("controller", controllerName),
	}
	var err error
	ctrl.cachesSynced, err = controllerutil.AddEventHandlers(controllerName,
		controllerutil.Handlers{Informer: websiteInformer.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    func(obj api.Object) { ctrl.enqueueWebsite(obj) },
			UpdateFunc: func(_, newObj api.Object) { ctrl.enqueueWebsite(newObj) },
			DeleteFunc: ctrl.enqueueWebsite,
		}},
		// A change to a Deployment or a Service is a change to its owner:
		// a Deployment's ready count moved, or someone edited a Service.
		controllerutil.Handlers{Informer: deploymentInformer.Informer(), Handler: ctrl.ownedObjectHandler()},
		controllerutil.Handlers{Informer: serviceInformer.Informer(), Handler: ctrl.ownedObjectHandler()},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the informers' caches to fill, then runs workers workers
// until ctx ends, and returns once they have finished the keys they hold.
// Each worker loops over controllerutil.ProcessNext — sample-controller's
// processNextWorkItem, written once for all of kplane's controllers: take a
// key, call sync, Forget the key on success, AddRateLimited it on error,
// Done either way.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("starting controller", "workers", workers)
	defer c.log.Info("stopped controller")
	if !informer.WaitForCacheSync(ctx, c.cachesSynced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// enqueueWebsite adds a Website's key to the queue. For a deletion, obj may
// be a tombstone (informer.DeletedFinalStateUnknown), whose key
// DeletionHandlingMetaNamespaceKeyFunc reads too.
func (c *Controller) enqueueWebsite(obj any) {
	key, err := informer.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		c.log.Error("cannot compute the key of a Website", "err", err)
		return
	}
	c.queue.Add(key)
}

// ownedObjectHandler returns the event handlers of the Deployment and
// Service informers: each event enqueues the Website that controls the
// object, if any.
func (c *Controller) ownedObjectHandler() informer.ResourceEventHandler {
	return informer.ResourceEventHandlerFuncs{
		AddFunc: func(obj api.Object) { c.enqueueOwner(obj) },
		UpdateFunc: func(oldObj, newObj api.Object) {
			// A periodic resync re-delivers unchanged objects; they need no sync.
			if oldObj.GetObjectMeta().ResourceVersion == newObj.GetObjectMeta().ResourceVersion {
				return
			}
			c.enqueueOwner(newObj)
		},
		DeleteFunc: func(obj any) {
			if owned, ok := informer.DeletedObject[api.Object](obj); ok {
				c.enqueueOwner(owned)
			}
		},
	}
}

// enqueueOwner adds the key of the Website that controls obj, found by
// obj's controller ownerReference. Objects without one, or controlled by
// something else, or by a Website that no longer exists (same name, other
// UID), are ignored.
func (c *Controller) enqueueOwner(obj api.Object) {
	meta := obj.GetObjectMeta()
	ref := controllerutil.GetControllerOf(meta)
	if ref == nil || ref.Kind != websitev1alpha1.Kind || ref.APIVersion != websitev1alpha1.APIVersion {
		return
	}
	website, err := c.websiteLister.Namespace(meta.Namespace).Get(ref.Name)
	if err != nil || website.UID != ref.UID {
		return
	}
	c.queue.Add(meta.Namespace + "/" + ref.Name)
}

// sync reconciles the Website under key: it makes its Deployment and its
// Service exist and match its spec, then writes its status. It returns an
// error to be retried with back-off. It is idempotent: with nothing
// changed, a second sync writes nothing.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(err) // a malformed key never becomes valid
	}

	// 1. The Website, from the cache. Gone means deleted: its Deployment
	//    and Service carry its ownerReference, so the garbage collector
	//    deletes them; there is nothing left for us to do.
	cached, err := c.websiteLister.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.log.Debug("website has been deleted", "key", key)
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get website %s from the cache: %w", key, err)
	}
	if cached.DeletionTimestamp != nil {
		// Being deleted in the foreground: the garbage collector is
		// deleting its objects, and recreating them would keep it waiting.
		c.log.Debug("website is being deleted", "key", key)
		return nil
	}
	// Objects from the cache are shared with every other reader: copy
	// before changing anything.
	website := api.DeepCopy(cached)
	website.TypeMeta = api.TypeMeta{APIVersion: websitev1alpha1.APIVersion, Kind: websitev1alpha1.Kind}

	// 2. and 3. The Deployment and the Service, created or put back.
	deployment, deploymentStep, syncErr := c.syncDeployment(ctx, website)
	serviceStep := ""
	if syncErr == nil {
		serviceStep, syncErr = c.syncService(ctx, website)
	}
	if syncErr != nil {
		reason := ReasonSyncFailed
		if errors.As(syncErr, new(*notOwnedError)) {
			reason = ReasonResourceExists
		}
		c.recorder.Event(website, api.EventTypeWarning, reason, syncErr.Error())
	}

	// 4. The status, through /status, only if it changed.
	now := api.NewTime(c.clock.Now().UTC().Truncate(time.Second))
	status := computeStatus(website, deployment, syncErr, now)
	c.decisions.Record(&website.ObjectMeta, syncDecision(website, deploymentStep, serviceStep, status))
	if !reflect.DeepEqual(status, website.Status) {
		website.Status = status
		if _, err := c.websites.Namespace(namespace).UpdateStatus(ctx, website, client.UpdateOptions{}); err != nil {
			return fmt.Errorf("update status of website %s: %w (after: %v)", key, err, syncErr)
		}
	}
	return syncErr
}

// syncDeployment creates the Website's Deployment if the cache has none,
// or updates it if it differs from the spec, and returns the Deployment as
// it now is (nil if it could not be created) and, for the decision record,
// the step it took ("created", "updated: replicas 2 → 3", "in sync"; ""
// when it failed).
func (c *Controller) syncDeployment(ctx context.Context, website *websitev1alpha1.Website) (*api.Deployment, string, error) {
	deployment, err := c.deploymentLister.Namespace(website.Namespace).Get(website.Name)
	if apierrors.IsNotFound(err) {
		created, err := c.deployments(website.Namespace).Create(ctx, newDeployment(website), client.CreateOptions{})
		if err != nil {
			return nil, "", fmt.Errorf("create deployment %s: %w", website.Name, err)
		}
		c.recorder.Eventf(website, api.EventTypeNormal, ReasonCreated, "Created Deployment %s", created.Name)
		return created, stepCreated, nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("get deployment %s from the cache: %w", website.Name, err)
	}
	if !controllerutil.IsControlledBy(&deployment.ObjectMeta, website.UID) {
		return nil, "", &notOwnedError{kind: "Deployment", name: deployment.Name, website: website.Name}
	}
	drift := deploymentDrift(deployment, website)
	if len(drift) == 0 {
		return deployment, stepInSync, nil
	}
	updated, err := c.deployments(website.Namespace).Update(ctx, updateDeployment(deployment, website), client.UpdateOptions{})
	if err != nil {
		return deployment, "", fmt.Errorf("update deployment %s: %w", deployment.Name, err)
	}
	c.recorder.Eventf(website, api.EventTypeNormal, ReasonUpdated, "Updated Deployment %s: %s", updated.Name, strings.Join(drift, ", "))
	return updated, stepUpdated(drift), nil
}

// syncService creates the Website's Service if the cache has none, or puts
// back its selector and port if they differ from the spec, and returns the
// step it took, as syncDeployment does.
func (c *Controller) syncService(ctx context.Context, website *websitev1alpha1.Website) (string, error) {
	service, err := c.serviceLister.Namespace(website.Namespace).Get(website.Name)
	if apierrors.IsNotFound(err) {
		created, err := c.services(website.Namespace).Create(ctx, newService(website), client.CreateOptions{})
		if err != nil {
			return "", fmt.Errorf("create service %s: %w", website.Name, err)
		}
		c.recorder.Eventf(website, api.EventTypeNormal, ReasonCreated, "Created Service %s", created.Name)
		return stepCreated, nil
	}
	if err != nil {
		return "", fmt.Errorf("get service %s from the cache: %w", website.Name, err)
	}
	if !controllerutil.IsControlledBy(&service.ObjectMeta, website.UID) {
		return "", &notOwnedError{kind: "Service", name: service.Name, website: website.Name}
	}
	drift := serviceDrift(service, website)
	if len(drift) == 0 {
		return stepInSync, nil
	}
	if _, err := c.services(website.Namespace).Update(ctx, updateService(service, website), client.UpdateOptions{}); err != nil {
		return "", fmt.Errorf("update service %s: %w", service.Name, err)
	}
	c.recorder.Eventf(website, api.EventTypeNormal, ReasonUpdated, "Updated Service %s: %s", service.Name, strings.Join(drift, ", "))
	return stepUpdated(drift), nil
}

// notOwnedError is the error of a sync that found, under the Website's
// name, a Deployment or Service the Website does not control: someone
// else's object, which the controller must not take over. It is retried
// with back-off, since deleting that object (which enqueues nothing of
// ours) is how a user resolves it.
type notOwnedError struct {
	kind, name, website string
}

// Error says which object is in the way, as sample-controller's
// ErrResourceExists message does.
func (e *notOwnedError) Error() string {
	return fmt.Sprintf("%s %s already exists and is not managed by Website %s", e.kind, e.name, e.website)
}
