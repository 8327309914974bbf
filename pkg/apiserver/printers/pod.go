package printers

import (
	"fmt"
	"strconv"
	"time"

	"kplane/pkg/api"
)

// nodeLostReason is the status.reason the node lifecycle controller writes on
// the pods of a node that stopped reporting (upstream's
// NodeUnreachablePodReason).
const nodeLostReason = "NodeLost"

var podColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Ready", "How many of the pod's containers are ready, out of how many."),
	text("Status", "The pod's state summed up in a word: its phase, or why it is not running."),
	text("Restarts", "How often the pod's containers restarted, and when the last restart was."),
	ageColumn,
	wide(text("IP", "The pod's IP address.")),
	wide(text("Node", "The node the pod is bound to.")),
	wide(text("Nominated Node", "The node the scheduler preempted pods on to make room for this one.")),
	wide(text("Readiness Gates", "How many of the pod's readiness gates are True, out of how many.")),
}

// podCells is upstream's printPod: READY counts ready containers (sidecars
// included), STATUS is worked out by podStatus, RESTARTS adds when the last
// restart happened.
func podCells(pod *api.Pod, now time.Time) []any {
	s := summarizePod(pod)
	restarts := strconv.Itoa(s.restarts)
	if s.restarts != 0 && !s.lastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", s.restarts, since(s.lastRestart, now))
	}
	return []any{
		pod.Name,
		fmt.Sprintf("%d/%d", s.ready, s.total),
		s.status,
		restarts,
		age(pod.CreationTimestamp, now),
		orNone(podIP(pod)),
		orNone(pod.Spec.NodeName),
		orNone(pod.Status.NominatedNodeName),
		readinessGates(pod),
	}
}

// podSummary is what the READY, STATUS and RESTARTS columns show.
type podSummary struct {
	ready, total int       // READY: ready/total containers
	status       string    // STATUS
	restarts     int       // RESTARTS
	lastRestart  time.Time // when the most recent restart's container exited
}

// summarizePod works out a pod's READY, STATUS and RESTARTS the way upstream
// kubectl has printed them for years. STATUS starts from status.phase (or
// status.reason, e.g. "Evicted") and is then overridden, most specific last:
//
//  1. While an init container has not finished: "Init:N/M" (N init
//     containers done out of M), "Init:<reason>" when it is waiting for a
//     reason such as ImagePullBackOff, or "Init:Error"/"Init:ExitCode:1" when
//     it failed. Sidecars (init containers with restartPolicy Always) count
//     as done once started.
//  2. Otherwise the regular containers, last to first, so the first
//     container with something to say wins: a waiting reason
//     (ContainerCreating, CrashLoopBackOff, ImagePullBackOff), a terminated
//     reason (Completed, Error, OOMKilled) or "ExitCode:N"/"Signal:N". A pod
//     whose containers say "Completed" while another still runs is "Running"
//     if the pod is Ready and "NotReady" if not.
//  3. A pod being deleted is "Terminating" — or "Unknown" when its node is
//     lost — unless it already finished.
func summarizePod(pod *api.Pod) podSummary {
	s := podSummary{total: len(pod.Spec.Containers), status: string(pod.Status.Phase)}
	if pod.Status.Reason != "" {
		s.status = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == api.PodScheduled && c.Reason == api.PodReasonSchedulingGated {
			s.status = api.PodReasonSchedulingGated
		}
	}

	sidecars := make(map[string]bool)
	for _, c := range pod.Spec.InitContainers {
		if isSidecar(c) {
			sidecars[c.Name] = true
			s.total++
		}
	}

	// Restarts of every init container count while the pod initializes;
	// once it has, only sidecars keep counting, since the others are done.
	var sidecarRestarts int
	var sidecarLastRestart time.Time
	initializing := false
	for i, c := range pod.Status.InitContainerStatuses {
		s.restarts += int(c.RestartCount)
		s.lastRestart = later(s.lastRestart, c.LastTerminationState)
		if sidecars[c.Name] {
			sidecarRestarts += int(c.RestartCount)
			sidecarLastRestart = later(sidecarLastRestart, c.LastTerminationState)
		}
		switch term, wait := c.State.Terminated, c.State.Waiting; {
		case term != nil && term.ExitCode == 0:
			continue // finished successfully
		case sidecars[c.Name] && c.Started != nil && *c.Started:
			if c.Ready {
				s.ready++
			}
			continue // a running sidecar does not hold up the others
		case term != nil:
			s.status = "Init:" + terminatedReason(term)
		case wait != nil && wait.Reason != "" && wait.Reason != "PodInitializing":
			s.status = "Init:" + wait.Reason
		default:
			s.status = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		initializing = true
		break
	}

	if !initializing || hasPodCondition(pod, api.PodInitialized) {
		s.restarts, s.lastRestart = sidecarRestarts, sidecarLastRestart
		running := false
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			c := pod.Status.ContainerStatuses[i]
			s.restarts += int(c.RestartCount)
			s.lastRestart = later(s.lastRestart, c.LastTerminationState)
			switch term, wait := c.State.Terminated, c.State.Waiting; {
			case wait != nil && wait.Reason != "":
				s.status = wait.Reason
			case term != nil:
				s.status = terminatedReason(term)
			case c.Ready && c.State.Running != nil:
				running = true
				s.ready++
			}
		}
		if s.status == "Completed" && running {
			s.status = "NotReady"
			if hasPodCondition(pod, api.PodReady) {
				s.status = "Running"
			}
		}
	}

	if pod.DeletionTimestamp != nil {
		switch {
		case pod.Status.Reason == nodeLostReason:
			s.status = "Unknown"
		case pod.Status.Phase != api.PodSucceeded && pod.Status.Phase != api.PodFailed:
			s.status = "Terminating"
		}
	}
	return s
}

