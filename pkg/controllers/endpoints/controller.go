// Package endpoints is the endpoints controller: for every Service with a
// selector it keeps an Endpoints object of the same name listing the pods
// behind the Service — ready ones in addresses, the others in
// notReadyAddresses — with the ports each offers. kube-proxy and DNS read
// those Endpoints; nothing else connects a Service to its pods.
//
// It watches Services, pods and Endpoints. A Service event queues that
// Service; a pod event queues every Service whose selector matches the pod
// before or after the change (controllerutil.ServicePodHandlers, shared with
// the endpointslice controller); the deletion of an Endpoints object queues
// its Service so the object comes back. sync recomputes the whole
// Endpoints from the listers and writes it only when it differs, so a
// resync changes no resourceVersion.
//
// It reproduces upstream's pkg/controller/endpoint. See
// docs/controllers/endpoints.md for the walkthrough.
package endpoints

import (
	"context"
	"fmt"
	"log/slog"
	"maps"

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

// Name is the controller's name: its --controllers name (upstream's,
// singular), its workqueue's name (which labels its metrics) and its
// "controller" log attribute.
const Name = "endpoint"

// leaderElectionAnnotation marks Endpoints that older components used as
// leader-election locks; such Endpoints have no Service and must not be
// cleaned up as leftovers (upstream skips them too).
const leaderElectionAnnotation = "control-plane.alpha.kubernetes.io/leader"

// The reasons of the events the controller records, as upstream's.
const (
	ReasonFailedToCreateEndpoint = "FailedToCreateEndpoint"
	ReasonFailedToUpdateEndpoint = "FailedToUpdateEndpoint"
)

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil means slog.Default().
	Logger *slog.Logger
	// Clock drives the workqueue's back-off; nil means clock.Real{}.
	Clock clock.Clock
}

// Controller keeps each selector-based Service's Endpoints up to date.
type Controller struct {
	client   *client.Client
	recorder events.EventRecorder
	log      *slog.Logger
	clock    clock.Clock
	// decisions records each write a sync decides on (decision.go); nil
	// records nothing.
	decisions *controllerutil.DecisionLog

	serviceLister   *informer.Lister[*api.Service]
	podLister       *informer.Lister[*api.Pod]
	endpointsLister *informer.Lister[*api.Endpoints]
	// cachesSynced are the handler registrations' HasSynced: true once
	// each handler has seen its informer's initial list.
	cachesSynced []func() bool

	// queue holds Service keys ("namespace/name"), never pod keys: a pod
	// event is translated into the Services it concerns.
	queue *workqueue.Queue[string]
}

// New creates the controller and registers its handlers on the Service,
// pod and Endpoints informers of informers.
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	ctrl := &Controller{
		client:          c,
		recorder:        recorder,
		log:             opts.Logger.With("controller", Name),
		clock:           opts.Clock,
		decisions:       controllerutil.NewDecisionLog(informers.Journal(), Name, "services"),
		serviceLister:   informers.Services().Lister(),
		podLister:       informers.Pods().Lister(),
		endpointsLister: informers.Endpoints().Lister(),
		queue:           controllerutil.NewQueue(Name, opts.Clock, informers),
	}

	var err error
	ctrl.cachesSynced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.Services().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.addService,
			UpdateFunc: ctrl.updateService,
			DeleteFunc: ctrl.deleteService,
		}},
		// A pod event queues the Services that select the pod; the
		// endpointslice controller registers the same handlers.
		controllerutil.Handlers{Informer: informers.Pods().Informer(), Handler: controllerutil.ServicePodHandlers(ctrl.serviceLister, ctrl.queue.Add, ctrl.log)},
		controllerutil.Handlers{Informer: informers.Endpoints().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			DeleteFunc: ctrl.deleteEndpoints,
		}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// enqueueKey queues the key of obj: a Service's, or the key of the
// Service an Endpoints object belongs to (they share namespace and name).
// obj may be a delete handler's tombstone: MetaNamespaceKeyFunc reads the
// key it carries, even when the tombstone lost the object's last state,
// so the delete handlers below need not unwrap it (upstream's
// DeletionHandlingMetaNamespaceKeyFunc).
func (c *Controller) enqueueKey(obj any) {
	key, err := informer.MetaNamespaceKeyFunc(obj)
	if err != nil {
		c.log.Error("cannot compute key", "err", err)
		return
	}
	c.queue.Add(key)
}

// addService queues a new Service.
func (c *Controller) addService(obj api.Object) { c.enqueueKey(obj) }

// updateService queues a changed Service (its selector or ports may differ).
func (c *Controller) updateService(_, newObj api.Object) { c.enqueueKey(newObj) }

// deleteService queues a deleted Service, whose sync deletes its Endpoints.
// obj may be a tombstone; only its key is needed.
func (c *Controller) deleteService(obj any) { c.enqueueKey(obj) }

// deleteEndpoints queues the Service of deleted Endpoints, so that Endpoints
// someone deleted by hand are written again (and leftovers stay gone). obj
// may be a tombstone; only its key is needed.
func (c *Controller) deleteEndpoints(obj any) { c.enqueueKey(obj) }

