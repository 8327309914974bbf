package kubelet

// This file lists the Events the kubelet records, with upstream's reasons
// and message texts (pkg/kubelet/events and the places that use them), so
// `kubectl describe pod` on kplane reads like it does on a real node.

import (
	"fmt"

	"kplane/pkg/api"
)

// eventRecorder is the part of events.Recorder the kubelet uses; tests
// substitute a recorder that remembers events.
type eventRecorder interface {
	Event(obj api.Object, eventType, reason, message string)
	Eventf(obj api.Object, eventType, reason, format string, args ...any)
}

// Event reasons, as upstream's kubelet records them.
const (
	eventPulling            = "Pulling"
	eventPulled             = "Pulled"
	eventCreated            = "Created"
	eventStarted            = "Started"
	eventKilling            = "Killing"
	eventFailed             = "Failed"
	eventBackOff            = "BackOff"
	eventUnhealthy          = "Unhealthy"
	eventFailedSandbox      = "FailedCreatePodSandBox"
	eventDeadlineExceeded   = "DeadlineExceeded"
	eventStarting           = "Starting"
	eventNodeReady          = "NodeReady"
	eventAllocatableEnforce = "NodeAllocatableEnforced"
)

// Message texts, as upstream words them.
const (
	msgPulling            = "Pulling image %q"
	msgPulled             = "Successfully pulled image %q in %v (%v including waiting). Image size: %d bytes."
	msgAlreadyPresent     = "Container image %q already present on machine"
	msgCreated            = "Created container %s"
	msgStarted            = "Started container %s"
	msgStopping           = "Stopping container %s"
	msgBackOffEvent       = "Back-off restarting failed container %s in pod %s"
	msgCrashLoopBackOff   = "back-off %v restarting failed container=%s pod=%s"
	msgProbeFailed        = "%s probe failed: %s"
	msgProbeKill          = "Container %s failed %s probe"
	msgSpecChanged        = "Container %s definition changed"
	msgWillRestart        = ", will be restarted"
	msgDeadlineExceeded   = "Pod was active on the node longer than the specified deadline"
	msgStartingKubelet    = "Starting kubelet."
	msgNodeStatusIsNow    = "Node %s status is now: %s"
	msgAllocatableEnforce = "Updated Node Allocatable limit across pods"
)

// podDesc formats a pod the way upstream's format.Pod does in messages:
// "web-0_default(8d1f…)".
func podDesc(pod *api.Pod) string {
	return fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID)
}
