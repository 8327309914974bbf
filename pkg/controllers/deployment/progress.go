package deployment

// This file decides the Progressing condition during a rollout. A rollout
// is "progressing" while each sync sees some movement (new pods scaled up,
// old ones down, pods becoming ready or available); it "completed" when
// every replica is updated and available; it "failed" when nothing moved
// for progressDeadlineSeconds. `kubectl rollout status` prints the waiting
// messages from the counts and exits non-zero on ProgressDeadlineExceeded.

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"time"

	"kplane/pkg/api"
)

// syncRolloutStatus writes d's status after a rollout step, with the
// Progressing condition brought up to date, and, if the rollout may be
// stuck, schedules a sync for the moment its deadline passes: nothing else
// would wake the controller if no pod ever changes again.
func (c *Controller) syncRolloutStatus(ctx context.Context, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) error {
	now := c.clock.Now()
	newStatus := rolloutStatus(allRSs, newRS, d, now)
	if reflect.DeepEqual(d.Status, newStatus) {
		if after := progressCheckAfter(d, &newStatus, now); after >= 0 {
			// One second more so that the deadline has surely passed
			// (condition times have second precision). Upstream requeues
			// at once, rate-limited, when less than a second is left,
			// which can spin for that second; a plain delay cannot.
			c.enqueueAfter(d, after+time.Second)
		}
		return nil
	}
	d.Status = newStatus
	return c.updateStatus(ctx, d)
}

// rolloutStatus is calculateStatus plus the Progressing and ReplicaFailure
// conditions, as upstream's syncRolloutStatus computes them:
//
//   - no progress deadline: no Progressing condition at all;
//   - rollout already recorded complete and nothing new: leave it be;
//   - complete now (deploymentComplete): True, NewReplicaSetAvailable;
//   - some movement since the last status (deploymentProgressing): True,
//     ReplicaSetUpdated, with a fresh lastUpdateTime (the deadline clock
//     restarts) but the lastTransitionTime of an earlier True;
//   - no movement for progressDeadlineSeconds (deploymentTimedOut): False,
//     ProgressDeadlineExceeded.
//
// A ReplicaSet's ReplicaFailure condition (pods it cannot create) is
// copied up, the new ReplicaSet's first.
func rolloutStatus(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment, now time.Time) api.DeploymentStatus {
	newStatus := calculateStatus(allRSs, newRS, d, now)
	if !hasProgressDeadline(d) {
		removeCondition(&newStatus, api.DeploymentProgressing)
	}

	current := getCondition(d.Status, api.DeploymentProgressing)
	alreadyComplete := newStatus.Replicas == newStatus.UpdatedReplicas && current != nil && current.Reason == reasonNewReplicaSetAvailable
	if hasProgressDeadline(d) && !alreadyComplete {
		switch {
		case deploymentComplete(d, &newStatus):
			setCondition(&newStatus, newCondition(api.DeploymentProgressing, api.ConditionTrue, reasonNewReplicaSetAvailable,
				progressMessage(d, newRS, "has successfully progressed."), now))
		case deploymentProgressing(d, &newStatus):
			cond := newCondition(api.DeploymentProgressing, api.ConditionTrue, reasonReplicaSetUpdated,
				progressMessage(d, newRS, "is progressing."), now)
			// Unlike other conditions, Progressing is rewritten with the
			// same reason: its lastUpdateTime is the deadline's start.
			if current != nil {
				if current.Status == api.ConditionTrue {
					cond.LastTransitionTime = current.LastTransitionTime
				}
				removeCondition(&newStatus, api.DeploymentProgressing)
			}
			setCondition(&newStatus, cond)
		case deploymentTimedOut(d, &newStatus, now):
			setCondition(&newStatus, newCondition(api.DeploymentProgressing, api.ConditionFalse, reasonProgressDeadlineExceeded,
				progressMessage(d, newRS, "has timed out progressing."), now))
		}
	}

	if failure := replicaFailure(allRSs, newRS); failure != nil {
		setCondition(&newStatus, *failure)
	} else {
		removeCondition(&newStatus, api.DeploymentReplicaFailure)
	}
	return newStatus
}