// Run waits for the caches, queues every existing Endpoints once (to find
// leftovers whose Service was deleted while no controller ran), then runs
// workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("starting controller", "workers", workers)
	defer c.log.Info("stopped controller")
	if !informer.WaitForCacheSync(ctx, c.cachesSynced...) {
		c.queue.ShutDown()
		return
	}
	c.queueLeftoverEndpoints()
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// queueLeftoverEndpoints queues the key of every Endpoints object. A sync
// of a key without a Service deletes its Endpoints; in steady state the
// Service's deletion event does that, so this catches only what happened
// while the controller was down (upstream's checkLeftoverEndpoints).
func (c *Controller) queueLeftoverEndpoints() {
	all, err := c.endpointsLister.List(labels.Everything())
	if err != nil {
		c.log.Error("cannot list endpoints; leftovers will not be cleaned up", "err", err)
		return
	}
	for _, ep := range all {
		if _, ok := ep.Annotations[leaderElectionAnnotation]; ok {
			continue
		}
		c.enqueueKey(ep)
	}
}

// sync makes the Endpoints of the Service named key match the pods its
// selector matches now: deleted with the Service, untouched for a Service
// without a selector or of type ExternalName, and otherwise created or
// updated — but only when its subsets or labels differ from what is stored.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(err)
	}
	svc, err := c.serviceLister.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		// The Service is gone; so go its Endpoints. Deleting by name even
		// when the cache shows none covers Endpoints created a moment ago.
		err := c.client.Endpoints(namespace).Delete(ctx, name, client.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete endpoints %s of deleted service: %w", key, err)
		}
		defer c.decisions.Forget(key)
		if err == nil {
			c.recordServiceGone(key)
			c.log.Info("deleted endpoints of a deleted service", "service", key)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if svc.Spec.Type == api.ServiceTypeExternalName || len(svc.Spec.Selector) == 0 {
		// An ExternalName Service is a DNS alias; a Service without a
		// selector gets Endpoints written by hand. Neither is ours.
		return nil
	}

	pods, err := c.podLister.Namespace(namespace).List(labels.SelectorFromSet(svc.Spec.Selector))
	if err != nil {
		return err
	}
	subsets := desiredSubsets(svc, pods)
	wantLabels := desiredLabels(svc)

	current, err := c.endpointsLister.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.recordSubsets(svc, pods, subsets, "create Endpoints")
		return c.createEndpoints(ctx, svc, subsets, wantLabels)
	}
	if err != nil {
		return err
	}
	if subsetsEqual(current.Subsets, subsets) && maps.Equal(current.Labels, wantLabels) {
		return nil // nothing changed: no write, no new resourceVersion
	}
	c.recordSubsets(svc, pods, subsets, "update Endpoints")
	return c.updateEndpoints(ctx, svc, current, subsets, wantLabels)
}

// createEndpoints creates the Service's Endpoints.
func (c *Controller) createEndpoints(ctx context.Context, svc *api.Service, subsets []api.EndpointSubset, labels map[string]string) error {
	ep := &api.Endpoints{
		TypeMeta:   api.TypeMeta{Kind: "Endpoints", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: svc.Name, Namespace: svc.Namespace, Labels: labels},
		Subsets:    subsets,
	}
	_, err := c.client.Endpoints(svc.Namespace).Create(ctx, ep, client.CreateOptions{})
	switch {
	case err == nil:
		ready, notReady := countAddresses(subsets)
		c.log.Info("created endpoints", "service", svc.Namespace+"/"+svc.Name, "ready", ready, "notReady", notReady)
		return nil
	case apierrors.IsAlreadyExists(err):
		// The cache has not seen it yet; the retry will update instead.
		return fmt.Errorf("create endpoints %s/%s: %w", svc.Namespace, svc.Name, err)
	case apierrors.HasStatusCause(err, apierrors.NamespaceTerminatingCause):
		// The namespace refuses new objects while it is deleted: retrying
		// cannot help, and the Service is about to go with it.
		return nil
	default:
		c.recorder.Eventf(ep, api.EventTypeWarning, ReasonFailedToCreateEndpoint,
			"Failed to create endpoint for service %s/%s: %v", svc.Namespace, svc.Name, err)
		return fmt.Errorf("create endpoints %s/%s: %w", svc.Namespace, svc.Name, err)
	}
}

// updateEndpoints replaces the subsets and labels of the Service's current
// Endpoints. The write carries the cached resourceVersion, so a stale
// cache (or another leader's write) gets a Conflict and a retry.
func (c *Controller) updateEndpoints(ctx context.Context, svc *api.Service, current *api.Endpoints, subsets []api.EndpointSubset, labels map[string]string) error {
	ep := api.DeepCopy(current)
	ep.Subsets = subsets
	ep.Labels = labels
	_, err := c.client.Endpoints(svc.Namespace).Update(ctx, ep, client.UpdateOptions{})
	if err != nil {
		if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			// Conflicts and races with a deletion are routine under
			// optimistic concurrency; only real failures are worth an event.
			c.recorder.Eventf(ep, api.EventTypeWarning, ReasonFailedToUpdateEndpoint,
				"Failed to update endpoint %s/%s: %v", svc.Namespace, svc.Name, err)
		}
		return fmt.Errorf("update endpoints %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	ready, notReady := countAddresses(subsets)
	c.log.Info("updated endpoints", "service", svc.Namespace+"/"+svc.Name, "ready", ready, "notReady", notReady)
	return nil
}

// countAddresses counts ready and not-ready addresses, for the logs.
func countAddresses(subsets []api.EndpointSubset) (ready, notReady int) {
	for _, s := range subsets {
		ready += len(s.Addresses)
		notReady += len(s.NotReadyAddresses)
	}
	return ready, notReady
}
