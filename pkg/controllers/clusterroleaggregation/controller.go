// Package clusterroleaggregation is the ClusterRole aggregation controller
// (upstream's pkg/controller/clusterroleaggregation, --controllers name
// "clusterrole-aggregation"): a ClusterRole with an aggregationRule gets as
// its rules the union of the rules of every ClusterRole its label
// selectors match, and keeps it up to date as those roles come, change and
// go.
//
// It is what makes the default user-facing roles work: upstream's admin,
// edit and view carry no rules of their own, only selectors such as
// rbac.authorization.k8s.io/aggregate-to-view=true, and the rules live in
// system:aggregate-to-view and friends. Anyone (an add-on, a CRD's author)
// can extend view by labelling a ClusterRole of their own. See
// docs/controllers/clusterroleaggregation.md.
package clusterroleaggregation

import (
	"context"
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

// Name is the controller's name: its --controllers name, its workqueue's
// name (which labels its metrics) and its "controller" log attribute.
const Name = "clusterrole-aggregation"

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock drives the workqueue's back-off; nil is the wall clock.
	Clock clock.Clock
}

// Controller keeps every aggregated ClusterRole's rules the union of the
// rules of the ClusterRoles it selects. Build it with New, run it with Run.
type Controller struct {
	client       *client.Client
	log          *slog.Logger
	clusterRoles *informer.Lister[*api.ClusterRole]
	// synced is the handler registration's HasSynced: no worker starts
	// before the cache holds every ClusterRole, or a sync would aggregate
	// from a partial list and drop rules.
	synced []func() bool
	// queue holds the names of ClusterRoles with an aggregationRule.
	queue *workqueue.Queue[string]
}

// New builds the controller and registers its handlers on the clusterrole
// informer of informers; the caller starts the factory. Upstream's
// controller records no Events, and neither does this one.
func New(c *client.Client, informers *informer.SharedInformerFactory, _ events.EventRecorder, opts Options) (*Controller, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	ctrl := &Controller{
		client:       c,
		log:          logger.With("controller", Name),
		clusterRoles: informers.ClusterRoles().Lister(),
		queue:        controllerutil.NewQueue(Name, opts.Clock, informers),
	}
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.ClusterRoles().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    func(api.Object) { ctrl.enqueueAggregated() },
			UpdateFunc: func(_, _ api.Object) { ctrl.enqueueAggregated() },
			DeleteFunc: func(any) { ctrl.enqueueAggregated() },
		}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// enqueueAggregated enqueues every ClusterRole with an aggregationRule.
// Any ClusterRole's change may change what some aggregated role selects
// (its labels, its rules), and there are few aggregated roles, so upstream
// simply re-checks them all; so does this.
func (c *Controller) enqueueAggregated() {
	roles, err := c.clusterRoles.List(labels.Everything())
	if err != nil {
		c.log.Error("list clusterroles from cache", "err", err)
		return
	}
	for _, r := range roles {
		if r.AggregationRule != nil {
			c.queue.Add(r.Name)
		}
	}
}

// Run waits for the clusterrole cache, then syncs aggregated roles with
// workers goroutines until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// sync sets the rules of the ClusterRole named key to what its selectors
// gather (aggregate.go), writing only when they differ, so running it
// again changes nothing.
func (c *Controller) sync(ctx context.Context, key string) error {
	role, err := c.clusterRoles.Get(key)
	if apierrors.IsNotFound(err) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return fmt.Errorf("get clusterrole %s from cache: %w", key, err)
	}
	if role.AggregationRule == nil {
		return nil // no longer aggregated: its rules are its own again
	}
	all, err := c.clusterRoles.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list clusterroles from cache: %w", err)
	}
	rules, err := aggregatedRules(role, all)
	if err != nil {
		// A selector that does not parse will not parse on a retry either.
		c.log.Error("cannot aggregate clusterrole", "clusterrole", key, "err", err)
		return nil
	}
	if rulesEqual(rules, role.Rules) {
		return nil
	}
	// The update carries the cached resourceVersion: if someone changed
	// the role meanwhile, the Conflict requeues and the next sync starts
	// from their version. (Upstream writes with a server-side apply patch
	// of the rules; kplane's update has the same effect here, since the
	// controller owns an aggregated role's rules.)
	updated := api.DeepCopy(role)
	updated.Rules = rules
	if _, err := c.client.ClusterRoles().Update(ctx, updated, client.UpdateOptions{}); err != nil {
		return fmt.Errorf("update clusterrole %s: %w", key, err)
	}
	c.log.Info("aggregated clusterrole rules", "clusterrole", key, "rules", len(rules))
	return nil
}
