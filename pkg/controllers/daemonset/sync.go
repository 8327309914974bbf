package daemonset

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

// Event reasons of upstream's DaemonSet controller (besides PodControl's
// SuccessfulCreate and SuccessfulDelete).
const (
	ReasonSelectingAll    = "SelectingAll"
	ReasonFailedDaemonPod = "FailedDaemonPod"
)

// sync reconciles the DaemonSet under key, as upstream's syncDaemonSet:
//
//  1. make sure a ControllerRevision holds the current template, whose hash
//     new pods carry (revisions.go);
//  2. claim the pods (adopt matching orphans, release relabelled ones) and
//     file them by node;
//  3. if the expectations of the last sync are met: create and delete pods
//     per node (planNodes), then, when nothing was left to do there, delete
//     the old-template pods a RollingUpdate allows (rollingUpdateVictims),
//     and trim the revision history;
//  4. write the status.
//
// Running it again with nothing changed writes nothing.
func (c *Controller) sync(ctx context.Context, key string) error {
	start := c.clock.Now()
	defer func() { c.log.Debug("finished syncing", "key", key, "duration", c.clock.Since(start)) }()

	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(err)
	}
	ds, err := c.dsLister.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.log.Debug("daemonset has been deleted", "key", key)
		c.creations.Delete(key)
		c.deletions.Delete(key)
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get daemonset %s from the cache: %w", key, err)
	}
	selector, err := labels.FromLabelSelector(ds.Spec.Selector)
	if err != nil {
		return controllerutil.DoNotRetry(fmt.Errorf("daemonset %s: invalid selector: %w", key, err))
	}
	if selector.Empty() {
		// A DaemonSet selecting every pod would adopt the namespace's pods.
		c.recorder.Eventf(ds, api.EventTypeWarning, ReasonSelectingAll, "This daemon set is selecting all pods. A non-empty selector is required.")
		return nil
	}
	if ds.DeletionTimestamp != nil {
		// Being deleted: the garbage collector removes its pods.
		return nil
	}
	nodes, err := c.nodeLister.List(nil)
	if err != nil {
		return fmt.Errorf("list nodes: %w", err)
	}
	revisions, err := c.constructHistory(ctx, ds, selector)
	if err != nil {
		return fmt.Errorf("daemonset %s: construct history: %w", key, err)
	}

	// Ask before listing the pods: if the expectations are met now, every
	// pod event they waited for is already in the cache the list reads.
	satisfied := c.expectationsSatisfied(key)
	allPods, err := c.podLister.Namespace(namespace).List(nil)
	if err != nil {
		return fmt.Errorf("list pods in %s: %w", namespace, err)
	}
	pods, claimErr := c.claimPods(ctx, ds, selector, allPods)
	byNode, unplaced := groupPodsByNode(pods)
	for _, pod := range unplaced {
		c.log.Warn("daemon pod has no node name and no node affinity; ignoring it", "key", key, "pod", pod.Name)
	}

	// A failed claim (an orphan that could not be adopted) would make its
	// node look empty and get a second daemon pod: return the error before
	// creating or deleting anything, as upstream does.
	if claimErr != nil {
		return claimErr
	}
	var manageErr error
	if satisfied {
		manageErr = c.manage(ctx, key, ds, nodes, byNode, revisions.hash)
		if manageErr == nil && c.expectationsSatisfied(key) {
			manageErr = c.rollingUpdate(ctx, key, ds, nodes, byNode, revisions.hash)
		}
		if manageErr == nil {
			manageErr = c.cleanupHistory(ctx, ds, revisions.old, pods)
		}
	} else {
		c.log.Debug("waiting for the cache to catch up; only updating status", "key", key)
	}

	status := calculateStatus(ds, nodes, byNode, revisions.hash, satisfied, c.clock.Now())
	status.CollisionCount = revisions.collisionCount
	if err := c.updateStatus(ctx, ds, status); err != nil {
		return err
	}
	// No event marks the moment a ready pod has been ready for
	// minReadySeconds; look again then.
	if ds.Spec.MinReadySeconds > 0 && status.NumberReady != status.NumberAvailable {
		c.queue.AddAfter(key, time.Duration(ds.Spec.MinReadySeconds)*time.Second)
	}
	return manageErr
}

