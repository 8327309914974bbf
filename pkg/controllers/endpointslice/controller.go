// Package endpointslice is the endpointslice controller: for every Service
// with a selector it keeps discovery.k8s.io EndpointSlices listing the
// pods behind the Service — one endpoint per pod with an IP, with its
// ready/serving/terminating conditions, its node and the ports it offers —
// at most 100 endpoints per slice. kube-proxy, DNS and `kubectl describe
// service` read these slices.
//
// It watches Services, pods, Nodes (for the zone) and EndpointSlices. A
// Service event queues that Service; a pod event queues the Services that
// select the pod before or after the change (controllerutil.ServicePodHandlers,
// shared with the endpoints controller); a slice event queues its
// Service unless it is the echo of the controller's own write. sync
// recomputes the Service's endpoints from the listers, plans the fewest
// slice writes that make the slices hold them (reconcile.go), and carries
// the plan out. Slices are owned by their Service, so the garbage
// collector deletes them with it.
//
// It reproduces upstream's pkg/controller/endpointslice and the reconciler
// in k8s.io/endpointslice, without topology hints. See
// docs/controllers/endpointslice.md for the walkthrough.
package endpointslice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

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

// Name is the controller's name: its --controllers name (upstream's), its
// workqueue's name (which labels its metrics) and its "controller" log
// attribute.
const Name = "endpointslice"

// DefaultMaxEndpointsPerSlice is how many endpoints the controller puts in
// one slice: upstream's --max-endpoints-per-slice default. Smaller slices
// mean smaller writes when one pod changes, more slices per Service.
const DefaultMaxEndpointsPerSlice = 100

// The reason of the event recorded on a Service whose slices could not be
// written, as upstream's.
const ReasonFailedToUpdateEndpointSlices = "FailedToUpdateEndpointSlices"

// errStaleCache says the slice cache is behind this controller's own
// writes; the sync is retried once the informer catches up.
var errStaleCache = errors.New("EndpointSlice informer cache is out of date")

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil means slog.Default().
	Logger *slog.Logger
	// Clock drives the workqueue's back-off; nil means clock.Real{}.
	Clock clock.Clock
	// MaxEndpointsPerSlice caps the endpoints of one slice; 0 means
	// DefaultMaxEndpointsPerSlice.
	MaxEndpointsPerSlice int
}

// Controller keeps each selector-based Service's EndpointSlices up to date.
type Controller struct {
	client      *client.Client
	recorder    events.EventRecorder
	log         *slog.Logger
	maxPerSlice int
	// decisions records each sync that writes or waits (decision.go); nil
	// records nothing.
	decisions *controllerutil.DecisionLog

	serviceLister *informer.Lister[*api.Service]
	podLister     *informer.Lister[*api.Pod]
	nodeLister    *informer.Lister[*api.Node]
	sliceLister   *informer.Lister[*api.EndpointSlice]
	// cachesSynced are the handler registrations' HasSynced.
	cachesSynced []func() bool

	// tracker holds the generations of the slices this controller wrote.
	tracker *tracker
	// queue holds Service keys ("namespace/name"); pod and slice events
	// are translated into the Services they concern.
	queue *workqueue.Queue[string]
}

