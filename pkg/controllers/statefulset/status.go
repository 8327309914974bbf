package statefulset

// This file computes a StatefulSet's status from its pods, as upstream's
// updateStatefulSet and completeRollingUpdate do.

import (
	"time"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// computeStatus counts the set's pods: replicas (all of them), ready,
// available (ready for minReadySeconds at now), current and updated (pods
// at the current and update revision, not being deleted). Once every pod
// is updated and ready the update revision becomes the current one, which
// is what `kubectl rollout status` waits for.
//
// Upstream moves currentRevision only for RollingUpdate; kplane does it for
// OnDelete as well, once the user has replaced every pod, so that status
// says the same thing for both strategies.
func computeStatus(set *api.StatefulSet, pods []*api.Pod, currentRevision, updateRevision string, collisionCount int32, now time.Time) api.StatefulSetStatus {
	status := api.StatefulSetStatus{
		ObservedGeneration: set.Generation,
		CurrentRevision:    currentRevision,
		UpdateRevision:     updateRevision,
		CollisionCount:     &collisionCount,
		Conditions:         set.Status.Conditions,
	}
	for _, pod := range pods {
		status.Replicas++
		if isHealthy(pod) {
			status.ReadyReplicas++
			if controllerutil.IsPodAvailable(pod, set.Spec.MinReadySeconds, now) {
				status.AvailableReplicas++
			}
		}
		if isTerminating(pod) {
			continue
		}
		if revisionOf(pod) == currentRevision {
			status.CurrentReplicas++
		}
		if revisionOf(pod) == updateRevision {
			status.UpdatedReplicas++
		}
	}
	if status.UpdatedReplicas == status.Replicas && status.ReadyReplicas == status.Replicas {
		status.CurrentRevision = status.UpdateRevision
		status.CurrentReplicas = status.UpdatedReplicas
	}
	return status
}

// statusEqual reports whether writing b over a would change nothing.
func statusEqual(a, b api.StatefulSetStatus) bool {
	ac, bc := int32(0), int32(0)
	if a.CollisionCount != nil {
		ac = *a.CollisionCount
	}
	if b.CollisionCount != nil {
		bc = *b.CollisionCount
	}
	return a.ObservedGeneration == b.ObservedGeneration && a.Replicas == b.Replicas &&
		a.ReadyReplicas == b.ReadyReplicas && a.CurrentReplicas == b.CurrentReplicas &&
		a.UpdatedReplicas == b.UpdatedReplicas && a.AvailableReplicas == b.AvailableReplicas &&
		a.CurrentRevision == b.CurrentRevision && a.UpdateRevision == b.UpdateRevision &&
		ac == bc && (a.CollisionCount == nil) == (b.CollisionCount == nil)
}
