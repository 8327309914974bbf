// Package cloudnodelifecycle is the cloud node lifecycle controller of the
// cloud-controller-manager (upstream's "cloud-node-lifecycle-controller",
// k8s.io/cloud-provider controllers/nodelifecycle/node_lifecycle_controller.go):
// it asks the cloud about the machines of nodes that stopped being Ready.
//
// A node whose kubelet went silent is marked Ready=Unknown by the
// controller-manager's node-lifecycle controller; only the cloud can say
// why. Every monitor period (5 s) this controller looks at each node:
//
//	Ready=True                       → remove the shutdown taint, if any
//	not Ready, machine gone          → Event DeletingNode, delete the Node
//	not Ready, machine shut down     → taint node.cloudprovider.kubernetes.io/shutdown:NoSchedule
//
// A deleted Node takes its pods with it (the garbage collector and the
// pods' controllers do the rest); a shut-down one keeps them, because the
// machine may come back. With the simulated cloud, `ctl cloud instance
// shutdown|delete <node>` is what makes a machine so (docs/cloud-controller-manager.md).
package cloudnodelifecycle

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/cloudprovider"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's --controllers name, upstream's.
const Name = "cloud-node-lifecycle"

// EventSource is the source.component of its Events, upstream's.
const EventSource = "cloud-node-lifecycle-controller"

// DefaultMonitorPeriod is how often every node is looked at: upstream's
// --node-monitor-period default, 5 s.
const DefaultMonitorPeriod = 5 * time.Second

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock drives the monitor period and the back-off; nil is the wall
	// clock.
	Clock clock.Clock
	// MonitorPeriod is how often every node is synced; 0 is
	// DefaultMonitorPeriod.
	MonitorPeriod time.Duration
}

// Controller deletes the nodes whose machines are gone and taints those
// whose machines are shut down. Build it with New, run it with Run.
type Controller struct {
	client        *client.Client
	log           *slog.Logger
	recorder      events.EventRecorder
	decisions     *controllerutil.DecisionLog
	instances     cloudprovider.InstancesV2
	clock         clock.Clock
	monitorPeriod time.Duration

	nodes  *informer.Lister[*api.Node]
	synced []func() bool
	// queue holds node names.
	queue *workqueue.Queue[string]
}

// New builds the controller over cloud's machines and registers its
// handlers on the node informer of informers.
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, cloud cloudprovider.Interface, opts Options) (*Controller, error) {
	instances, ok := cloud.InstancesV2()
	if !ok {
		return nil, fmt.Errorf("the %s cloud does not list its machines (InstancesV2)", cloud.ProviderName())
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	period := opts.MonitorPeriod
	if period <= 0 {
		period = DefaultMonitorPeriod
	}
	ctrl := &Controller{
		client:        c,
		log:           logger.With("controller", Name),
		recorder:      recorder,
		decisions:     controllerutil.NewDecisionLog(informers.Journal(), Name, "nodes"),
		instances:     instances,
		clock:         clk,
		monitorPeriod: period,
		nodes:         informers.Nodes().Lister(),
		queue:         controllerutil.NewQueue(Name, clk, informers),
	}
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.Nodes().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			// A change of readiness is worth a look at once; the monitor
			// loop catches what the cloud changed on its own.
			UpdateFunc: func(oldObj, newObj api.Object) {
				if controllerutil.NodeReadyStatus(oldObj.(*api.Node)) != controllerutil.NodeReadyStatus(newObj.(*api.Node)) {
					ctrl.queue.Add(newObj.GetObjectMeta().Name)
				}
			},
		}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the node cache, then syncs every node each monitor period
// with workers goroutines, until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { c.monitor(ctx) })
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
	wg.Wait()
}

// monitor enqueues every node each monitor period: the cloud's state
// changes without any event in the cluster.
func (c *Controller) monitor(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.clock.After(c.monitorPeriod):
		}
		nodes, err := c.nodes.List(nil)
		if err != nil {
			c.log.Error("list nodes from cache", "err", err)
			continue
		}
		for _, node := range nodes {
			c.queue.Add(node.Name)
		}
	}
}

// sync applies upstream's MonitorNodes to the node named key.
func (c *Controller) sync(ctx context.Context, key string) error {
	node, err := c.nodes.Get(key)
	if apierrors.IsNotFound(err) {
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get node %s from cache: %w", key, err)
	}
	ready := controllerutil.NodeReadyStatus(node)
	if ready == api.ConditionTrue {
		if hasShutdownTaint(node) {
			c.recordTaint(node, ready, false)
			return c.updateTaints(ctx, node, withoutShutdownTaint(node.Spec.Taints))
		}
		return nil
	}
	if ready == "" {
		return nil // no status yet: a node still registering
	}
	exists, err := c.instances.InstanceExists(ctx, node)
	if err != nil {
		return fmt.Errorf("node %s: ask the cloud whether its machine exists: %w", key, err)
	}
	if !exists {
		return c.deleteNode(ctx, node, ready)
	}
	shutdown, err := c.instances.InstanceShutdown(ctx, node)
	if err != nil {
		return fmt.Errorf("node %s: ask the cloud whether its machine is shut down: %w", key, err)
	}
	if shutdown && !hasShutdownTaint(node) {
		c.recordTaint(node, ready, true)
		taints := append(slices.Clone(node.Spec.Taints), shutdownTaint(c.clock.Now()))
		return c.updateTaints(ctx, node, taints)
	}
	return nil
}

// deleteNode deletes a node whose machine is gone, with upstream's Event.
// NotFound is success: someone deleted it first.
func (c *Controller) deleteNode(ctx context.Context, node *api.Node, ready api.ConditionStatus) error {
	c.recordDelete(node, ready)
	c.recorder.Eventf(node, api.EventTypeNormal, "DeletingNode", "Deleting node %s because it does not exist in the cloud provider", node.Name)
	err := c.client.Nodes().Delete(ctx, node.Name, client.DeleteOptions{Preconditions: &api.Preconditions{UID: &node.UID}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete node %s: %w", node.Name, err)
	}
	c.log.Info("deleted node: its machine no longer exists in the cloud", "node", node.Name)
	return nil
}

// updateTaints writes node with taints; a conflict retries with the fresh
// node.
func (c *Controller) updateTaints(ctx context.Context, node *api.Node, taints []api.Taint) error {
	updated := api.DeepCopy(node)
	updated.Spec.Taints = taints
	if _, err := c.client.Nodes().Update(ctx, updated, client.UpdateOptions{}); err != nil {
		return fmt.Errorf("update taints of node %s: %w", node.Name, err)
	}
	return nil
}

// shutdownTaint is the taint of a node whose machine is shut down.
func shutdownTaint(now time.Time) api.Taint {
	added := api.NewTime(now.UTC().Truncate(time.Second))
	return api.Taint{Key: cloudprovider.TaintNodeShutdown, Effect: api.TaintEffectNoSchedule, TimeAdded: &added}
}

func hasShutdownTaint(node *api.Node) bool {
	return slices.ContainsFunc(node.Spec.Taints, func(t api.Taint) bool { return t.Key == cloudprovider.TaintNodeShutdown })
}

func withoutShutdownTaint(taints []api.Taint) []api.Taint {
	return slices.DeleteFunc(slices.Clone(taints), func(t api.Taint) bool { return t.Key == cloudprovider.TaintNodeShutdown })
}
