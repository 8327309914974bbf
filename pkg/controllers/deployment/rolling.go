package deployment

// This file is the RollingUpdate strategy. Each sync takes at most one of
// two steps and then waits for the ReplicaSets' status to move:
//
//   - scale the new ReplicaSet up, as far as "all pods, asked for or still
//     there, ≤ replicas + maxSurge" allows (newReplicaSetReplicas);
//   - otherwise scale the old ReplicaSets down, as far as "available pods ≥
//     replicas − maxUnavailable" allows, getting rid of old pods that are
//     not available anyway first.
//
// The pure functions below compute the sizes; the methods write them.
// docs/controllers/deployment.md works through 10 replicas at 25%/25%.

import (
	"context"
	"fmt"
	"slices"

	"kplane/pkg/api"
)

// rolloutRolling makes one step of a rolling update, as upstream's
// rolloutRolling: scale up if possible, else scale down if possible, else
// (the rollout is complete) trim the history; then report status and
// progress.
func (c *Controller) rolloutRolling(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet) error {
	dec := c.startDecision(d, rsList, sourceRolling)
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
	if err != nil {
		return err
	}
	allRSs := append(slices.Clone(oldRSs), newRS)
	dec.createdRolling(newRS, oldRSs)

	scaledUp, err := c.reconcileNewReplicaSet(ctx, allRSs, newRS, d, dec)
	if err != nil {
		return err
	}
	if scaledUp {
		return c.finishRolloutStep(ctx, allRSs, newRS, d, dec)
	}

	scaledDown, err := c.reconcileOldReplicaSets(ctx, allRSs, filterActive(oldRSs), newRS, d, dec)
	if err != nil {
		return err
	}
	if scaledDown {
		return c.finishRolloutStep(ctx, allRSs, newRS, d, dec)
	}

	if deploymentComplete(d, &d.Status) {
		if err := c.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return c.finishRolloutStep(ctx, allRSs, newRS, d, dec)
}

// finishRolloutStep writes the status after a rollout step and records
// what the step decided, the status's verdict (complete, timed out)
// included. The decision is recorded even when the status write fails (a
// conflict, say): the ReplicaSets were already scaled, and a journal that
// skipped the step would show the next one starting from sizes no
// decision explains.
func (c *Controller) finishRolloutStep(ctx context.Context, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment, dec *rolloutDecision) error {
	err := c.syncRolloutStatus(ctx, allRSs, newRS, d)
	c.record(dec)
	return err
}

// reconcileNewReplicaSet scales the new ReplicaSet toward spec.replicas:
// down at once if it is too big, up as far as the surge allows.
func (c *Controller) reconcileNewReplicaSet(ctx context.Context, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment, dec *rolloutDecision) (bool, error) {
	desired := replicas(d.Spec.Replicas)
	if specReplicas(newRS) == desired {
		return false, nil
	}
	if specReplicas(newRS) > desired {
		scaled, _, err := c.scaleReplicaSetAndRecordEvent(ctx, newRS, desired, d)
		if scaled {
			dec.newTooBig(newRS, desired)
		}
		return scaled, err
	}
	count, err := newReplicaSetReplicas(d, allRSs, newRS)
	if err != nil {
		return false, err
	}
	scaled, _, err := c.scaleReplicaSetAndRecordEvent(ctx, newRS, count, d)
	if err == nil {
		dec.newScaleUp(allRSs, newRS, count)
	}
	return scaled, err
}

// newReplicaSetReplicas is the size the new ReplicaSet may have now, as
// upstream's NewRSNewReplicas except for what counts as a pod.
//
// RollingUpdate: the pods of all ReplicaSets may total replicas + maxSurge
// (maxSurge resolved against replicas, a percentage rounded up; unset is
// 0). Each ReplicaSet counts max(spec.replicas, status.replicas): a pod
// asked for but not created yet counts (spec ahead of status), and so does
// a pod an old ReplicaSet was just scaled away from but still has (status
// ahead of spec, until the ReplicaSet controller has deleted it and
// written its status). Upstream sums spec.replicas only, so its pods may
// briefly exceed replicas + maxSurge; kplane keeps the pods that exist
// within it. The new ReplicaSet grows by
//
//	min(replicas + maxSurge − counted, replicas − new.spec.replicas)
//
// and keeps its size when nothing is left. With 10 replicas at 25%
// (maxSurge 3), the new ReplicaSet at 3 and the old one just scaled 10 → 8
// but still holding 10 pods: counted 10 + 3 = 13, no room; once the old
// one is down to 8 pods, counted 11, the new one goes to 3 + min(2, 7) = 5.
// A new Deployment (no old ReplicaSet, the new one empty) gets all of
// replicas at once: min(replicas + maxSurge − 0, replicas − 0).
//
// Recreate: all of replicas (the old pods are gone by the time it is
// called).
func newReplicaSetReplicas(d *api.Deployment, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet) (int32, error) {
	desired := replicas(d.Spec.Replicas)
	switch d.Spec.Strategy.Type {
	case api.RollingUpdateDeploymentStrategyType:
		surgeValue, _ := rollingParams(d)
		if surgeValue == nil {
			zero := api.FromInt(0)
			surgeValue = &zero
		}
		surge, err := api.ScaledValueFromIntOrPercent(surgeValue, int(desired), true)
		if err != nil {
			return 0, fmt.Errorf("deployment %s/%s: maxSurge: %w", d.Namespace, d.Name, err)
		}
		counted := podsCounted(allRSs)
		maxTotal := desired + int32(surge)
		if counted >= maxTotal {
			return specReplicas(newRS), nil
		}
		scaleUp := min(maxTotal-counted, desired-specReplicas(newRS))
		return specReplicas(newRS) + scaleUp, nil
	case api.RecreateDeploymentStrategyType:
		return desired, nil
	}
	return 0, fmt.Errorf("deployment %s/%s: strategy type %q is not supported", d.Namespace, d.Name, d.Spec.Strategy.Type)
}

// podsCounted is how many pods the ReplicaSets count against replicas +
// maxSurge: each max(spec.replicas, status.replicas), see
// newReplicaSetReplicas.
func podsCounted(rss []*api.ReplicaSet) int32 {
	return sumReplicaSets(rss, func(rs *api.ReplicaSet) int32 {
		return max(specReplicas(rs), rs.Status.Replicas)
	})
}

// reconcileOldReplicaSets scales the old ReplicaSets down as far as
// availability allows, as upstream's reconcileOldReplicaSets: first the
// unavailable pods of old ReplicaSets (removing them costs no
// availability, and keeping them could block the rollout forever), then
// available ones while at least replicas − maxUnavailable stay available.
func (c *Controller) reconcileOldReplicaSets(ctx context.Context, allRSs, oldRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment, dec *rolloutDecision) (bool, error) {
	if sumReplicaSets(oldRSs, specReplicas) == 0 {
		return false, nil // nothing left to scale down
	}
	budget := maxScaledDown(d, allRSs, newRS)
	dec.oldBudget(allRSs, newRS, budget)
	if budget <= 0 {
		return false, nil
	}
	c.log.Debug("scaling down old replica sets", "deployment", d.Namespace+"/"+d.Name, "maxScaledDown", budget)

	oldRSs = slices.Clone(oldRSs)
	slices.SortStableFunc(oldRSs, compareCreation)
	var total int32
	for _, step := range unhealthyCleanupSteps(oldRSs, budget) {
		rs := oldRSs[step.index]
		c.log.Debug("cleaning up unhealthy replicas", "deployment", d.Namespace+"/"+d.Name, "replicaSet", rs.Name,
			"spec", specReplicas(rs), "available", rs.Status.AvailableReplicas, "to", step.to)
		_, updated, err := c.scaleReplicaSetAndRecordEvent(ctx, rs, step.to, d)
		if err != nil {
			return false, err
		}
		dec.oldUnhealthyRemoved(rs, step.to)
		total += specReplicas(rs) - step.to
		oldRSs[step.index] = updated
	}

	allAfterCleanup := append(slices.Clone(oldRSs), newRS)
	for _, step := range rollingScaleDownSteps(d, allAfterCleanup, oldRSs) {
		rs := oldRSs[step.index]
		c.log.Debug("scaling down for the rollout", "deployment", d.Namespace+"/"+d.Name, "replicaSet", rs.Name,
			"spec", specReplicas(rs), "available", rs.Status.AvailableReplicas,
			"newAvailable", newRS.Status.AvailableReplicas, "to", step.to)
		if _, _, err := c.scaleReplicaSetAndRecordEvent(ctx, rs, step.to, d); err != nil {
			return false, err
		}
		dec.oldScaledDown(allAfterCleanup, rs, step.to)
		total += specReplicas(rs) - step.to
	}
	return total > 0, nil
}

// maxScaledDown is how many old pods one step may remove at most:
// all pods asked for − the minimum available − the new ReplicaSet's pods
// that are not available yet. Counting those last ones is what stops a
// rollout of a broken template from eating into the old, working pods: a
// crash-looping new ReplicaSet uses up the whole budget itself.
func maxScaledDown(d *api.Deployment, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet) int32 {
	minAvailable := replicas(d.Spec.Replicas) - maxUnavailable(d)
	return sumReplicaSets(allRSs, specReplicas) - minAvailable - newUnavailable(newRS)
}

// newUnavailable is how many pods the new ReplicaSet asks for that are not
// available yet (0 without one).
func newUnavailable(newRS *api.ReplicaSet) int32 {
	if newRS == nil {
		return 0
	}
	return specReplicas(newRS) - newRS.Status.AvailableReplicas
}

// scaleStep sets the ReplicaSet at index of the slice it was computed for
// to size to.
type scaleStep struct {
	index int
	to    int32
}

// unhealthyCleanupSteps removes old ReplicaSets' unavailable replicas
// (spec.replicas − status.availableReplicas), oldest ReplicaSet first, up
// to budget in all, as upstream's cleanupUnhealthyReplicas. The ReplicaSet
// controller deletes not-ready pods first on a scale down, so these are
// the pods that go.
func unhealthyCleanupSteps(oldRSs []*api.ReplicaSet, budget int32) []scaleStep {
	var steps []scaleStep
	var total int32
	for i, rs := range oldRSs {
		if total >= budget {
			break
		}
		size := specReplicas(rs)
		unhealthy := size - rs.Status.AvailableReplicas
		if size == 0 || unhealthy <= 0 {
			continue
		}
		down := min(budget-total, unhealthy)
		steps = append(steps, scaleStep{index: i, to: size - down})
		total += down
	}
	return steps
}

// availableCounted is how many available pods the ReplicaSets have for the
// scale-down budget. A ReplicaSet's available pods count only up to its
// spec.replicas: the ones above it are being deleted. Its status can still
// count them for a moment after a scale-down (the ReplicaSet controller
// has not synced since), and trusting that would scale down twice for the
// same pods.
func availableCounted(rss []*api.ReplicaSet) int32 {
	return sumReplicaSets(rss, func(rs *api.ReplicaSet) int32 {
		return min(rs.Status.AvailableReplicas, specReplicas(rs))
	})
}

// rollingScaleDownSteps scales old ReplicaSets down, oldest first, by as
// many pods as are available beyond replicas − maxUnavailable, as
// upstream's scaleDownOldReplicaSetsForRollingUpdate. allRSs supplies the
// available count (old and new); oldRSs are the ones to shrink.
func rollingScaleDownSteps(d *api.Deployment, allRSs, oldRSs []*api.ReplicaSet) []scaleStep {
	minAvailable := replicas(d.Spec.Replicas) - maxUnavailable(d)
	available := availableCounted(allRSs)
	if available <= minAvailable {
		return nil
	}
	budget := available - minAvailable
	order := make([]int, len(oldRSs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareCreation(oldRSs[a], oldRSs[b]) })

	var steps []scaleStep
	var total int32
	for _, i := range order {
		if total >= budget {
			break
		}
		size := specReplicas(oldRSs[i])
		if size == 0 {
			continue
		}
		down := min(size, budget-total)
		steps = append(steps, scaleStep{index: i, to: size - down})
		total += down
	}
	return steps
}
