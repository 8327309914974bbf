package deployment

// This file has the steps every kind of sync shares: finding (or creating)
// the new ReplicaSet and keeping the revision numbers in step, scaling one
// ReplicaSet with its ScalingReplicaSet event, the scale-only sync of a
// paused or resized Deployment, and the status writes.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
)

// getAllReplicaSetsAndSyncRevision splits rsList into the new ReplicaSet
// (nil if none has d's template and create is false) and the old ones,
// bringing the new one's revision and annotations up to date, and its
// revision onto d.
func (c *Controller) getAllReplicaSetsAndSyncRevision(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet, create bool) (*api.ReplicaSet, []*api.ReplicaSet, error) {
	oldRSs := findOldReplicaSets(d, rsList)
	newRS, err := c.getNewReplicaSet(ctx, d, rsList, oldRSs, create)
	if err != nil {
		return nil, nil, err
	}
	return newRS, oldRSs, nil
}

// getNewReplicaSet returns the ReplicaSet that runs d's current template,
// as upstream's getNewReplicaSet:
//
//   - If it exists, its revision becomes max(old revisions)+1 unless already
//     higher (this is how an old ReplicaSet brought back by `rollout undo`
//     becomes the newest revision), d's other annotations are copied onto
//     it, and its revision is copied onto d.
//   - If not and create is set, it is created: named "<d>-<hash>", the hash
//     added to its labels, selector and template, owned by d, at the size
//     the strategy allows (newReplicaSetReplicas). If the name is taken by
//     a ReplicaSet with another template, status.collisionCount is bumped
//     so the next sync hashes to a different name.
func (c *Controller) getNewReplicaSet(ctx context.Context, d *api.Deployment, rsList, oldRSs []*api.ReplicaSet, create bool) (*api.ReplicaSet, error) {
	newRevision := maxRevision(oldRSs) + 1
	if existing := findNewReplicaSet(d, rsList); existing != nil {
		return c.syncExistingNewReplicaSet(ctx, d, existing, newRevision)
	}
	if !create {
		return nil, nil
	}

	newRS, err := newReplicaSetFor(d, oldRSs, newRevision)
	if err != nil {
		return nil, err
	}
	created, err := c.client.ReplicaSets(newRS.Namespace).Create(ctx, newRS, client.CreateOptions{})
	alreadyExists := false
	switch {
	case apierrors.IsAlreadyExists(err):
		// Usually our own earlier create that the cache has not shown us
		// yet, or another controller-manager's; then it is ours to use.
		alreadyExists = true
		found, getErr := c.replicaSets.Namespace(newRS.Namespace).Get(newRS.Name)
		if getErr != nil {
			return nil, fmt.Errorf("replica set %s/%s exists but is not in the cache yet: %w", newRS.Namespace, newRS.Name, getErr)
		}
		if controllerutil.IsControlledBy(&found.ObjectMeta, d.UID) && equalIgnoreHash(&d.Spec.Template, &found.Spec.Template) {
			created, err = found, nil
			break
		}
		// A hash collision: the name belongs to another template.
		return nil, c.bumpCollisionCount(ctx, d, fmt.Errorf("create replica set %s/%s: %w", newRS.Namespace, newRS.Name, err))
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", newRS.Name, apiMessage(err))
		if hasProgressDeadline(d) {
			setCondition(&d.Status, newCondition(api.DeploymentProgressing, api.ConditionFalse, reasonReplicaSetCreateError, msg, c.clock.Now()))
			// The create error is the one worth returning.
			_ = c.updateStatus(ctx, d)
		}
		c.recorder.Event(d, api.EventTypeWarning, reasonReplicaSetCreateError, msg)
		return nil, fmt.Errorf("create replica set %s/%s: %w", newRS.Namespace, newRS.Name, err)
	}

	count := specReplicas(newRS)
	if !alreadyExists {
		c.log.Info("created new replica set", "deployment", d.Namespace+"/"+d.Name, "replicaSet", created.Name, "replicas", count)
		if count > 0 {
			c.recorder.Eventf(d, api.EventTypeNormal, "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d", created.Name, count)
		}
	}
	if err := c.updateRevision(ctx, d, strconv.FormatInt(newRevision, 10)); err != nil {
		return nil, err
	}
	if !alreadyExists && hasProgressDeadline(d) {
		setCondition(&d.Status, newCondition(api.DeploymentProgressing, api.ConditionTrue, reasonNewReplicaSetCreated,
			fmt.Sprintf("Created new replica set %q", created.Name), c.clock.Now()))
		if err := c.updateStatus(ctx, d); err != nil {
			return nil, err
		}
	}
	return created, nil
}

