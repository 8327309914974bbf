// Package deployment is kplane's Deployment controller, a smaller rewrite
// of upstream's pkg/controller/deployment. A Deployment never touches pods:
// it owns one ReplicaSet per pod template (named
// "<deployment>-<pod-template-hash>") and rolls out a new template by
// moving replicas from the old ReplicaSets to the new one within maxSurge
// and maxUnavailable (RollingUpdate) or by emptying the old ones first
// (Recreate). The ReplicaSet controller turns those replica counts into
// pods, and this controller reads the pods' progress back from the
// ReplicaSets' status.
//
// Where to start reading: sync in this file is the reconcile loop's entry;
// rolling.go and recreate.go are the two strategies, scale.go the
// proportional scaling of a Deployment caught mid-rollout, history.go the
// revisions behind `kubectl rollout history/undo`, progress.go and
// status.go what `kubectl rollout status` reads, arithmetic.go the
// ReplicaSet counts and order they all share. docs/controllers/deployment.md
// walks through a rollout with numbers.
package deployment

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"time"

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

// Name is the controller's name as --controllers spells it; its workqueue
// and its logs carry it too.
const Name = "deployment"

// The ownerReference a Deployment puts on its ReplicaSets.
const (
	controllerAPIVersion = "apps/v1"
	controllerKind       = "Deployment"
)

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil means slog.Default().
	Logger *slog.Logger
	// Clock stamps conditions and measures progress deadlines; nil means
	// the wall clock. Tests pass a clock.Fake to cross a deadline at will.
	Clock clock.Clock
}

// Controller reconciles Deployments into ReplicaSets.
type Controller struct {
	// client is the controller's only door to the apiserver for writes
	// (and for the one fresh read adoption needs); everything else is read
	// from the listers. Every update sends the object's resourceVersion, so
	// a write based on a stale cache (or racing a second controller-manager
	// that briefly also leads) fails with a Conflict and the key is retried
	// with fresh data.
	client   *client.Client
	recorder events.EventRecorder
	log      *slog.Logger
	clock    clock.Clock

	// decisions records what each sync decided, for `ctl why deploy/NAME`
	// (decision.go builds the records); nil without a debug journal.
	decisions *controllerutil.DecisionLog

	// queue holds "namespace/name" keys of Deployments to sync. Every
	// handler below only computes such a key and adds it.
	queue *workqueue.Queue[string]

	deployments *informer.Lister[*api.Deployment]
	replicaSets *informer.Lister[*api.ReplicaSet]
	pods        *informer.Lister[*api.Pod]
	// synced are the handler registrations Run waits for before a worker
	// may trust the listers.
	synced []func() bool
}

// New registers the controller's handlers on the Deployment, ReplicaSet and
// Pod informers of informers and returns it; Run starts its workers. The
// recorder should report as component "deployment-controller", the source
// `kubectl describe deploy` shows in the FROM column.
func New(apiClient *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	c := &Controller{
		client:      apiClient,
		recorder:    recorder,
		log:         logger.With("controller", Name),
		clock:       clk,
		decisions:   controllerutil.NewDecisionLog(informers.Journal(), Name, "deployments.apps"),
		queue:       controllerutil.NewQueue(Name, clk, informers),
		deployments: informers.Deployments().Lister(),
		replicaSets: informers.ReplicaSets().Lister(),
		pods:        informers.Pods().Lister(),
	}

	var err error
	c.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.Deployments().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc: c.addDeployment, UpdateFunc: c.updateDeployment, DeleteFunc: c.deleteDeployment}},
		controllerutil.Handlers{Informer: informers.ReplicaSets().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc: c.addReplicaSet, UpdateFunc: c.updateReplicaSet, DeleteFunc: c.deleteReplicaSet}},
		// Only deletions matter: a Recreate rollout waits for the last old
		// pod to be gone, and nothing else about a pod changes a Deployment
		// (its ReplicaSet's status does, and the ReplicaSet handlers see that).
		controllerutil.Handlers{Informer: informers.Pods().Informer(), Handler: informer.ResourceEventHandlerFuncs{DeleteFunc: c.deletePod}},
	)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Run waits for the informers' caches, then syncs Deployments with workers
