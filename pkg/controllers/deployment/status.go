package deployment

// This file computes a Deployment's status from its ReplicaSets' statuses.
// The deployment controller never looks at pods for this: the ReplicaSet
// controller counts them, and a Deployment's numbers are sums over its
// ReplicaSets. `kubectl get deploy` prints them as READY (readyReplicas/
// spec.replicas), UP-TO-DATE (updatedReplicas) and AVAILABLE.

import (
	"context"
	"reflect"
	"time"

	"kplane/pkg/api"
)

// calculateStatus returns the status d should have given its ReplicaSets
// (newRS may be nil, and so may entries of allRSs), as upstream's
// calculateStatus: counts summed over the ReplicaSets, observedGeneration
// set to the generation this sync acted on, collisionCount carried over,
// existing conditions copied, and the Available condition recomputed.
// Progressing is the business of syncRolloutStatus (progress.go).
func calculateStatus(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment, now time.Time) api.DeploymentStatus {
	available := sumReplicaSets(allRSs, func(rs *api.ReplicaSet) int32 { return rs.Status.AvailableReplicas })
	// Unavailable is measured against what the ReplicaSets are asked to
	// run (their spec.replicas), as upstream does; more available than
	// asked (during a scale down) is not negative unavailability.
	unavailable := max(sumReplicaSets(allRSs, specReplicas)-available, 0)

	status := api.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            sumReplicaSets(allRSs, func(rs *api.ReplicaSet) int32 { return rs.Status.Replicas }),
		UpdatedReplicas:     sumReplicaSets([]*api.ReplicaSet{newRS}, func(rs *api.ReplicaSet) int32 { return rs.Status.Replicas }),
		ReadyReplicas:       sumReplicaSets(allRSs, func(rs *api.ReplicaSet) int32 { return rs.Status.ReadyReplicas }),
		AvailableReplicas:   available,
		UnavailableReplicas: unavailable,
		CollisionCount:      d.Status.CollisionCount,
	}
	// Copy, so that setting a condition never writes into the cache.
	status.Conditions = append([]api.DeploymentCondition(nil), d.Status.Conditions...)

	if available >= replicas(d.Spec.Replicas)-maxUnavailable(d) {
		setCondition(&status, newCondition(api.DeploymentAvailable, api.ConditionTrue,
			reasonMinimumReplicasAvailable, "Deployment has minimum availability.", now))
	} else {
		setCondition(&status, newCondition(api.DeploymentAvailable, api.ConditionFalse,
			reasonMinimumReplicasUnavailable, "Deployment does not have minimum availability.", now))
	}
	return status
}

// syncDeploymentStatus writes d's recomputed status if it changed. It is
// used outside rollouts (scaling, paused, being deleted), where progress is
// not estimated.
func (c *Controller) syncDeploymentStatus(ctx context.Context, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) error {
	newStatus := calculateStatus(allRSs, newRS, d, c.clock.Now())
	if reflect.DeepEqual(d.Status, newStatus) {
		return nil
	}
	d.Status = newStatus
	return c.updateStatus(ctx, d)
}