// syncExistingNewReplicaSet updates an existing new ReplicaSet's
// annotations and minReadySeconds, or, once they are right, copies its
// revision onto d and notes a Progressing condition if d has none yet.
func (c *Controller) syncExistingNewReplicaSet(ctx context.Context, d *api.Deployment, existing *api.ReplicaSet, newRevision int64) (*api.ReplicaSet, error) {
	rs := api.DeepCopy(existing)
	annotationsChanged := setNewReplicaSetAnnotations(d, rs, newRevision, true)
	if annotationsChanged || rs.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
		rs.Spec.MinReadySeconds = d.Spec.MinReadySeconds
		// d's revision follows on the sync this update triggers.
		updated, err := c.client.ReplicaSets(rs.Namespace).Update(ctx, rs, client.UpdateOptions{})
		if err != nil {
			return nil, fmt.Errorf("update replica set %s/%s: %w", rs.Namespace, rs.Name, err)
		}
		return updated, nil
	}
	if err := c.updateRevision(ctx, d, rs.Annotations[api.DeploymentRevisionAnnotation]); err != nil {
		return nil, err
	}
	if hasProgressDeadline(d) && getCondition(d.Status, api.DeploymentProgressing) == nil {
		// A Deployment that never had a Progressing condition (its deadline
		// was just set, or the ReplicaSet was adopted): start the clock now.
		setCondition(&d.Status, newCondition(api.DeploymentProgressing, api.ConditionTrue, reasonFoundNewReplicaSet,
			fmt.Sprintf("Found new replica set %q", rs.Name), c.clock.Now()))
		if err := c.updateStatus(ctx, d); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// newReplicaSetFor builds (without creating) the ReplicaSet for d's
// current template, sized for the strategy and annotated with newRevision.
func newReplicaSetFor(d *api.Deployment, oldRSs []*api.ReplicaSet, newRevision int64) (*api.ReplicaSet, error) {
	template := api.DeepCopyValue(d.Spec.Template)
	hash := controllerutil.ComputeHash(&template, d.Status.CollisionCount)
	template.Labels = withLabel(template.Labels, api.DefaultDeploymentUniqueLabelKey, hash)
	selector := api.DeepCopyValue(d.Spec.Selector)
	if selector == nil {
		selector = &api.LabelSelector{}
	}
	selector.MatchLabels = withLabel(selector.MatchLabels, api.DefaultDeploymentUniqueLabelKey, hash)

	zero := int32(0)
	rs := &api.ReplicaSet{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: api.ObjectMeta{
			// Deterministic, so two syncs (or two leaders) creating the
			// same revision collide on the name instead of duplicating it.
			Name:            d.Name + "-" + hash,
			Namespace:       d.Namespace,
			Labels:          withLabel(template.Labels, api.DefaultDeploymentUniqueLabelKey, hash),
			OwnerReferences: []api.OwnerReference{controllerutil.NewControllerRef(d, controllerAPIVersion, controllerKind)},
		},
		Spec: api.ReplicaSetSpec{
			Replicas:        &zero,
			MinReadySeconds: d.Spec.MinReadySeconds,
			Selector:        selector,
			Template:        template,
		},
	}
	count, err := newReplicaSetReplicas(d, append(slices.Clone(oldRSs), rs), rs)
	if err != nil {
		return nil, err
	}
	rs.Spec.Replicas = &count
	setNewReplicaSetAnnotations(d, rs, newRevision, false)
	return rs, nil
}

// bumpCollisionCount records a hash collision in d's status and returns
// createErr, so the key is retried and the next sync, hashing with the new
// count, tries another name.
func (c *Controller) bumpCollisionCount(ctx context.Context, d *api.Deployment, createErr error) error {
	var count int32
	if d.Status.CollisionCount != nil {
		count = *d.Status.CollisionCount
	}
	count++
	d.Status.CollisionCount = &count
	if err := c.updateStatus(ctx, d); err != nil {
		return errors.Join(createErr, err)
	}
	c.log.Info("hash collision; bumped collisionCount", "deployment", d.Namespace+"/"+d.Name, "collisionCount", count)
	return createErr
}

// withLabel returns a copy of m with key=value added.
func withLabel(m map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[key] = value
	return out
}

// apiMessage returns the apiserver's own message for an API error, or the
// error text.
func apiMessage(err error) string {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return se.Error()
	}
	return err.Error()
}

// syncStatusOnly refreshes the status of a Deployment being deleted,
// making no other change, as upstream.
func (c *Controller) syncStatusOnly(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet) error {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	return c.syncDeploymentStatus(ctx, append(oldRSs, newRS), newRS, d)
}