// goroutines until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("starting", "workers", workers)
	defer c.log.Info("stopped")
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// sync makes one step of Deployment key's rollout, in upstream's order:
//
//  1. claim the ReplicaSets (adopt orphans that match, release ours that no
//     longer do) and group the pods by ReplicaSet;
//  2. a Deployment being deleted only gets its status refreshed;
//  3. a paused one, or one whose replica count changed, is only scaled
//     (scale.go) — no rollout;
//  4. otherwise its strategy rolls out: rolloutRolling or rolloutRecreate.
//
// Each step writes through the API and returns; the writes come back as
// informer events, which enqueue the key for the next step.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(err)
	}
	cached, err := c.deployments.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.log.Debug("deployment has been deleted", "deployment", key)
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get deployment %s: %w", key, err)
	}
	d := api.DeepCopy(cached) // never write into the cache

	if d.Spec.Selector == nil || (len(d.Spec.Selector.MatchLabels) == 0 && len(d.Spec.Selector.MatchExpressions) == 0) {
		return c.refuseSelectingAll(ctx, d)
	}

	rsList, err := c.claimReplicaSets(ctx, d)
	if err != nil {
		return err
	}
	podMap, err := c.podsByReplicaSet(d, rsList)
	if err != nil {
		return err
	}

	if d.DeletionTimestamp != nil {
		return c.syncStatusOnly(ctx, d, rsList)
	}
	// Mark pause and resume in the Progressing condition first, so that
	// time spent paused never counts toward progressDeadlineSeconds.
	if err := c.checkPausedConditions(ctx, d); err != nil {
		return err
	}
	if d.Spec.Paused {
		return c.syncScaleOnly(ctx, d, rsList)
	}
	if isScalingEvent(d, rsList) {
		return c.syncScaleOnly(ctx, d, rsList)
	}

	switch d.Spec.Strategy.Type {
	case api.RecreateDeploymentStrategyType:
		return c.rolloutRecreate(ctx, d, rsList, podMap)
	case api.RollingUpdateDeploymentStrategyType:
		return c.rolloutRolling(ctx, d, rsList)
	}
	return controllerutil.DoNotRetry(fmt.Errorf("deployment %s: unexpected strategy type %q", key, d.Spec.Strategy.Type))
}

