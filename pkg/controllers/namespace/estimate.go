package namespace

// This file estimates how long a namespace's remaining content will take
// to go away, the number upstream's deleter returns as a
// ResourcesRemainingError and the controller turns into a requeue delay.

import (
	"time"

	"kplane/pkg/api"
)

// finalizerEstimateSeconds is upstream's guess for objects that remain
// because a finalizer holds them (the garbage collector's orphan or
// foregroundDeletion, say): look again in about 15 s.
const finalizerEstimateSeconds int64 = 15

// podTerminationEstimate returns how many seconds the pods of a namespace
// deleted at deletedAt may still take to stop: the longest
// terminationGracePeriodSeconds among pods that have not finished. Once
// that much time has passed since the namespace was deleted, the estimate
// is 0: whatever remains is no longer explained by graceful termination.
// This is upstream's estimateGracefulTerminationForPods together with the
// "duration >= allowedEstimate" cut-off of estimateGracefulTermination.
func podTerminationEstimate(pods []*api.Pod, deletedAt, now time.Time) int64 {
	var estimate int64
	for _, pod := range pods {
		if pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
			continue // finished pods have nothing left to stop
		}
		if g := pod.Spec.TerminationGracePeriodSeconds; g != nil && *g > estimate {
			estimate = *g
		}
	}
	if now.Sub(deletedAt) >= time.Duration(estimate)*time.Second {
		return 0
	}
	return estimate
}

// recheckDelay turns an estimate into the wait before the namespace is
// looked at again. Upstream waits estimate/2 + 1 seconds (16 s for pods with
// the default 30 s grace period); kplane caps that at maxDelay, because a
// simulated kubelet stops a pod within a second or two and a lesson should
// not sit idle for the rest of the estimate.
func recheckDelay(estimateSeconds int64, maxDelay time.Duration) time.Duration {
	d := time.Duration(estimateSeconds/2+1) * time.Second
	if maxDelay > 0 && d > maxDelay {
		return maxDelay
	}
	return d
}