// isSidecar reports whether an init container is a sidecar: one with
// restartPolicy Always, which keeps running beside the regular containers.
func isSidecar(c api.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == api.ContainerRestartPolicyAlways
}

// terminatedReason names how a container ended: its reason ("Completed",
// "Error", "OOMKilled"), or else the signal or exit code that ended it.
func terminatedReason(t *api.ContainerStateTerminated) string {
	switch {
	case t.Reason != "":
		return t.Reason
	case t.Signal != 0:
		return fmt.Sprintf("Signal:%d", t.Signal)
	default:
		return fmt.Sprintf("ExitCode:%d", t.ExitCode)
	}
}

// later returns the later of t and the time the previous run of a container
// (its lastState) finished, which is when it last restarted.
func later(t time.Time, last api.ContainerState) time.Time {
	if last.Terminated != nil && last.Terminated.FinishedAt.After(t) {
		return last.Terminated.FinishedAt.Time
	}
	return t
}

// hasPodCondition reports whether the pod's condition of that type is True.
func hasPodCondition(pod *api.Pod, conditionType api.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == conditionType && c.Status == api.ConditionTrue {
			return true
		}
	}
	return false
}

// podIP returns the pod's first IP. Upstream reads status.podIPs; a pod
// written with only the older status.podIP still shows its address.
func podIP(pod *api.Pod) string {
	if len(pod.Status.PodIPs) > 0 {
		return pod.Status.PodIPs[0].IP
	}
	return pod.Status.PodIP
}

// readinessGates is the READINESS GATES cell: "<none>" without gates, else
// how many of the gated conditions are True, e.g. "1/2".
func readinessGates(pod *api.Pod) string {
	if len(pod.Spec.ReadinessGates) == 0 {
		return none
	}
	passed := 0
	for _, gate := range pod.Spec.ReadinessGates {
		if hasPodCondition(pod, gate.ConditionType) {
			passed++
		}
	}
	return fmt.Sprintf("%d/%d", passed, len(pod.Spec.ReadinessGates))
}