// refuseSelectingAll handles a Deployment whose selector is empty: it would
// claim every ReplicaSet and pod of its namespace, so upstream refuses it
// with a SelectingAll warning and only records that it saw the generation.
func (c *Controller) refuseSelectingAll(ctx context.Context, d *api.Deployment) error {
	c.recorder.Event(d, api.EventTypeWarning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
	if d.Status.ObservedGeneration >= d.Generation {
		return nil
	}
	d.Status.ObservedGeneration = d.Generation
	return c.updateStatus(ctx, d)
}

// enqueue adds d's key to the queue.
func (c *Controller) enqueue(d *api.Deployment) {
	key, err := informer.MetaNamespaceKeyFunc(d)
	if err != nil {
		c.log.Error("cannot compute key", "err", err)
		return
	}
	c.queue.Add(key)
}

// enqueueAfter adds d's key once after has passed (progress deadline checks).
func (c *Controller) enqueueAfter(d *api.Deployment, after time.Duration) {
	key, err := informer.MetaNamespaceKeyFunc(d)
	if err != nil {
		c.log.Error("cannot compute key", "err", err)
		return
	}
	c.queue.AddAfter(key, after)
}

// addDeployment enqueues a new Deployment.
func (c *Controller) addDeployment(obj api.Object) {
	if d, ok := obj.(*api.Deployment); ok {
		c.log.Debug("adding deployment", "deployment", d.Namespace+"/"+d.Name)
		c.enqueue(d)
	}
}

// updateDeployment enqueues a changed Deployment.
func (c *Controller) updateDeployment(_, cur api.Object) {
	if d, ok := cur.(*api.Deployment); ok {
		c.enqueue(d)
	}
}

// deleteDeployment enqueues a deleted Deployment, so that its sync finds it
// gone and forgets it.
func (c *Controller) deleteDeployment(obj any) {
	if d, ok := informer.DeletedObject[*api.Deployment](obj); ok {
		c.enqueue(d)
	}
}

// addReplicaSet enqueues the Deployment that controls a new ReplicaSet or,
// for an orphan, every Deployment that might adopt it.
func (c *Controller) addReplicaSet(obj api.Object) {
	rs, ok := obj.(*api.ReplicaSet)
	if !ok {
		return
	}
	if rs.DeletionTimestamp != nil {
		// Seen for the first time already being deleted (e.g. after a
		// restart): treat it as the deletion it is.
		c.deleteReplicaSet(rs)
		return
	}
	if ref := controllerutil.GetControllerOf(&rs.ObjectMeta); ref != nil {
		if d := c.resolveControllerRef(rs.Namespace, ref); d != nil {
			c.enqueue(d)
		}
		return
	}
	for _, d := range c.deploymentsForReplicaSet(rs) {
		c.enqueue(d)
	}
}

// updateReplicaSet enqueues the ReplicaSet's old and new controllers when
// its controller changed, its controller otherwise, and, for an orphan
// whose labels or ownerReferences changed, every Deployment that might
// adopt it now.
func (c *Controller) updateReplicaSet(oldObj, curObj api.Object) {
	old, okOld := oldObj.(*api.ReplicaSet)
	cur, okCur := curObj.(*api.ReplicaSet)
	if !okOld || !okCur || cur.ResourceVersion == old.ResourceVersion {
		// A resync: every version of an object has its own
		// resourceVersion, so nothing changed.
		return
	}
	curRef, oldRef := controllerutil.GetControllerOf(&cur.ObjectMeta), controllerutil.GetControllerOf(&old.ObjectMeta)
	refChanged := !reflect.DeepEqual(curRef, oldRef)
	if refChanged && oldRef != nil {
		if d := c.resolveControllerRef(old.Namespace, oldRef); d != nil {
			c.enqueue(d)
		}
	}
	if curRef != nil {
		if d := c.resolveControllerRef(cur.Namespace, curRef); d != nil {
			c.enqueue(d)
		}
		return
	}
	if refChanged || !reflect.DeepEqual(cur.Labels, old.Labels) {
		for _, d := range c.deploymentsForReplicaSet(cur) {
			c.enqueue(d)
		}
	}
}

// deleteReplicaSet enqueues the Deployment that controlled a deleted
// ReplicaSet (an orphan's deletion concerns nobody).
func (c *Controller) deleteReplicaSet(obj any) {
	rs, ok := informer.DeletedObject[*api.ReplicaSet](obj)
	if !ok {
		return
	}
	if ref := controllerutil.GetControllerOf(&rs.ObjectMeta); ref != nil {
		if d := c.resolveControllerRef(rs.Namespace, ref); d != nil {
			c.enqueue(d)
		}
	}
}

// deletePod enqueues a Recreate Deployment when one of its pods goes: the
// rollout may be waiting for the last old pod to disappear before it
// scales the new ReplicaSet up. RollingUpdate Deployments learn about pods
// from their ReplicaSets' status instead, as upstream.
func (c *Controller) deletePod(obj any) {
	pod, ok := informer.DeletedObject[*api.Pod](obj)
	if !ok {
		return
	}
	if d := c.deploymentForPod(pod); d != nil && d.Spec.Strategy.Type == api.RecreateDeploymentStrategyType {
		c.enqueue(d)
	}
}

// resolveControllerRef returns the Deployment ref points to, if ref is a
// Deployment's and that Deployment still has ref's uid (not a new object
// that reuses the name).
func (c *Controller) resolveControllerRef(namespace string, ref *api.OwnerReference) *api.Deployment {
	if ref.Kind != controllerKind {
		return nil
	}
	d, err := c.deployments.Namespace(namespace).Get(ref.Name)
	if err != nil || d.UID != ref.UID {
		return nil
	}
	return d
}

// deploymentForPod follows pod → ReplicaSet → Deployment through the
// controller ownerReferences, using the listers.
func (c *Controller) deploymentForPod(pod *api.Pod) *api.Deployment {
	ref := controllerutil.GetControllerOf(&pod.ObjectMeta)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return nil
	}
	rs, err := c.replicaSets.Namespace(pod.Namespace).Get(ref.Name)
	if err != nil || rs.UID != ref.UID {
		return nil
	}
	rsRef := controllerutil.GetControllerOf(&rs.ObjectMeta)
	if rsRef == nil {
		return nil
	}
	return c.resolveControllerRef(rs.Namespace, rsRef)
}

// deploymentsForReplicaSet returns the Deployments whose selector matches an
// orphan ReplicaSet's labels: the candidates to adopt it. A Deployment with
// an empty selector matches nothing here, as upstream.
func (c *Controller) deploymentsForReplicaSet(rs *api.ReplicaSet) []*api.Deployment {
	if len(rs.Labels) == 0 {
		return nil
	}
	all, err := c.deployments.Namespace(rs.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var matching []*api.Deployment
	for _, d := range all {
		sel, err := labels.FromLabelSelector(d.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(rs.Labels) {
			continue
		}
		matching = append(matching, d)
	}
	if len(matching) > 1 {
		// Selectors overlap: only one of them will win the adoption race.
		c.log.Info("more than one deployment selects replica set", "replicaSet", rs.Namespace+"/"+rs.Name, "count", len(matching))
	}
	return matching
}
