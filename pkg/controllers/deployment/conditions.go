package deployment

// This file holds the Deployment conditions' reasons and the small helpers
// that read and write status.conditions the way upstream's deployment util
// does. kubectl reads these: `rollout status` fails on
// ProgressDeadlineExceeded, `describe` prints them.

import (
	"time"

	"kplane/pkg/api"
)

// Reasons of the Progressing and Available conditions, upstream's exact words.
const (
	// reasonNewReplicaSetCreated: this sync created the new ReplicaSet.
	reasonNewReplicaSetCreated = "NewReplicaSetCreated"
	// reasonFoundNewReplicaSet: the new ReplicaSet existed before the
	// Deployment had a Progressing condition (e.g. it was adopted).
	reasonFoundNewReplicaSet = "FoundNewReplicaSet"
	// reasonReplicaSetUpdated: the rollout made progress (pods scaled,
	// became ready or available) since the last sync.
	reasonReplicaSetUpdated = "ReplicaSetUpdated"
	// reasonNewReplicaSetAvailable: the rollout is complete.
	reasonNewReplicaSetAvailable = "NewReplicaSetAvailable"
	// reasonProgressDeadlineExceeded: no progress for progressDeadlineSeconds.
	reasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	// reasonReplicaSetCreateError: the new ReplicaSet could not be created.
	reasonReplicaSetCreateError = "ReplicaSetCreateError"
	// reasonDeploymentPaused and reasonDeploymentResumed mark pause and
	// resume, so that time spent paused never counts toward the deadline.
	reasonDeploymentPaused  = "DeploymentPaused"
	reasonDeploymentResumed = "DeploymentResumed"
	// reasonMinimumReplicasAvailable / Unavailable: at least (or fewer
	// than) replicas − maxUnavailable pods are available.
	reasonMinimumReplicasAvailable   = "MinimumReplicasAvailable"
	reasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
)

// newCondition returns a condition stamped at now (second precision, as
// stored timestamps are).
func newCondition(condType api.DeploymentConditionType, status api.ConditionStatus, reason, message string, now time.Time) api.DeploymentCondition {
	t := api.NewTime(now.UTC().Truncate(time.Second))
	return api.DeploymentCondition{
		Type:               condType,
		Status:             status,
		LastUpdateTime:     t,
		LastTransitionTime: t,
		Reason:             reason,
		Message:            message,
	}
}

// getCondition returns a copy of status's condition of condType, or nil.
func getCondition(status api.DeploymentStatus, condType api.DeploymentConditionType) *api.DeploymentCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == condType {
			c := status.Conditions[i]
			return &c
		}
	}
	return nil
}

// setCondition puts cond into status, as upstream's SetDeploymentCondition:
// a condition with the same status and reason is left alone (its times
// stay), a change of reason keeps lastTransitionTime when the status does
// not change, and the condition moves to the end of the list.
func setCondition(status *api.DeploymentStatus, cond api.DeploymentCondition) {
	current := getCondition(*status, cond.Type)
	if current != nil && current.Status == cond.Status && current.Reason == cond.Reason {
		return
	}
	if current != nil && current.Status == cond.Status {
		cond.LastTransitionTime = current.LastTransitionTime
	}
	status.Conditions = append(withoutCondition(status.Conditions, cond.Type), cond)
}

// removeCondition drops status's condition of condType.
func removeCondition(status *api.DeploymentStatus, condType api.DeploymentConditionType) {
	status.Conditions = withoutCondition(status.Conditions, condType)
}

// withoutCondition returns a new slice of the conditions not of condType.
func withoutCondition(conds []api.DeploymentCondition, condType api.DeploymentConditionType) []api.DeploymentCondition {
	var out []api.DeploymentCondition
	for _, c := range conds {
		if c.Type != condType {
			out = append(out, c)
		}
	}
	return out
}
