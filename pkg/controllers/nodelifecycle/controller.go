// Package nodelifecycle is the node lifecycle controller: it notices that
// a node's kubelet has stopped heartbeating and says so on the node, as
// upstream's node-lifecycle-controller in kube-controller-manager does.
//
// A kubelet proves it is alive by renewing its Lease in kube-node-lease
// every 10 s (and by rewriting its Node's status when that changes). When
// neither has moved for the grace period (--node-monitor-grace-period,
// 50 s) the controller:
//
//   - sets the node's Ready, MemoryPressure, DiskPressure and PIDPressure
//     conditions to Unknown ("NodeStatusUnknown", "Kubelet stopped posting
//     node status."), so `kubectl get nodes` shows NotReady;
//   - taints the node node.kubernetes.io/unreachable with NoSchedule (no
//     new pods) and NoExecute (the taint-eviction controller deletes the
//     pods that do not tolerate it, after their tolerationSeconds: 300 s
//     for a pod that did not ask, see the apiserver's default tolerations);
//   - sets the Ready condition of the node's pods to False, so Services stop
//     routing to them, and records NodeNotReady events on the node and pods.
//
// When the kubelet comes back it posts Ready=True itself, and the
// controller removes the taints. The same taint rules cover a kubelet that
// reports Ready=False (node.kubernetes.io/not-ready), pressure conditions
// and cordoned nodes (NoSchedule taints only). Nodes that register without
// a pod range get one, 10.244.N.0/24. See docs/controllers/nodelifecycle.md.
package nodelifecycle

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's name: its --controllers name (upstream's), its
// workqueue's name and its "controller" log attribute.
const Name = "nodelifecycle"

// EventSource is the source.component of the controller's Events, as
// `kubectl get events` shows it (upstream's, shared with node IPAM).
const EventSource = "node-controller"

// Upstream defaults (kube-controller-manager flags).
const (
	// DefaultNodeMonitorGracePeriod is --node-monitor-grace-period: 50 s
	// since Kubernetes 1.32 (40 s before). It must be several times the
	// kubelet's Lease renew interval (10 s), so that one slow renewal
	// does not make a node NotReady.
	DefaultNodeMonitorGracePeriod = 50 * time.Second
	// DefaultNodeStartupGracePeriod is --node-startup-grace-period: how
	// long a node whose kubelet never posted a Ready condition may take
	// before it is marked Unknown, counted from its creation.
	DefaultNodeStartupGracePeriod = time.Minute
	// DefaultNodeMonitorPeriod is --node-monitor-period: how often every
	// node is checked, whether or not anything about it changed. A silent
	// node is noticed between the grace period and the grace period plus
	// this.
	DefaultNodeMonitorPeriod = 5 * time.Second
)

// DefaultWorkers is how many nodes are synced at once (upstream's
// nodeUpdateWorkerSize, 8).
const DefaultWorkers = 8

// Options configure the controller. Zero values take the defaults above.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock is the controller's time: heartbeat probes, the monitor
	// period, the workqueue's back-off. nil is the wall clock.
	Clock clock.Clock
	// NodeMonitorGracePeriod, NodeStartupGracePeriod and NodeMonitorPeriod
	// are upstream's flags of the same names.
	NodeMonitorGracePeriod time.Duration
	NodeStartupGracePeriod time.Duration
	NodeMonitorPeriod      time.Duration
	// ClusterCIDR and NodeCIDRMaskSize say which ranges nodes without a
	// podCIDR get (zero: DefaultClusterCIDR, DefaultNodeCIDRMaskSize).
	ClusterCIDR      netip.Prefix
	NodeCIDRMaskSize int
}

// Controller watches node heartbeats and keeps each node's conditions,
// taints and pod range in line with them. Build it with New, run it with
// Run.
type Controller struct {
	client   *client.Client
	recorder events.EventRecorder
	log      *slog.Logger
	clock    clock.Clock
	// decisions records what each sync decides about a node (decision.go).
	decisions *controllerutil.DecisionLog

	gracePeriod        time.Duration
	startupGracePeriod time.Duration
	monitorPeriod      time.Duration

	nodes  *informer.Lister[*api.Node]
	leases *informer.Lister[*api.Lease]
	// pods is read by node, through the shared pod informer's
	// NodeNameIndex.
	pods   *informer.Lister[*api.Pod]
	synced []func() bool

	health *healthTracker
	cidrs  *cidrAllocator

	// queue holds node names. Handlers add a node when it or its Lease
	// changes; the monitor loop adds every node each monitor period, which
	// is how a node whose heartbeats stopped — so nothing about it changes
	// — gets looked at again.
	queue *workqueue.Queue[string]
}

// New builds the controller and registers its handlers on the node, lease
// and pod informers of informers; the caller starts the factory.
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	clusterCIDR, maskSize := opts.ClusterCIDR, opts.NodeCIDRMaskSize
	if !clusterCIDR.IsValid() {
		clusterCIDR = DefaultClusterCIDR
	}
	if maskSize == 0 {
		maskSize = DefaultNodeCIDRMaskSize
	}
	cidrs, err := newCIDRAllocator(clusterCIDR, maskSize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	ctrl := &Controller{
		client:             c,
		recorder:           recorder,
		log:                logger.With("controller", Name),
		clock:              clk,
		decisions:          controllerutil.NewDecisionLog(informers.Journal(), Name, "nodes"),
		gracePeriod:        orDefault(opts.NodeMonitorGracePeriod, DefaultNodeMonitorGracePeriod),
		startupGracePeriod: orDefault(opts.NodeStartupGracePeriod, DefaultNodeStartupGracePeriod),
		monitorPeriod:      orDefault(opts.NodeMonitorPeriod, DefaultNodeMonitorPeriod),
		health:             newHealthTracker(),
		cidrs:              cidrs,
		queue:              controllerutil.NewQueue(Name, clk, informers),
	}

	pods := informers.Pods()
	if err := informer.IndexPodsByNode(pods.Informer()); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	ctrl.nodes = informers.Nodes().Lister()
	ctrl.leases = informers.Leases().Lister()
	ctrl.pods = pods.Lister()
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.Nodes().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    func(obj api.Object) { ctrl.queue.Add(obj.GetObjectMeta().Name) },
			UpdateFunc: func(_, obj api.Object) { ctrl.queue.Add(obj.GetObjectMeta().Name) },
			DeleteFunc: ctrl.nodeDeleted,
		}},
		controllerutil.Handlers{Informer: informers.Leases().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.leaseChanged,
			UpdateFunc: func(_, obj api.Object) { ctrl.leaseChanged(obj) },
		}},
		controllerutil.Handlers{Informer: pods.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    func(obj api.Object) { ctrl.podBound(nil, obj) },
			UpdateFunc: ctrl.podBound,
		}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the caches, then syncs nodes with workers goroutines and
// re-checks every node each monitor period, until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	c.log.Info("starting controller", "workers", workers, "gracePeriod", c.gracePeriod, "monitorPeriod", c.monitorPeriod)
	var wg sync.WaitGroup
	wg.Go(func() { c.monitor(ctx) })
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
	wg.Wait()
}

// monitor enqueues every node each monitor period (upstream's
// monitorNodeHealth loop, which runs every --node-monitor-period).
func (c *Controller) monitor(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.clock.After(c.monitorPeriod):
		}
		nodes, err := c.nodes.List(labels.Everything())
		if err != nil {
			c.log.Error("list nodes from cache", "err", err)
			continue
		}
		for _, node := range nodes {
			c.queue.Add(node.Name)
		}
	}
}

// orDefault is d, or def when d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