// progressMessage names the new ReplicaSet ("ReplicaSet \"web-6b5\" is
// progressing.") or, without one, the Deployment.
func progressMessage(d *api.Deployment, newRS *api.ReplicaSet, what string) string {
	if newRS != nil {
		return fmt.Sprintf("ReplicaSet %q %s", newRS.Name, what)
	}
	return fmt.Sprintf("Deployment %q %s", d.Name, what)
}

// replicaFailure returns the first ReplicaFailure condition of the new
// ReplicaSet or, failing that, of any ReplicaSet, as a Deployment condition.
func replicaFailure(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet) *api.DeploymentCondition {
	for _, rss := range [][]*api.ReplicaSet{{newRS}, allRSs} {
		for _, rs := range rss {
			if rs == nil {
				continue
			}
			for _, c := range rs.Status.Conditions {
				if c.Type == api.ReplicaSetReplicaFailure {
					return &api.DeploymentCondition{
						Type:               api.DeploymentReplicaFailure,
						Status:             c.Status,
						LastUpdateTime:     c.LastTransitionTime,
						LastTransitionTime: c.LastTransitionTime,
						Reason:             c.Reason,
						Message:            c.Message,
					}
				}
			}
		}
	}
	return nil
}

// hasProgressDeadline reports whether d wants ProgressDeadlineExceeded
// reported; MaxInt32 means "never", as upstream.
func hasProgressDeadline(d *api.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// deploymentComplete: every desired replica is updated and available, no
// old one is left, and the status describes the current generation.
func deploymentComplete(d *api.Deployment, status *api.DeploymentStatus) bool {
	desired := replicas(d.Spec.Replicas)
	return status.UpdatedReplicas == desired &&
		status.Replicas == desired &&
		status.AvailableReplicas == desired &&
		status.ObservedGeneration >= d.Generation
}

// deploymentProgressing: compared with d's recorded status, more pods are
// updated, fewer old pods remain, or more pods are ready or available.
func deploymentProgressing(d *api.Deployment, status *api.DeploymentStatus) bool {
	old := d.Status
	oldOld := old.Replicas - old.UpdatedReplicas
	newOld := status.Replicas - status.UpdatedReplicas
	return status.UpdatedReplicas > old.UpdatedReplicas ||
		newOld < oldOld ||
		status.ReadyReplicas > old.ReadyReplicas ||
		status.AvailableReplicas > old.AvailableReplicas
}

// deploymentTimedOut: the Progressing condition was last updated more than
// progressDeadlineSeconds before now (or already says so). A completed
// rollout never times out.
func deploymentTimedOut(d *api.Deployment, status *api.DeploymentStatus, now time.Time) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	cond := getCondition(*status, api.DeploymentProgressing)
	if cond == nil || cond.Reason == reasonNewReplicaSetAvailable {
		return false
	}
	if cond.Reason == reasonProgressDeadlineExceeded {
		return true
	}
	deadline := cond.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
	return deadline.Before(now)
}

// progressCheckAfter returns when d's deadline passes if d's rollout is
// still running and might be stuck: the Progressing condition's
// lastUpdateTime + progressDeadlineSeconds − now. It returns -1 when no
// check is needed (no deadline, no condition yet, complete, already timed
// out). Upstream's requeueStuckDeployment.
func progressCheckAfter(d *api.Deployment, newStatus *api.DeploymentStatus, now time.Time) time.Duration {
	cond := getCondition(d.Status, api.DeploymentProgressing)
	if !hasProgressDeadline(d) || cond == nil {
		return -1
	}
	if deploymentComplete(d, newStatus) || cond.Reason == reasonProgressDeadlineExceeded {
		return -1
	}
	after := cond.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(now)
	return max(after, 0)
}
