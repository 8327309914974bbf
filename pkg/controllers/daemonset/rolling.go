package daemonset

import (
	"fmt"
	"sort"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// maxUnavailable is how many of the desiredNumberScheduled nodes a
// RollingUpdate may leave without an available pod: spec.updateStrategy.
// rollingUpdate.maxUnavailable, a percentage rounded up, and 1 if that
// comes out 0 (upstream falls back to 1 when both maxUnavailable and
// maxSurge are 0; kplane does not implement maxSurge, so it always falls
// back). OnDelete has no budget: it never deletes pods for an update.
func maxUnavailable(ds *api.DaemonSet, desired int) (int, error) {
	strategy := ds.Spec.UpdateStrategy
	if strategy.Type == api.OnDeleteDaemonSetStrategyType {
		return 0, nil
	}
	n := 1
	if strategy.RollingUpdate != nil && strategy.RollingUpdate.MaxUnavailable != nil {
		v, err := api.ScaledValueFromIntOrPercent(strategy.RollingUpdate.MaxUnavailable, desired, true)
		if err != nil {
			return 0, fmt.Errorf("invalid maxUnavailable: %w", err)
		}
		n = v
	}
	if n == 0 && desired > 0 {
		n = 1
	}
	return n, nil
}

// rollingUpdateVictims picks the old pods a RollingUpdate deletes now; the
// next sync's planNodes then creates their replacements from the current
// template. It is upstream's rollingUpdate without surge:
//
//   - a node counts as unavailable when its updated pod is not available
//     yet, when it has no pod or both an old and a new one (planNodes is
//     still at work there), or when its pods cannot be told apart (more
//     than one of a kind);
//   - an old pod that is not available anyway is replaced at once: deleting
//     it costs no availability;
//   - available old pods are deleted, in node name order, while fewer than
//     maxUnavailable nodes are unavailable.
//
// byNode are ds's pods by node; hash and generation identify the current
// template (isPodUpdated).
func rollingUpdateVictims(byNode map[string][]*api.Pod, hash string, generation int64, maxUnavailable int, minReadySeconds int32, now time.Time) []*api.Pod {
	nodes := make([]string, 0, len(byNode))
	for name := range byNode {
		nodes = append(nodes, name)
	}
	sort.Strings(nodes)

	unavailable := 0
	var victims, candidates []*api.Pod
	for _, name := range nodes {
		newPod, oldPod, ok := splitByRevision(byNode[name], hash, generation)
		switch {
		case !ok, newPod == nil && oldPod == nil, newPod != nil && oldPod != nil:
			unavailable++
		case newPod != nil:
			if !controllerutil.IsPodAvailable(newPod, minReadySeconds, now) {
				unavailable++
			}
		case !controllerutil.IsPodAvailable(oldPod, minReadySeconds, now):
			victims = append(victims, oldPod)
		default:
			candidates = append(candidates, oldPod)
		}
	}
	budget := min(max(maxUnavailable-unavailable, 0), len(candidates))
	return append(victims, candidates[:budget]...)
}

// splitByRevision returns a node's live (not being deleted) updated pod
// and old pod; ok is false when there is more than one of either
// (upstream's findUpdatedPodsOnNode).
func splitByRevision(pods []*api.Pod, hash string, generation int64) (newPod, oldPod *api.Pod, ok bool) {
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		if isPodUpdated(pod, hash, generation) {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = pod
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = pod
		}
	}
	return newPod, oldPod, true
}