// New creates the controller and registers its handlers on the Service,
// pod, Node and EndpointSlice informers of informers.
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.MaxEndpointsPerSlice <= 0 {
		opts.MaxEndpointsPerSlice = DefaultMaxEndpointsPerSlice
	}
	ctrl := &Controller{
		client:        c,
		recorder:      recorder,
		log:           opts.Logger.With("controller", Name),
		maxPerSlice:   opts.MaxEndpointsPerSlice,
		decisions:     controllerutil.NewDecisionLog(informers.Journal(), Name, "services"),
		serviceLister: informers.Services().Lister(),
		podLister:     informers.Pods().Lister(),
		nodeLister:    informers.Nodes().Lister(),
		sliceLister:   informers.EndpointSlices().Lister(),
		tracker:       newTracker(),
		queue:         controllerutil.NewQueue(Name, opts.Clock, informers),
	}

	var err error
	ctrl.cachesSynced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.Services().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.addService,
			UpdateFunc: ctrl.updateService,
			DeleteFunc: ctrl.deleteService,
		}},
		// A pod event queues the Services that select the pod; the
		// endpoints controller registers the same handlers.
		controllerutil.Handlers{Informer: informers.Pods().Informer(), Handler: controllerutil.ServicePodHandlers(ctrl.serviceLister, ctrl.queue.Add, ctrl.log)},
		// Nodes are only read (for the zone); the handler makes the
		// registration's HasSynced available to Run.
		controllerutil.Handlers{Informer: informers.Nodes().Informer(), Handler: informer.ResourceEventHandlerFuncs{}},
		controllerutil.Handlers{Informer: informers.EndpointSlices().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.addSlice,
			UpdateFunc: ctrl.updateSlice,
			DeleteFunc: ctrl.deleteSlice,
		}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the caches, then runs workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("starting controller", "workers", workers, "maxEndpointsPerSlice", c.maxPerSlice)
	defer c.log.Info("stopped controller")
	if !informer.WaitForCacheSync(ctx, c.cachesSynced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// sync makes the EndpointSlices of the Service named key hold the pods its
// selector matches now. A deleted Service is forgotten (the garbage
// collector deletes its slices); a Service without a selector, or of type
// ExternalName, is left alone; otherwise the slices are planned and only
// what differs is written.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(err)
	}
	svc, err := c.serviceLister.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.tracker.forgetService(key)
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return err
	}
	if svc.Spec.Type == api.ServiceTypeExternalName || len(svc.Spec.Selector) == 0 {
		// An ExternalName Service is a DNS alias; a Service without a
		// selector gets its slices written by hand. Neither is ours.
		return nil
	}

	pods, err := c.podLister.Namespace(namespace).List(labels.SelectorFromSet(svc.Spec.Selector))
	if err != nil {
		return err
	}
	current, err := c.sliceLister.Namespace(namespace).List(labels.SelectorFromSet(map[string]string{
		api.LabelServiceName: svc.Name, api.LabelManagedBy: ManagedByValue}))
	if err != nil {
		return err
	}
	current = withoutDeleting(current)
	if c.tracker.stale(key, current) {
		c.recordStale(svc)
		return fmt.Errorf("sync service %s: %w", key, errStaleCache)
	}

	desired := map[api.AddressType]map[string]*endpointGroup{}
	var skipped error // pods left out for now; the sync is retried
	for _, addressType := range addressTypesOf(svc) {
		groups, err := desiredGroups(svc, pods, addressType, c.nodeLister.Get)
		if groups == nil {
			return err // a lister failed: nothing can be planned
		}
		desired[addressType] = groups
		skipped = errors.Join(skipped, err)
	}
	p := planService(svc, desired, current, c.maxPerSlice)
	if p.empty() {
		return skipped // the slices already say it all: no write
	}
	c.recordPlan(svc, pods, desired, current, p)
	if err := c.apply(ctx, svc, p); err != nil {
		if !apierrors.IsConflict(err) {
			c.recorder.Eventf(svc, api.EventTypeWarning, ReasonFailedToUpdateEndpointSlices,
				"Error updating Endpoint Slices for Service %s/%s: %v", svc.Namespace, svc.Name, err)
		}
		return fmt.Errorf("sync service %s: %w", key, err)
	}
	return skipped
}

// withoutDeleting drops slices already marked for deletion: they are on
// their way out, and counting them would keep the Service stuck.
func withoutDeleting(all []*api.EndpointSlice) []*api.EndpointSlice {
	var out []*api.EndpointSlice
	for _, slice := range all {
		if slice.DeletionTimestamp == nil {
			out = append(out, slice)
		}
	}
	return out
}
