package controllerutil

import (
	"time"

	"kplane/pkg/api"
)

// IsPodActive reports whether pod still counts toward its owner's replicas:
// it has not finished (Succeeded or Failed) and is not being deleted.
func IsPodActive(pod *api.Pod) bool {
	return pod.Status.Phase != api.PodSucceeded &&
		pod.Status.Phase != api.PodFailed &&
		pod.DeletionTimestamp == nil
}

// FilterActivePods returns the pods that IsPodActive.
func FilterActivePods(pods []*api.Pod) []*api.Pod {
	var active []*api.Pod
	for _, p := range pods {
		if IsPodActive(p) {
			active = append(active, p)
		}
	}
	return active
}

// GetPodReadyCondition returns pod's Ready condition, or nil.
func GetPodReadyCondition(pod *api.Pod) *api.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == api.PodReady {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// IsPodReady reports whether pod's Ready condition is True.
func IsPodReady(pod *api.Pod) bool {
	c := GetPodReadyCondition(pod)
	return c != nil && c.Status == api.ConditionTrue
}

// IsPodAvailable reports whether pod has been ready for at least
// minReadySeconds at now — the "AVAILABLE" of a Deployment or ReplicaSet.
// With minReadySeconds 0 a ready pod is available at once.
func IsPodAvailable(pod *api.Pod, minReadySeconds int32, now time.Time) bool {
	c := GetPodReadyCondition(pod)
	if c == nil || c.Status != api.ConditionTrue {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	minReady := time.Duration(minReadySeconds) * time.Second
	return !c.LastTransitionTime.IsZero() && c.LastTransitionTime.Add(minReady).Before(now)
}
