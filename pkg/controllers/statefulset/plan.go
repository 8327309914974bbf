package statefulset

// This file decides the next step of a StatefulSet, the heart of upstream's
// stateful_set_control.go (updateStatefulSet), as a pure function: given
// the set's pods it returns the pods to create and delete now. The sync
// carries them out; the pods' next events bring the set back for the step
// after.

import (
	"sort"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// actionType says what an action does to a pod.
type actionType string

const (
	// actionCreate creates the pod (and first its claims).
	actionCreate actionType = "create"
	// actionDelete deletes the pod.
	actionDelete actionType = "delete"
)

// action is one pod write the plan asks for.
type action struct {
	Type    actionType
	Ordinal int
	// Revision is the ControllerRevision a created pod is made from.
	Revision string
	// Pod is the pod to delete.
	Pod *api.Pod
	// Reason says why, for logs: "missing", "failed", "scale down",
	// "update".
	Reason string
}

// planInput is what plan needs to know about a set.
type planInput struct {
	// Replicas and Start give the wanted ordinals: Start … Start+Replicas-1.
	Replicas, Start int
	// Parallel is podManagementPolicy Parallel: no waiting between pods.
	Parallel bool
	// OnDelete is updateStrategy OnDelete: pods are never deleted to
	// update them; only the ones users delete come back updated.
	OnDelete bool
	// Partition is the RollingUpdate partition as an index from Start:
	// pods below it keep (and are recreated at) the current revision.
	Partition int
	// CurrentRevision and UpdateRevision are revision names.
	CurrentRevision, UpdateRevision string
	// Pods are the set's pods.
	Pods []*api.Pod
}

// isTerminating reports whether the pod is being deleted.
func isTerminating(pod *api.Pod) bool { return pod.DeletionTimestamp != nil }

// isHealthy is what OrderedReady waits for: Running, Ready and not being
// deleted.
func isHealthy(pod *api.Pod) bool {
	return pod.Status.Phase == api.PodRunning && controllerutil.IsPodReady(pod) && !isTerminating(pod)
}

// isFinished reports whether the pod's containers have all stopped for
// good; a set's pod must run, so such a pod is deleted and recreated.
func isFinished(pod *api.Pod) bool {
	return pod.Status.Phase == api.PodFailed || pod.Status.Phase == api.PodSucceeded
}

// splitPods sorts pods into the wanted slots (replicas[i] has ordinal
// Start+i, nil if missing) and the condemned ones beyond the range,
// highest ordinal first. Pods whose names have no ordinal are ignored.
func splitPods(in planInput) (replicas []*api.Pod, condemned []*api.Pod) {
	replicas = make([]*api.Pod, max(in.Replicas, 0))
	for _, pod := range in.Pods {
		ordinal := ordinalOf(pod)
		if ordinal < 0 {
			continue
		}
		if i := ordinal - in.Start; i >= 0 && i < len(replicas) {
			replicas[i] = pod
		} else {
			condemned = append(condemned, pod)
		}
	}
	sort.Slice(condemned, func(i, j int) bool { return ordinalOf(condemned[i]) > ordinalOf(condemned[j]) })
	return replicas, condemned
}

// revisionFor is the revision a new pod at index i (from Start) is made
// from: the current one below the partition of a rolling update, so that
// recreating a pod there does not update it; the update revision
// otherwise.
func revisionFor(in planInput, i int) string {
	if !in.OnDelete && i < in.Partition && in.CurrentRevision != "" {
		return in.CurrentRevision
	}
	return in.UpdateRevision
}

// plan returns the pod writes to make now. The order of the checks is
// upstream's:
//
//  1. Wanted slots, lowest ordinal first: create missing pods, delete
//     failed or succeeded ones. OrderedReady stops at the first slot that
//     needs anything or whose pod is not yet Running and Ready, so pods
//     come up one at a time, in order.
//  2. Condemned pods (scale down), highest ordinal first. OrderedReady
//     deletes one and waits for it to be gone.
//  3. RollingUpdate, highest ordinal first down to the partition: delete
//     the first pod not at the update revision (step 1 recreates it at the
//     update revision), and wait for every updated pod on the way to be
//     Running and Ready, one pod at a time in both policies.
func plan(in planInput) []action {
	replicas, condemned := splitPods(in)
	ordered := !in.Parallel
	var actions []action
	deleting := map[*api.Pod]bool{}

	for i, pod := range replicas {
		ordinal := in.Start + i
		switch {
		case pod == nil:
			actions = append(actions, action{Type: actionCreate, Ordinal: ordinal, Revision: revisionFor(in, i), Reason: "missing"})
			if ordered {
				return actions
			}
		case isTerminating(pod):
			// Its replacement comes once it is gone.
			if ordered {
				return actions
			}
		case isFinished(pod):
			actions = append(actions, action{Type: actionDelete, Ordinal: ordinal, Pod: pod, Reason: "failed"})
			deleting[pod] = true
			if ordered {
				return actions
			}
		case !isHealthy(pod):
			if ordered {
				return actions
			}
		}
	}

	for _, pod := range condemned {
		if isTerminating(pod) {
			if ordered {
				return actions
			}
			continue
		}
		actions = append(actions, action{Type: actionDelete, Ordinal: ordinalOf(pod), Pod: pod, Reason: "scale down"})
		deleting[pod] = true
		if ordered {
			return actions
		}
	}

	if in.OnDelete {
		return actions
	}
	for i := len(replicas) - 1; i >= max(in.Partition, 0); i-- {
		pod := replicas[i]
		if pod == nil || deleting[pod] {
			return actions // on its way; wait for it
		}
		if revisionOf(pod) != in.UpdateRevision && !isTerminating(pod) {
			return append(actions, action{Type: actionDelete, Ordinal: in.Start + i, Pod: pod, Reason: "update"})
		}
		if !isHealthy(pod) {
			return actions
		}
	}
	return actions
}