// syncScaleOnly handles a paused Deployment or a scaling event (upstream's
// sync): the ReplicaSets are resized (scale.go) but no rollout step is
// taken and no new ReplicaSet is created. A paused Deployment also has its
// history trimmed, since no rollout will do it.
func (c *Controller) syncScaleOnly(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet) error {
	dec := c.startDecision(d, rsList, sourceSync)
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	if err := c.scale(ctx, d, newRS, oldRSs, dec); err != nil {
		return err
	}
	if d.Spec.Paused {
		if err := c.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	if err := c.syncDeploymentStatus(ctx, append(oldRSs, newRS), newRS, d); err != nil {
		return err
	}
	c.record(dec)
	return nil
}

// isScalingEvent reports whether spec.replicas changed since the active
// ReplicaSets were last sized: their desired-replicas annotation remembers
// the size they were sized for. A scaling event is handled by scaling,
// even in the middle of a rollout, before the rollout goes on.
//
// Upstream also brings the revisions up to date here; kplane leaves that
// to the sync that follows (which does it anyway), because doing it twice
// from the same cached ReplicaSets makes the second write conflict.
func isScalingEvent(d *api.Deployment, rsList []*api.ReplicaSet) bool {
	for _, rs := range filterActive(rsList) {
		desired, ok := replicasAnnotation(rs, api.DeploymentDesiredReplicasAnnotation)
		if ok && desired != replicas(d.Spec.Replicas) {
			return true
		}
	}
	return false
}

// checkPausedConditions sets the Progressing condition to Unknown with
// reason DeploymentPaused when d is paused and DeploymentResumed when it
// is resumed, as upstream: the condition's new lastUpdateTime restarts the
// progress clock, so a Deployment paused longer than its deadline is not
// declared failed on resume. A timed-out rollout keeps its verdict.
func (c *Controller) checkPausedConditions(ctx context.Context, d *api.Deployment) error {
	if !hasProgressDeadline(d) {
		return nil
	}
	cond := getCondition(d.Status, api.DeploymentProgressing)
	if cond != nil && cond.Reason == reasonProgressDeadlineExceeded {
		return nil
	}
	pausedCondExists := cond != nil && cond.Reason == reasonDeploymentPaused
	switch {
	case d.Spec.Paused && !pausedCondExists:
		setCondition(&d.Status, newCondition(api.DeploymentProgressing, api.ConditionUnknown, reasonDeploymentPaused, "Deployment is paused", c.clock.Now()))
	case !d.Spec.Paused && pausedCondExists:
		setCondition(&d.Status, newCondition(api.DeploymentProgressing, api.ConditionUnknown, reasonDeploymentResumed, "Deployment is resumed", c.clock.Now()))
	default:
		return nil
	}
	return c.updateStatus(ctx, d)
}

// scaleReplicaSetAndRecordEvent sets rs's size to newScale if it differs
// and reports whether it did, with the updated ReplicaSet.
func (c *Controller) scaleReplicaSetAndRecordEvent(ctx context.Context, rs *api.ReplicaSet, newScale int32, d *api.Deployment) (bool, *api.ReplicaSet, error) {
	if specReplicas(rs) == newScale {
		return false, rs, nil
	}
	direction := "down"
	if specReplicas(rs) < newScale {
		direction = "up"
	}
	return c.scaleReplicaSet(ctx, rs, newScale, d, direction)
}

// scaleReplicaSet writes rs's new size and its desired/max-replicas
// annotations (an update with rs's resourceVersion, so a stale view
// conflicts and is retried) and records the ScalingReplicaSet event
// `kubectl describe deploy` shows, in upstream's current wording:
// "Scaled up replica set web-6b558d4747 from 0 to 4".
func (c *Controller) scaleReplicaSet(ctx context.Context, rs *api.ReplicaSet, newScale int32, d *api.Deployment, direction string) (bool, *api.ReplicaSet, error) {
	oldScale := specReplicas(rs)
	desired, maxTotal := replicas(d.Spec.Replicas), replicas(d.Spec.Replicas)+maxSurge(d)
	sizeChanged := oldScale != newScale
	probe := api.DeepCopy(rs)
	annotationsChanged := setReplicasAnnotations(probe, desired, maxTotal)
	if !sizeChanged && !annotationsChanged {
		return false, rs, nil
	}
	probe.Spec.Replicas = &newScale
	updated, err := c.client.ReplicaSets(probe.Namespace).Update(ctx, probe, client.UpdateOptions{})
	if err != nil {
		return false, rs, fmt.Errorf("scale replica set %s/%s to %d: %w", rs.Namespace, rs.Name, newScale, err)
	}
	if !sizeChanged {
		return false, updated, nil
	}
	c.log.Info("scaled replica set", "deployment", d.Namespace+"/"+d.Name, "replicaSet", rs.Name, "from", oldScale, "to", newScale)
	c.recorder.Eventf(d, api.EventTypeNormal, "ScalingReplicaSet", "Scaled %s replica set %s from %d to %d", direction, rs.Name, oldScale, newScale)
	return true, updated, nil
}

// updateRevision copies rev onto d's revision annotation. Upstream sends it
// together with the status (its status endpoint accepts annotations);
// kplane's status endpoint writes status only, so this is a metadata update
// of its own, with d's resourceVersion. d takes the stored metadata back,
// keeping its resourceVersion current for the writes that follow.
func (c *Controller) updateRevision(ctx context.Context, d *api.Deployment, rev string) error {
	if rev == "" || !setDeploymentRevision(d, rev) {
		return nil
	}
	updated, err := c.client.Deployments(d.Namespace).Update(ctx, d, client.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("update revision of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	d.ObjectMeta = updated.ObjectMeta
	return nil
}

// updateStatus writes d.Status and keeps d's resourceVersion current.
func (c *Controller) updateStatus(ctx context.Context, d *api.Deployment) error {
	updated, err := c.client.Deployments(d.Namespace).UpdateStatus(ctx, d, client.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("update status of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	d.ResourceVersion = updated.ResourceVersion
	return nil
}