// manage creates and deletes pods so that every eligible node runs one pod
// and no other node runs any (planNodes), with back-off for Failed pods.
func (c *Controller) manage(ctx context.Context, key string, ds *api.DaemonSet, nodes []*api.Node, byNode map[string][]*api.Pod, hash string) error {
	plan := planNodes(ds, nodes, byNode)
	toDelete := plan.deletePods
	var backingOff []string
	for _, pod := range plan.failedPods {
		node, _ := targetNodeName(pod)
		allowed, wait := c.failedPods.next(ds.UID + "/" + node)
		if !allowed {
			if c.decisions.Enabled() {
				backingOff = append(backingOff, backOffLine(pod, node, wait))
			}
			c.queue.AddAfter(key, wait)
			continue
		}
		c.recorder.Eventf(ds, api.EventTypeWarning, ReasonFailedDaemonPod,
			"Found failed daemon pod %s/%s on node %s, will try to kill it", pod.Namespace, pod.Name, node)
		toDelete = append(toDelete, pod)
	}
	c.recordPlan(key, ds, nodes, byNode, plan.createOn, toDelete, backingOff)
	if len(plan.createOn) > 0 || len(toDelete) > 0 {
		c.log.Info("syncing nodes", "key", key, "createOn", plan.createOn, "delete", podNames(toDelete))
	}
	return c.syncNodes(ctx, key, ds, plan.createOn, toDelete, hash)
}

// rollingUpdate deletes the old-template pods that a RollingUpdate may
// take down now; the next sync creates their replacements. OnDelete
// deletes nothing: old pods are replaced only when a user deletes them.
func (c *Controller) rollingUpdate(ctx context.Context, key string, ds *api.DaemonSet, nodes []*api.Node, byNode map[string][]*api.Pod, hash string) error {
	if ds.Spec.UpdateStrategy.Type == api.OnDeleteDaemonSetStrategyType {
		return nil
	}
	desired := 0
	for _, node := range nodes {
		if nodePlacement(node, ds).shouldRun {
			desired++
		}
	}
	budget, err := maxUnavailable(ds, desired)
	if err != nil {
		return controllerutil.DoNotRetry(fmt.Errorf("daemonset %s: %w", key, err))
	}
	victims := rollingUpdateVictims(byNode, hash, templateGeneration(ds), budget, ds.Spec.MinReadySeconds, c.clock.Now())
	if len(victims) == 0 {
		return nil
	}
	c.recordRollingUpdate(key, ds, desired, budget, victims)
	c.log.Info("rolling update: deleting old pods", "key", key, "maxUnavailable", budget, "pods", podNames(victims))
	return c.syncNodes(ctx, key, ds, nil, victims, hash)
}

// syncNodes creates a pod on each of createOn and deletes toDelete, at
// most burstReplicas of each, recording the expectations first (the
// informer may deliver a new pod before CreatePod returns). Creates go in
// slow-start batches, so a template the apiserver rejects costs one
// request and one FailedCreate event, not one per node.
func (c *Controller) syncNodes(ctx context.Context, key string, ds *api.DaemonSet, createOn []string, toDelete []*api.Pod, hash string) error {
	createOn = createOn[:min(len(createOn), c.burstReplicas)]
	toDelete = toDelete[:min(len(toDelete), c.burstReplicas)]
	podKeys := make([]string, len(toDelete))
	for i, pod := range toDelete {
		podKeys[i] = keyOf(pod)
	}
	c.creations.ExpectCreations(key, len(createOn))
	c.deletions.ExpectDeletions(key, podKeys)

	ref := controllerutil.NewControllerRef(ds, apiVersion, kind)
	var next atomic.Int64
	successes, createErr := controllerutil.SlowStartBatch(len(createOn), controllerutil.SlowStartInitialBatchSize, func() error {
		node := createOn[next.Add(1)-1]
		return c.podControl.CreatePod(ctx, ds.Namespace, podTemplateForNode(ds, hash, node), ds, ref)
	})
	// Pods whose create failed or was never tried will not be seen.
	for range len(createOn) - successes {
		c.creations.CreationObserved(key)
	}
	if apierrors.HasStatusCause(createErr, apierrors.NamespaceTerminatingCause) {
		createErr = nil // the namespace and the DaemonSet are going away
	}

	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		deleteErr error
	)
	for _, pod := range toDelete {
		wg.Go(func() {
			err := c.podControl.DeletePod(ctx, ds.Namespace, pod.Name, ds)
			if err == nil {
				return
			}
			c.deletions.DeletionObserved(key, keyOf(pod))
			if apierrors.IsNotFound(err) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if deleteErr == nil {
				deleteErr = err
			}
		})
	}
	wg.Wait()
	if createErr != nil {
		return createErr
	}
	return deleteErr
}

