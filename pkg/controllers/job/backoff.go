package job

import (
	"time"

	"kplane/pkg/api"
)

// The pod-failure back-off, upstream's DefaultJobPodFailureBackOff and
// MaxJobPodFailureBackOff: after the n-th failure in a row the next pod
// waits 10 s × 2^(n−1) — 10 s, 20 s, 40 s, … — but never more than 10
// minutes, so a Job that keeps failing does not hammer the cluster and a
// Job that fails once retries soon.
const (
	DefaultPodFailureBackOff = 10 * time.Second
	MaxPodFailureBackOff     = 10 * time.Minute
)

// failureBackOff is the delay after failures consecutive failures: zero
// for none, base × 2^(failures−1) capped at maxDelay otherwise.
func failureBackOff(failures int32, base, maxDelay time.Duration) time.Duration {
	if failures <= 0 {
		return 0
	}
	delay := base
	for i := int32(1); i < failures; i++ {
		delay *= 2
		if delay >= maxDelay {
			return maxDelay
		}
	}
	return min(delay, maxDelay)
}

// backOffRemaining is how long the Job must still wait before it creates
// a pod, given its pods and now. The count that drives the delay is the
// failures since the last success (a success resets it, as upstream's
// backoffRecord.failuresAfterLastSuccess), and the delay runs from the
// latest failure.
func backOffRemaining(pods []*api.Pod, now time.Time, base, maxDelay time.Duration) time.Duration {
	var lastSuccess, lastFailure time.Time
	for _, p := range pods {
		switch p.Status.Phase {
		case api.PodSucceeded:
			if t := finishTime(p); t.After(lastSuccess) {
				lastSuccess = t
			}
		case api.PodFailed:
			if t := finishTime(p); t.After(lastFailure) {
				lastFailure = t
			}
		}
	}
	var failures int32
	for _, p := range pods {
		if p.Status.Phase == api.PodFailed && finishTime(p).After(lastSuccess) {
			failures++
		}
	}
	if failures == 0 {
		return 0
	}
	remaining := lastFailure.Add(failureBackOff(failures, base, maxDelay)).Sub(now)
	return max(0, remaining)
}
