package deployment

// This file is the Recreate strategy: scale every old ReplicaSet to zero,
// wait until not one old pod is left (not even a terminating one), and
// only then create and scale up the new ReplicaSet. Old and new versions
// never run side by side, at the price of downtime.

import (
	"context"
	"slices"

	"kplane/pkg/api"
)

// rolloutRecreate makes one step of a Recreate rollout, as upstream's.
// The new ReplicaSet is not created before the old pods are gone, so that
// nothing is scaled up before everything is scaled down.
func (c *Controller) rolloutRecreate(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet, podMap map[string][]*api.Pod) error {
	dec := c.startDecision(d, rsList, sourceRecreate)
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	allRSs := append(slices.Clone(oldRSs), newRS)

	scaledDown, err := c.scaleDownOldReplicaSetsForRecreate(ctx, filterActive(oldRSs), d, dec)
	if err != nil {
		return err
	}
	if scaledDown {
		return c.finishRolloutStep(ctx, allRSs, newRS, d, dec)
	}

	// The pod deletions that end this wait enqueue the Deployment
	// (controller.go's deletePod).
	if oldPodsRunning(newRS, oldRSs, podMap) {
		dec.waitingForOldPods(newRS, oldRSs, podMap)
		return c.finishRolloutStep(ctx, allRSs, newRS, d, dec)
	}

	if newRS == nil {
		newRS, oldRSs, err = c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
		if err != nil {
			return err
		}
		allRSs = append(slices.Clone(oldRSs), newRS)
		dec.created(newRS, "every old pod is gone")
	}

	scaled, _, err := c.scaleReplicaSetAndRecordEvent(ctx, newRS, replicas(d.Spec.Replicas), d)
	if err != nil {
		return err
	}
	if scaled {
		dec.newRecreated(newRS, replicas(d.Spec.Replicas))
	}

	if deploymentComplete(d, &d.Status) {
		if err := c.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return c.finishRolloutStep(ctx, allRSs, newRS, d, dec)
}

// scaleDownOldReplicaSetsForRecreate scales every active old ReplicaSet to
// zero and reports whether it changed any.
func (c *Controller) scaleDownOldReplicaSetsForRecreate(ctx context.Context, oldRSs []*api.ReplicaSet, d *api.Deployment, dec *rolloutDecision) (bool, error) {
	scaled := false
	for _, rs := range oldRSs {
		if specReplicas(rs) == 0 {
			continue
		}
		changed, _, err := c.scaleReplicaSetAndRecordEvent(ctx, rs, 0, d)
		if err != nil {
			return false, err
		}
		if changed {
			dec.oldToZero(rs)
		}
		scaled = scaled || changed
	}
	return scaled, nil
}

// oldPodsRunning reports whether any old pod may still be running: an old
// ReplicaSet still reports pods, or the pod cache holds a pod of an old
// ReplicaSet that has not finished. Terminating pods count (they may still
// be serving until their grace period ends); Succeeded and Failed pods do
// not. This is upstream's oldPodsRunning.
func oldPodsRunning(newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet, podMap map[string][]*api.Pod) bool {
	if sumReplicaSets(oldRSs, func(rs *api.ReplicaSet) int32 { return rs.Status.Replicas }) > 0 {
		return true
	}
	for rsUID, pods := range podMap {
		if newRS != nil && newRS.UID == rsUID {
			continue
		}
		for _, pod := range pods {
			if pod.Status.Phase != api.PodSucceeded && pod.Status.Phase != api.PodFailed {
				return true
			}
		}
	}
	return false
}

// countOldPods counts the unfinished pods in podMap that are not the new
// ReplicaSet's: what oldPodsRunning waits for, in numbers.
func countOldPods(newRS *api.ReplicaSet, podMap map[string][]*api.Pod) int {
	n := 0
	for rsUID, pods := range podMap {
		if newRS != nil && newRS.UID == rsUID {
			continue
		}
		for _, pod := range pods {
			if pod.Status.Phase != api.PodSucceeded && pod.Status.Phase != api.PodFailed {
				n++
			}
		}
	}
	return n
}