// claimPods adopts orphans matching ds's selector and releases ds's pods
// that no longer match, and returns the pods ds controls.
func (c *Controller) claimPods(ctx context.Context, ds *api.DaemonSet, selector labels.Selector, pods []*api.Pod) ([]*api.Pod, error) {
	refs := &controllerutil.RefManager{
		Owner:      ds,
		APIVersion: apiVersion,
		Kind:       kind,
		Selector:   selector,
		CanAdopt:   c.canAdopt(ds),
		Patch: func(ctx context.Context, podName string, patch []byte) error {
			return c.podControl.PatchPod(ctx, ds.Namespace, podName, patch)
		},
	}
	claimed, err := controllerutil.Claim(ctx, refs, pods)
	if err != nil {
		return claimed, fmt.Errorf("claim pods for daemonset %s: %w", keyOf(ds), err)
	}
	return claimed, nil
}

// canAdopt reads the DaemonSet fresh before the first adoption of a pod or
// revision: one deleted since the cache saw it must not adopt anything.
func (c *Controller) canAdopt(ds *api.DaemonSet) func(ctx context.Context) error {
	return controllerutil.RecheckDeletionTimestamp(ds.UID, func(ctx context.Context) (*api.ObjectMeta, error) {
		fresh, err := c.client.DaemonSets(ds.Namespace).Get(ctx, ds.Name, client.GetOptions{})
		if err != nil {
			return nil, err
		}
		return &fresh.ObjectMeta, nil
	})
}

// updateStatus writes status if it differs from ds's; on a conflict it
// re-reads ds and tries once more.
func (c *Controller) updateStatus(ctx context.Context, ds *api.DaemonSet, status api.DaemonSetStatus) error {
	if statusEqual(ds.Status, status) {
		return nil
	}
	c.log.Debug("updating status", "key", keyOf(ds),
		"desired", status.DesiredNumberScheduled, "current", status.CurrentNumberScheduled,
		"ready", status.NumberReady, "updated", status.UpdatedNumberScheduled,
		"available", status.NumberAvailable, "observedGeneration", status.ObservedGeneration)
	updated := api.DeepCopy(ds)
	updated.Status = status
	daemonSets := c.client.DaemonSets(ds.Namespace)
	_, err := daemonSets.UpdateStatus(ctx, updated, client.UpdateOptions{})
	if apierrors.IsConflict(err) {
		fresh, getErr := daemonSets.Get(ctx, ds.Name, client.GetOptions{})
		if getErr != nil {
			return fmt.Errorf("update status of daemonset %s: re-read after conflict: %w", keyOf(ds), getErr)
		}
		fresh.Status = status
		_, err = daemonSets.UpdateStatus(ctx, fresh, client.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("update status of daemonset %s: %w", keyOf(ds), err)
	}
	return nil
}

// podNames lists pods' names for logs.
func podNames(pods []*api.Pod) []string {
	names := make([]string, len(pods))
	for i, pod := range pods {
		names[i] = pod.Name
	}
	return names
}
