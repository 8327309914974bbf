// Package noderoute is the route controller of the cloud-controller-manager
// (upstream's "node-route-controller", k8s.io/cloud-provider
// controllers/route/route_controller.go): it makes the cloud network carry
// pod traffic between nodes by routing each node's pod range (spec.podCIDR)
// to that node.
//
// In a cloud without an overlay network, a packet from a pod on node1 to
// 10.244.2.7 leaves node1 for the cloud's router, which must know that
// 10.244.2.0/24 lives on node2. One reconciliation, every 10 s and whenever
// a node comes, goes or gets a pod range:
//
//	for every node with a podCIDR and no route to it  → create the route
//	for every route in --cluster-cidr that no node's podCIDR explains,
//	or whose machine is gone (a blackhole)            → delete it
//	for every node                                    → NetworkUnavailable=False, reason RouteCreated
//	                                                    (True, NoRouteCreated, if its route failed)
//
// The simulated cloud keeps the table (`ctl cloud routes` prints it);
// kplane's packets do not follow it, since nothing in kplane dials a pod IP.
package noderoute

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

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
const Name = "node-route"

// EventSource is the source.component of its Events, upstream's.
const EventSource = "route_controller"

// DefaultReconcilePeriod is upstream's --route-reconciliation-period, 10 s.
const DefaultReconcilePeriod = 10 * time.Second

// routesKey is the queue's one key: a reconciliation looks at every node
// and route at once.
const routesKey = "routes"

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock drives the reconcile period and the back-off; nil is the wall
	// clock.
	Clock clock.Clock
	// ClusterName is passed to the cloud (upstream's --cluster-name).
	ClusterName string
	// ClusterCIDRs are the ranges pod ranges come from (--cluster-cidr):
	// routes inside them are the controller's to delete. Empty: every
	// route is.
	ClusterCIDRs []netip.Prefix
	// ReconcilePeriod is how often the routes are reconciled even without a
	// node event; 0 is DefaultReconcilePeriod.
	ReconcilePeriod time.Duration
}

// Controller keeps a route for every node's pod range. Build it with New,
// run it with Run.
type Controller struct {
	client       *client.Client
	log          *slog.Logger
	recorder     events.EventRecorder
	decisions    *controllerutil.DecisionLog
	routes       cloudprovider.Routes
	clock        clock.Clock
	clusterName  string
	clusterCIDRs []netip.Prefix
	period       time.Duration

	nodes  *informer.Lister[*api.Node]
	synced []func() bool
	queue  *workqueue.Queue[string]
}

// New builds the controller over cloud's routes and registers its handlers
// on the node informer of informers.
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, cloud cloudprovider.Interface, opts Options) (*Controller, error) {
	routes, ok := cloud.Routes()
	if !ok {
		return nil, fmt.Errorf("the %s cloud has no routes", cloud.ProviderName())
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	period := opts.ReconcilePeriod
	if period <= 0 {
		period = DefaultReconcilePeriod
	}
	clusterName := opts.ClusterName
	if clusterName == "" {
		clusterName = cloudprovider.DefaultClusterName
	}
	ctrl := &Controller{
		client:       c,
		log:          logger.With("controller", Name),
		recorder:     recorder,
		decisions:    controllerutil.NewDecisionLog(informers.Journal(), Name, "nodes"),
		routes:       routes,
		clock:        clk,
		clusterName:  clusterName,
		clusterCIDRs: opts.ClusterCIDRs,
		period:       period,
		nodes:        informers.Nodes().Lister(),
		queue:        controllerutil.NewQueue(Name, clk, informers),
	}
	enqueue := func() { ctrl.queue.Add(routesKey) }
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.Nodes().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc: func(api.Object) { enqueue() },
			UpdateFunc: func(oldObj, newObj api.Object) {
				if oldObj.(*api.Node).Spec.PodCIDR != newObj.(*api.Node).Spec.PodCIDR {
					enqueue()
				}
			},
			DeleteFunc: func(any) { enqueue() },
		}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the node cache, then reconciles on every node event and
// every reconcile period, until ctx ends. One worker is enough: there is
// one key. (workers is accepted for the manager's sake.)
func (c *Controller) Run(ctx context.Context, _ int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c.queue.Add(routesKey)
			select {
			case <-ctx.Done():
				return
			case <-c.clock.After(c.period):
			}
		}
	})
	controllerutil.RunWorkers(ctx, c.queue, 1, c.sync, c.log)
	wg.Wait()
}
