package job

// This file sorts a Job's pods into what they mean for it and works out how
// many pods should run. It is pure: no API, no clock, so the arithmetic is
// tested by table (step_test.go).

import (
	"sort"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// podCounts is a Job's pods sorted by what they mean for it.
type podCounts struct {
	// active are the pods that are Pending or Running and not being
	// deleted: the ones doing (or about to do) the Job's work.
	active []*api.Pod
	// terminating counts pods being deleted that have not finished yet;
	// upstream waits for them before it declares the Job finished. (How
	// they end is counted by tracking.go: as failed.)
	terminating int32
	// ready counts the active pods whose Ready condition is True.
	ready int32
}

// countPods sorts pods (already claimed by the Job) into podCounts. It
// does not count finished pods: status.succeeded and status.failed are
// kept by tracking.go, pod by pod, because finished pods may be deleted
// at any time and what is visible is no count.
func countPods(pods []*api.Pod) podCounts {
	var c podCounts
	for _, p := range pods {
		switch {
		case p.Status.Phase == api.PodSucceeded, p.Status.Phase == api.PodFailed:
			// finished: counted through the tracking finalizer
		case p.DeletionTimestamp != nil:
			c.terminating++
		default:
			c.active = append(c.active, p)
			if controllerutil.IsPodReady(p) {
				c.ready++
			}
		}
	}
	return c
}

// wantActive is how many pods should be active, upstream's rule:
//   - with completions set, never more than the completions still missing,
//     and never more than parallelism;
//   - without completions (a work queue), parallelism until one pod
//     succeeds; from then on no new pod starts and the running ones are
//     left to finish.
func wantActive(parallelism int32, completions *int32, succeeded, active int32) int32 {
	if completions == nil {
		if succeeded > 0 {
			return active
		}
		return parallelism
	}
	return max(0, min(parallelism, *completions-succeeded))
}

// podsToDelete picks the n active pods to delete when a Job has too many
// (parallelism lowered): the least valuable first, as a ReplicaSet would
// choose (not yet scheduled, pending, not ready, newest).
func podsToDelete(active []*api.Pod, n int) []*api.Pod {
	if n <= 0 {
		return nil
	}
	ranked := controllerutil.ActivePodsWithRanks{Pods: append([]*api.Pod(nil), active...), Rank: make([]int, len(active))}
	sort.Sort(ranked)
	return ranked.Pods[:min(n, len(ranked.Pods))]
}

// restartCount sums the restarts of the containers (init containers
// included) of the pods that are still Pending or Running: with
// restartPolicy OnFailure the kubelet restarts a failed container in place,
// so these restarts are the Job's failures (upstream's
// pastBackoffLimitOnFailure).
func restartCount(pods []*api.Pod) int32 {
	var n int32
	for _, p := range pods {
		if p.Status.Phase != api.PodRunning && p.Status.Phase != api.PodPending {
			continue
		}
		for _, s := range p.Status.InitContainerStatuses {
			n += s.RestartCount
		}
		for _, s := range p.Status.ContainerStatuses {
			n += s.RestartCount
		}
	}
	return n
}

// finishTime is when a finished pod finished: its containers' latest
// finishedAt, else when its Ready condition last changed, else when it was
// created (upstream's getFinishedTime, which the back-off counts from).
func finishTime(p *api.Pod) time.Time {
	var latest time.Time
	for _, s := range p.Status.ContainerStatuses {
		if t := s.State.Terminated; t != nil && t.FinishedAt.After(latest) {
			latest = t.FinishedAt.Time
		}
	}
	if !latest.IsZero() {
		return latest
	}
	if c := controllerutil.GetPodReadyCondition(p); c != nil && !c.LastTransitionTime.IsZero() {
		return c.LastTransitionTime.Time
	}
	return p.CreationTimestamp.Time
}
