// Package tainteviction is the taint-eviction controller: it deletes the
// pods that do not tolerate a NoExecute taint of their node, at once or
// after the tolerationSeconds of the toleration that lets them stay a
// while, as upstream's taint-eviction-controller (the "taint manager",
// split out of the node lifecycle controller in Kubernetes 1.29) does.
//
// Its main customer is the node lifecycle controller, which taints a node
// node.kubernetes.io/unreachable:NoExecute when its kubelet stops
// heartbeating. Every pod carries, from the apiserver's
// DefaultTolerationSeconds admission, a toleration of that taint for
// 300 s; so five minutes after a node goes silent its pods are deleted and
// their ReplicaSets replace them elsewhere. A pod that tolerates the taint
// for 5 s goes after 5 s; a DaemonSet's pods tolerate it for ever and
// stay. When the taint goes before the time is up (the kubelet came back)
// the eviction is cancelled. Any NoExecute taint works the same way, so
// `kubectl taint node node1 dedicated=x:NoExecute` clears node1 of every
// pod that does not tolerate it. See docs/controllers/tainteviction.md.
package tainteviction

import (
	"context"
	"fmt"
	"log/slog"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's name: its --controllers name (upstream's), its
// workqueue's name and its "controller" log attribute; also the
// source.component of its Events, as upstream.
const Name = "taint-eviction-controller"

// DefaultWorkers is how many pods are synced at once (upstream's
// UpdateWorkerSize, 8).
const DefaultWorkers = 8

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock measures tolerationSeconds and drives the workqueue (its
	// delayed adds and back-off); nil is the wall clock.
	Clock clock.Clock
}

// Controller deletes pods from nodes whose NoExecute taints they do not
// tolerate, or tolerate only for a while. Build it with New, run it with
// Run.
type Controller struct {
	client   *client.Client
	recorder events.EventRecorder
	log      *slog.Logger
	clock    clock.Clock
	// decisions records each pod's fate (decision.go).
	decisions *controllerutil.DecisionLog

	nodes *informer.Lister[*api.Node]
	// pods is read by key, and by node through the shared pod informer's
	// NodeNameIndex.
	pods   *informer.Lister[*api.Pod]
	synced []func() bool

	// queue holds pod keys ("namespace/name"). A node whose NoExecute
	// taints change enqueues all its pods; a pod is enqueued when it is
	// bound, its tolerations change or it goes; and a pod that may stay a
	// while is re-added with AddAfter for the moment its time is up.
	queue    *workqueue.Queue[string]
	schedule *evictionSchedule
}

// New builds the controller and registers its handlers on the node and pod
// informers of informers; the caller starts the factory.
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	ctrl := &Controller{
		client:    c,
		recorder:  recorder,
		log:       logger.With("controller", Name),
		clock:     clk,
		decisions: controllerutil.NewDecisionLog(informers.Journal(), Name, "pods"),
		queue:     controllerutil.NewQueue(Name, clk, informers),
		schedule:  newEvictionSchedule(),
	}

	pods := informers.Pods()
	if err := informer.IndexPodsByNode(pods.Informer()); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	ctrl.pods = pods.Lister()
	ctrl.nodes = informers.Nodes().Lister()
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: pods.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    func(obj api.Object) { ctrl.podChanged(nil, obj) },
			UpdateFunc: ctrl.podChanged,
			DeleteFunc: ctrl.podDeleted,
		}},
		controllerutil.Handlers{Informer: informers.Nodes().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    func(obj api.Object) { ctrl.nodeChanged(nil, obj) },
			UpdateFunc: ctrl.nodeChanged,
			DeleteFunc: ctrl.nodeDeleted,
		}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the pod and node caches, then syncs pods with workers
// goroutines until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	c.log.Info("starting controller", "workers", workers)
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}
