// Package servicelb is the service controller of the cloud-controller-manager
// (upstream's "service-lb-controller", k8s.io/cloud-provider
// controllers/service/controller.go): it gives every Service of type
// LoadBalancer a load balancer in the cloud and publishes its address in
// status.loadBalancer.ingress, which is what `kubectl get svc` shows as
// EXTERNAL-IP.
//
// The story of one Service:
//
//	type: LoadBalancer  ──▶ Event EnsuringLoadBalancer
//	                        add finalizer service.kubernetes.io/load-balancer-cleanup
//	                        cloud.EnsureLoadBalancer(service, nodes)
//	                        Event EnsuredLoadBalancer
//	                        patch status.loadBalancer.ingress [{ip, ipMode: VIP}]
//	deleted, or type changed away from LoadBalancer (the finalizer still on it)
//	                    ──▶ Event DeletingLoadBalancer
//	                        cloud.EnsureLoadBalancerDeleted (the address goes back to the pool)
//	                        remove the finalizer, Event DeletedLoadBalancer, clear the status
//
// The finalizer is why a deleted Service cannot leave a load balancer
// behind: the apiserver keeps the Service (with a deletionTimestamp) until
// this controller has deleted the load balancer and removed it.
//
// A second loop follows the nodes: a load balancer forwards to every Ready
// node (not excluded by label), and when that set changes each load
// balancer is pointed at the new one (Event UpdatedLoadBalancer). A Service
// with spec.loadBalancerClass set asks for another implementation and is
// left alone, as upstream leaves it. See docs/cloud-controller-manager.md.
package servicelb

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/cloudprovider"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's --controllers name, upstream's.
const Name = "service-lb"

// EventSource is the source.component of its Events, upstream's.
const EventSource = "service-controller"

// nodesKey is the one key of the node queue: a change of the node set
// concerns every load balancer at once.
const nodesKey = "nodes"

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock drives the workqueues' back-off; nil is the wall clock.
	Clock clock.Clock
	// ClusterName is passed to the cloud with every call (upstream's
	// --cluster-name, default "kubernetes").
	ClusterName string
}

// Restorer is implemented by a cloud that keeps its load balancers in
// memory only (the simulated cloud): before its workers start the
// controller hands it the cluster's Services, so that each gets its old
// address back.
type Restorer interface {
	RestoreLoadBalancers(services []*api.Service) []error
}

// Controller keeps a cloud load balancer for every Service of type
// LoadBalancer. Build it with New, run it with Run.
type Controller struct {
	client      *client.Client
	log         *slog.Logger
	recorder    events.EventRecorder
	decisions   *controllerutil.DecisionLog
	cloud       cloudprovider.Interface
	balancer    cloudprovider.LoadBalancer
	clusterName string

	services *informer.Lister[*api.Service]
	nodes    *informer.Lister[*api.Node]
	synced   []func() bool

	// queue holds Service keys ("namespace/name"); nodeQueue holds
	// nodesKey whenever a node changed in a way that may change the load
	// balancers' node set.
	queue     *workqueue.Queue[string]
	nodeQueue *workqueue.Queue[string]

	// hostsMu guards knownHosts, the node set every load balancer was last
	// updated to (sorted names); nil before the first node sync.
	hostsMu    sync.Mutex
	knownHosts []string
}

// New builds the controller over cloud's load balancers and registers its
// handlers on the service and node informers of informers.
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, cloud cloudprovider.Interface, opts Options) (*Controller, error) {
	balancer, ok := cloud.LoadBalancer()
	if !ok {
		return nil, fmt.Errorf("the %s cloud has no load balancers", cloud.ProviderName())
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	clusterName := opts.ClusterName
	if clusterName == "" {
		clusterName = cloudprovider.DefaultClusterName
	}
	ctrl := &Controller{
		client:      c,
		log:         logger.With("controller", Name),
		recorder:    recorder,
		decisions:   controllerutil.NewDecisionLog(informers.Journal(), Name, "services"),
		cloud:       cloud,
		balancer:    balancer,
		clusterName: clusterName,
		services:    informers.Services().Lister(),
		nodes:       informers.Nodes().Lister(),
		queue:       controllerutil.NewQueue(Name, opts.Clock, informers),
		nodeQueue:   controllerutil.NewQueue(Name+"-nodes", opts.Clock, informers),
	}
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.Services().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.serviceAdded,
			UpdateFunc: ctrl.serviceUpdated,
			// No delete handler: the finalizer makes a deletion an update
			// (the deletionTimestamp) that the sync sees first.
		}},
		controllerutil.Handlers{Informer: informers.Nodes().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    func(api.Object) { ctrl.nodeQueue.Add(nodesKey) },
			UpdateFunc: ctrl.nodeUpdated,
			DeleteFunc: func(any) { ctrl.nodeQueue.Add(nodesKey) },
		}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// serviceAdded enqueues a Service that wants a load balancer or still holds
// the finalizer (a controller that restarted picks up where it stopped).
func (c *Controller) serviceAdded(obj api.Object) {
	svc := obj.(*api.Service)
	if wantsLoadBalancer(svc) || needsCleanup(svc) {
		c.queue.Add(keyOf(svc))
	}
}

// serviceUpdated enqueues a Service whose change matters to its load
// balancer; its own finalizer and status writes do not, so they wake no
// sync.
func (c *Controller) serviceUpdated(oldObj, newObj api.Object) {
	old, svc := oldObj.(*api.Service), newObj.(*api.Service)
	if needsUpdate(old, svc) || needsCleanup(svc) {
		c.queue.Add(keyOf(svc))
	}
}

// nodeUpdated wakes the node sync when a node's schedulability, labels or
// readiness changed (upstream's shouldSyncNode).
func (c *Controller) nodeUpdated(oldObj, newObj api.Object) {
	if shouldSyncNode(oldObj.(*api.Node), newObj.(*api.Node)) {
		c.nodeQueue.Add(nodesKey)
	}
}

func keyOf(svc *api.Service) string { return svc.Namespace + "/" + svc.Name }

// Run waits for the caches, hands a Restorer cloud the Services, then syncs
// Services with workers goroutines and the node set with one, until ctx
// ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		c.nodeQueue.ShutDown()
		return
	}
	if r, ok := c.cloud.(Restorer); ok {
		services, err := c.services.List(nil)
		if err == nil {
			for _, problem := range r.RestoreLoadBalancers(services) {
				c.log.Warn("could not restore a load balancer; the Service gets a new address", "err", problem)
			}
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { controllerutil.RunWorkers(ctx, c.nodeQueue, 1, c.syncNodes, c.log) })
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
	wg.Wait()
}
