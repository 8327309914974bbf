// Package daemonset is the DaemonSet controller: it keeps one pod of each
// DaemonSet on every node that may run it (nodeSelector, required node
// affinity, taints against tolerations), pinned there with a required
// node affinity that the scheduler honours, deletes pods from nodes that no
// longer qualify or are gone, rolls out template changes node by node
// (RollingUpdate within maxUnavailable, or OnDelete), keeps the template
// history as ControllerRevisions, and reports the counts in status.
//
// The flow of a change: an informer event (a DaemonSet, one of its pods, or
// a node changed) enqueues DaemonSet keys — handlers.go; a worker calls
// sync(key) — sync.go — which reads the DaemonSet, the nodes and its pods
// from the listers, keeps the template history — revisions.go —, plans per
// node what to create and delete — nodes.go, rolling.go — acts through
// PodControl and writes status — status.go. Where to start reading: New
// and Run below, then sync. See docs/controllers/daemonset.md.
package daemonset

import (
	"context"
	"log/slog"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's name as --controllers spells it: its
// workqueue's and its logs'.
const Name = "daemonset"

// The ownerReference a DaemonSet puts on its pods and revisions.
const (
	apiVersion = "apps/v1"
	kind       = "DaemonSet"
)

// BurstReplicas caps the pods one sync creates or deletes (upstream's
// burstReplicas, 250): a DaemonSet appearing on a 1000-node cluster gets
// its pods in four syncs, each waiting until the informer has seen the
// previous one's.
const BurstReplicas = 250

// Options configure the controller.
type Options struct {
	Logger *slog.Logger // nil → slog.Default()
	Clock  clock.Clock  // nil → clock.Real{}
	// BurstReplicas caps creates and deletes per sync; 0 means
	// BurstReplicas (250).
	BurstReplicas int
}

// Controller is the DaemonSet controller.
type Controller struct {
	client         *client.Client
	dsLister       *informer.Lister[*api.DaemonSet]
	podLister      *informer.Lister[*api.Pod]
	nodeLister     *informer.Lister[*api.Node]
	revisionLister *informer.Lister[*api.ControllerRevision]
	// podControl creates and deletes pods and records the
	// SuccessfulCreate/SuccessfulDelete events.
	podControl controllerutil.PodControl
	recorder   events.EventRecorder

	// creations and deletions are the pod creates and deletes each
	// DaemonSet waits to see in the cache; a sync acts only when both are
	// satisfied. Two instances, because controllerutil.Expectations holds
	// either creations or deletions per key and a DaemonSet sync often
	// does both (a pod goes from one node while another node gets one).
	creations *controllerutil.Expectations
	deletions *controllerutil.Expectations
	// failedPods spaces out the replacement of Failed pods per node.
	failedPods *failedPodBackoff

	queue *workqueue.Queue[string]
	clock clock.Clock
	log   *slog.Logger
	// decisions records each sync's plan (decision.go); nil records nothing.
	decisions     *controllerutil.DecisionLog
	burstReplicas int
	cachesSynced  []func() bool
}

// New builds the DaemonSet controller on the shared informers (it
// registers the DaemonSet, Pod, Node and ControllerRevision informers);
// it writes through c and records events with recorder (source
// "daemonset-controller").
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.BurstReplicas <= 0 {
		opts.BurstReplicas = BurstReplicas
	}
	daemonSets, pods, nodes, revisions := informers.DaemonSets(), informers.Pods(), informers.Nodes(), informers.ControllerRevisions()
	ctrl := &Controller{
		client:         c,
		dsLister:       daemonSets.Lister(),
		podLister:      pods.Lister(),
		nodeLister:     nodes.Lister(),
		revisionLister: revisions.Lister(),
		podControl:     controllerutil.PodControl{Client: c, Recorder: recorder},
		recorder:       recorder,
		creations:      controllerutil.NewExpectations(opts.Clock),
		deletions:      controllerutil.NewExpectations(opts.Clock),
		failedPods:     newFailedPodBackoff(opts.Clock),
		queue:          controllerutil.NewQueue(Name, opts.Clock, informers),
		clock:          opts.Clock,
		log:            opts.Logger.With("controller", Name),
		decisions:      controllerutil.NewDecisionLog(informers.Journal(), Name, "daemonsets.apps"),
		burstReplicas:  opts.BurstReplicas,
	}
	var err error
	ctrl.cachesSynced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: daemonSets.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.addDaemonSet,
			UpdateFunc: ctrl.updateDaemonSet,
			DeleteFunc: ctrl.deleteDaemonSet,
		}},
		controllerutil.Handlers{Informer: pods.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.addPod,
			UpdateFunc: ctrl.updatePod,
			DeleteFunc: ctrl.deletePod,
		}},
		controllerutil.Handlers{Informer: nodes.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.addNode,
			UpdateFunc: ctrl.updateNode,
			DeleteFunc: ctrl.deleteNode,
		}},
		// Revisions are only read, in sync; their changes enqueue nothing
		// (as upstream, which has no handlers on them).
		controllerutil.Handlers{Informer: revisions.Informer(), Handler: informer.ResourceEventHandlerFuncs{}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the caches to sync, then runs workers workers over the
// queue until ctx ends. It does not start the informers.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("starting controller", "workers", workers)
	defer c.log.Info("stopped controller")
	if !informer.WaitForCacheSync(ctx, c.cachesSynced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// enqueue adds ds's key to the queue.
func (c *Controller) enqueue(ds *api.DaemonSet) {
	c.queue.Add(keyOf(ds))
}

// expectationsSatisfied reports whether every create and delete the last
// sync of key made has reached the cache.
func (c *Controller) expectationsSatisfied(key string) bool {
	return c.creations.Satisfied(key) && c.deletions.Satisfied(key)
}

// keyOf returns obj's "namespace/name" key.
func keyOf(obj api.Object) string {
	key, _ := informer.MetaNamespaceKeyFunc(obj)
	return key
}
