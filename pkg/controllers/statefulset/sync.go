package statefulset

import (
	"context"
	"errors"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

// sync reconciles the StatefulSet under key ("namespace/name"): it claims
// the set's pods and revisions, finds the current and update revisions,
// makes the pod writes plan asks for, writes status and trims history. It
// is upstream's syncStatefulSet + UpdateStatefulSet. Running it again
// with nothing changed writes nothing.
func (c *Controller) sync(ctx context.Context, key string) error {
	start := c.clock.Now()
	defer func() { c.log.Debug("finished syncing", "key", key, "duration", c.clock.Since(start)) }()

	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(err)
	}
	cached, err := c.setLister.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		// Deleted: the garbage collector removes its pods and revisions;
		// the claims stay (retention policy Retain).
		c.log.Debug("statefulset has been deleted", "key", key)
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get statefulset %s from the cache: %w", key, err)
	}
	set := api.DeepCopy(cached)
	selector, err := labels.FromLabelSelector(set.Spec.Selector)
	if err != nil {
		// Only an edit can fix it, and the edit enqueues the set again.
		return controllerutil.DoNotRetry(fmt.Errorf("statefulset %s: invalid selector: %w", key, err))
	}

	revisions, err := c.claimRevisions(ctx, set, selector)
	if err != nil {
		return err
	}
	controllerutil.SortRevisions(revisions)
	pods, err := c.claimPods(ctx, set, selector)
	if err != nil {
		return err
	}

	revs, err := c.syncRevisions(ctx, set, revisions)
	if err != nil {
		return fmt.Errorf("statefulset %s revisions: %w", key, err)
	}

	var writeErr error
	if set.DeletionTimestamp == nil {
		in := planInputFor(set, pods, revs)
		actions := plan(in)
		c.recordPlan(set, in, actions)
		writeErr = c.apply(ctx, set, revs, actions)
	}

	status := computeStatus(set, pods, revs.current.Name, revs.update.Name, revs.collisionCount, c.clock.Now())
	if err := c.updateStatus(ctx, set, status); err != nil {
		return errors.Join(writeErr, err)
	}
	if err := c.truncateHistory(ctx, set, pods, revisions, status); err != nil {
		return errors.Join(writeErr, err)
	}
	return writeErr
}

// planInputFor reads what plan needs from set and its revisions.
func planInputFor(set *api.StatefulSet, pods []*api.Pod, revs setRevisions) planInput {
	in := planInput{
		Replicas:        replicasOf(set),
		Start:           startOrdinal(set),
		Parallel:        set.Spec.PodManagementPolicy == api.ParallelPodManagement,
		OnDelete:        set.Spec.UpdateStrategy.Type == api.OnDeleteStatefulSetStrategyType,
		CurrentRevision: revs.current.Name,
		UpdateRevision:  revs.update.Name,
		Pods:            pods,
	}
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		in.Partition = int(*ru.Partition)
	}
	return in
}

// claimPods returns the set's pods after adopting orphans that match its
// selector and are named like its members, and releasing its pods that
// no longer match.
func (c *Controller) claimPods(ctx context.Context, set *api.StatefulSet, selector labels.Selector) ([]*api.Pod, error) {
	all, err := c.podLister.Namespace(set.Namespace).List(nil)
	if err != nil {
		return nil, fmt.Errorf("list pods in %s: %w", set.Namespace, err)
	}
	// Upstream adopts only pods whose names make them members: an orphan
	// "db-0" with matching labels is not the set "web"'s.
	var candidates []*api.Pod
	for _, pod := range all {
		if controllerutil.GetControllerOf(&pod.ObjectMeta) != nil || isMemberOf(set, pod) {
			candidates = append(candidates, pod)
		}
	}
	refs := &controllerutil.RefManager{
		Owner:      set,
		APIVersion: "apps/v1",
		Kind:       "StatefulSet",
		Selector:   selector,
		CanAdopt:   c.canAdopt(set),
		Patch: func(ctx context.Context, name string, patch []byte) error {
			_, err := c.client.Pods(set.Namespace).Patch(ctx, name, client.StrategicMergePatchType, patch, client.PatchOptions{})
			return err
		},
	}
	claimed, err := controllerutil.Claim(ctx, refs, candidates)
	if err != nil {
		return nil, fmt.Errorf("claim pods for statefulset %s/%s: %w", set.Namespace, set.Name, err)
	}
	return claimed, nil
}

// claimRevisions returns the set's ControllerRevisions after adopting and
// releasing by selector.
func (c *Controller) claimRevisions(ctx context.Context, set *api.StatefulSet, selector labels.Selector) ([]*api.ControllerRevision, error) {
	all, err := c.revisionLister.Namespace(set.Namespace).List(nil)
	if err != nil {
		return nil, fmt.Errorf("list revisions in %s: %w", set.Namespace, err)
	}
	claimed, err := controllerutil.ClaimRevisions(ctx, c.client, set, "apps/v1", "StatefulSet", selector, c.canAdopt(set), all)
	if err != nil {
		return nil, fmt.Errorf("claim revisions for statefulset %s/%s: %w", set.Namespace, set.Name, err)
	}
	return claimed, nil
}

// canAdopt re-reads the set from the apiserver before the first adoption:
// a set deleted since the cache was read must not adopt anything.
func (c *Controller) canAdopt(set *api.StatefulSet) func(ctx context.Context) error {
	return controllerutil.RecheckDeletionTimestamp(set.UID, func(ctx context.Context) (*api.ObjectMeta, error) {
		fresh, err := c.client.StatefulSets(set.Namespace).Get(ctx, set.Name, client.GetOptions{})
		if err != nil {
			return nil, err
		}
		return &fresh.ObjectMeta, nil
	})
}

// updateStatus writes status if it differs from the set's. A conflict
// means the set changed meanwhile; its update event brings it back.
func (c *Controller) updateStatus(ctx context.Context, set *api.StatefulSet, status api.StatefulSetStatus) error {
	if statusEqual(set.Status, status) {
		return nil
	}
	updated := api.DeepCopy(set)
	updated.Status = status
	if _, err := c.client.StatefulSets(set.Namespace).UpdateStatus(ctx, updated, client.UpdateOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("update status of statefulset %s/%s: %w", set.Namespace, set.Name, err)
	}
	return nil
}
