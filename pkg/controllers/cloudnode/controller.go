// Package cloudnode is the cloud node controller of the
// cloud-controller-manager (upstream's "cloud-node-controller",
// k8s.io/cloud-provider controllers/node/node_controller.go): it finishes
// the registration of a node whose kubelet runs with
// --cloud-provider=external.
//
// Such a kubelet does not know which machine it runs on, so it registers
// its node with the taint node.cloudprovider.kubernetes.io/uninitialized
// (NoSchedule), which keeps ordinary pods away. This controller asks the
// cloud about the node's machine and writes what it learns onto the Node:
//
//	spec.providerID                       kplane://node1
//	node.kubernetes.io/instance-type      kplane.small   (and beta.kubernetes.io/instance-type)
//	topology.kubernetes.io/zone           kplane-local-b (and failure-domain.beta.kubernetes.io/zone)
//	topology.kubernetes.io/region         kplane-local   (and failure-domain.beta.kubernetes.io/region)
//	status.addresses                      the machine's addresses
//
// and removes the taint in the same update, so the node becomes
// schedulable the moment it is described. Nodes without the taint are
// only introduced to the cloud (which then lists their machines), as
// upstream leaves initialized nodes alone but for periodic address
// refreshes. See docs/cloud-controller-manager.md.
package cloudnode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"

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
const Name = "cloud-node"

// EventSource is the source.component of its Events, upstream's.
const EventSource = "cloud-node-controller"

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock drives the workqueue's back-off; nil is the wall clock.
	Clock clock.Clock
}

// Controller initializes the nodes of a cloud. Build it with New, run it
// with Run.
type Controller struct {
	client    *client.Client
	log       *slog.Logger
	recorder  events.EventRecorder
	decisions *controllerutil.DecisionLog
	instances cloudprovider.InstancesV2

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
	ctrl := &Controller{
		client:    c,
		log:       logger.With("controller", Name),
		recorder:  recorder,
		decisions: controllerutil.NewDecisionLog(informers.Journal(), Name, "nodes"),
		instances: instances,
		nodes:     informers.Nodes().Lister(),
		queue:     controllerutil.NewQueue(Name, opts.Clock, informers),
	}
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.Nodes().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc: func(obj api.Object) { ctrl.queue.Add(obj.GetObjectMeta().Name) },
			// Only a node still waiting for the cloud: the kubelet's
			// heartbeats update every node every few seconds.
			UpdateFunc: func(_, newObj api.Object) {
				if node := newObj.(*api.Node); uninitialized(node) {
					ctrl.queue.Add(node.Name)
				}
			},
		}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the node cache, then syncs nodes with workers goroutines
// until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// sync initializes the node named key if it still has the uninitialized
// taint: one update of the Node with the cloud's facts and without the
// taint, then its addresses in the status if the cloud's differ.
func (c *Controller) sync(ctx context.Context, key string) error {
	node, err := c.nodes.Get(key)
	if apierrors.IsNotFound(err) {
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get node %s from cache: %w", key, err)
	}
	meta, err := c.instances.InstanceMetadata(ctx, node)
	if errors.Is(err, cloudprovider.ErrInstanceNotFound) {
		// No machine: the cloud-node-lifecycle controller deletes such a
		// node once it stops being Ready; initializing it makes no sense.
		c.log.Info("node has no machine in the cloud; not initializing it", "node", key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("node %s: get instance metadata: %w", key, err)
	}
	if !uninitialized(node) {
		return nil
	}
	initialized := initializedNode(node, meta)
	c.recordInitialize(node, meta)
	updated, err := c.client.Nodes().Update(ctx, initialized, client.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("initialize node %s: %w", key, err) // a conflict retries with the fresh node
	}
	if addresses := meta.NodeAddresses; len(addresses) > 0 && !reflect.DeepEqual(updated.Status.Addresses, addresses) {
		updated.Status.Addresses = addresses
		if _, err := c.client.Nodes().UpdateStatus(ctx, updated, client.UpdateOptions{}); err != nil {
			return fmt.Errorf("node %s: update addresses: %w", key, err)
		}
	}
	c.recorder.Event(node, api.EventTypeNormal, "Synced", "Node synced successfully")
	c.log.Info("initialized node with the cloud's facts", "node", key, "providerID", initialized.Spec.ProviderID, "zone", meta.Zone)
	return nil
}

// uninitialized reports whether node carries the uninitialized taint.
func uninitialized(node *api.Node) bool {
	return slices.ContainsFunc(node.Spec.Taints, isCloudTaint)
}

func isCloudTaint(t api.Taint) bool { return t.Key == cloudprovider.TaintExternalCloudProvider }

// initializedNode is node as the cloud describes it (upstream's
// getNodeModifiersFromCloudProvider): a providerID if it has none, the
// instance type, zone and region labels with their beta twins, and no
// uninitialized taint.
func initializedNode(node *api.Node, meta *cloudprovider.InstanceMetadata) *api.Node {
	out := api.DeepCopy(node)
	if out.Spec.ProviderID == "" {
		out.Spec.ProviderID = meta.ProviderID
	}
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	set := func(value string, keys ...string) {
		if value == "" {
			return
		}
		for _, k := range keys {
			out.Labels[k] = value
		}
	}
	set(meta.InstanceType, cloudprovider.LabelInstanceType, cloudprovider.LabelInstanceTypeBeta)
	set(meta.Zone, api.LabelTopologyZone, cloudprovider.LabelZoneBeta)
	set(meta.Region, api.LabelTopologyRegion, cloudprovider.LabelRegionBeta)
	out.Spec.Taints = slices.DeleteFunc(out.Spec.Taints, isCloudTaint)
	return out
}
