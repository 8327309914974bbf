package daemonset

import (
	"time"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// calculateStatus counts ds's pods against the nodes, as upstream's
// updateDaemonSetStatus. For every node that should run the pod:
//
//   - desiredNumberScheduled counts it;
//   - currentNumberScheduled counts it if it has a pod (being deleted or
//     not: a pod still counts until it is gone);
//   - of the node's oldest pod: numberReady if it is Ready, numberAvailable
//     if it has been Ready for minReadySeconds, updatedNumberScheduled if
//     it was made from the current template;
//
// and numberMisscheduled counts nodes that have a pod but should not run
// one. numberUnavailable is desired minus available. observedGeneration
// is raised to ds's generation only when the sync acted on it
// (observed); a sync that only waited for its expectations leaves it, so
// `kubectl rollout status` does not report a spec as done before the
// controller has looked at it.
func calculateStatus(ds *api.DaemonSet, nodes []*api.Node, byNode map[string][]*api.Pod, hash string, observed bool, now time.Time) api.DaemonSetStatus {
	status := api.DeepCopyValue(ds.Status)
	generation := templateGeneration(ds)
	var desired, current, misscheduled, ready, available, updated int32
	for _, node := range nodes {
		pods := activeForStatus(byNode[node.Name])
		scheduled := len(pods) > 0
		if !nodePlacement(node, ds).shouldRun {
			if scheduled {
				misscheduled++
			}
			continue
		}
		desired++
		if !scheduled {
			continue
		}
		current++
		sortOldestFirst(pods)
		pod := pods[0]
		if controllerutil.IsPodReady(pod) {
			ready++
			if controllerutil.IsPodAvailable(pod, ds.Spec.MinReadySeconds, now) {
				available++
			}
		}
		if isPodUpdated(pod, hash, generation) {
			updated++
		}
	}
	status.DesiredNumberScheduled = desired
	status.CurrentNumberScheduled = current
	status.NumberMisscheduled = misscheduled
	status.NumberReady = ready
	status.NumberAvailable = available
	status.UpdatedNumberScheduled = updated
	status.NumberUnavailable = desired - available
	if observed {
		status.ObservedGeneration = ds.Generation
	}
	return status
}

// activeForStatus drops the pods the status ignores, as upstream's
// getNodesToDaemonPods(includeDeletedTerminal=false): finished pods that
// are already being deleted.
func activeForStatus(pods []*api.Pod) []*api.Pod {
	var out []*api.Pod
	for _, pod := range pods {
		finished := pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed
		if finished && pod.DeletionTimestamp != nil {
			continue
		}
		out = append(out, pod)
	}
	return out
}

// statusEqual reports whether writing status over current would change
// nothing, so the steady state costs no API call.
func statusEqual(current, status api.DaemonSetStatus) bool {
	return current.DesiredNumberScheduled == status.DesiredNumberScheduled &&
		current.CurrentNumberScheduled == status.CurrentNumberScheduled &&
		current.NumberMisscheduled == status.NumberMisscheduled &&
		current.NumberReady == status.NumberReady &&
		current.NumberAvailable == status.NumberAvailable &&
		current.NumberUnavailable == status.NumberUnavailable &&
		current.UpdatedNumberScheduled == status.UpdatedNumberScheduled &&
		current.ObservedGeneration == status.ObservedGeneration &&
		int32Value(current.CollisionCount) == int32Value(status.CollisionCount) &&
		(current.CollisionCount == nil) == (status.CollisionCount == nil)
}

func int32Value(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
