package kubelet

// This file turns what the kubelet knows about a pod's containers into the
// API's PodStatus: container statuses, the phase, and the conditions the
// kubelet owns. It is pure (no clocks, no goroutines) so that the rules,
// which follow upstream's kubelet_pods.go and status/generate.go, can be
// tested as tables.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"kplane/pkg/api"
)

// Waiting reasons the kubelet reports, as upstream spells them.
const (
	reasonContainerCreating = "ContainerCreating"
	reasonPodInitializing   = "PodInitializing"
	reasonCrashLoopBackOff  = "CrashLoopBackOff"
	// reasonContainerStatusUnknown is the terminated reason of a container
	// the kubelet lost track of (here: across a kubelet restart, with a
	// runtime that cannot adopt running containers).
	reasonContainerStatusUnknown = "ContainerStatusUnknown"
)

// Condition reasons of the kubelet's pod conditions (status/generate.go).
const (
	reasonPodCompleted             = "PodCompleted"
	reasonPodFailed                = "PodFailed"
	reasonContainersNotReady       = "ContainersNotReady"
	reasonContainersNotInitialized = "ContainersNotInitialized"
	reasonReadinessGatesNotReady   = "ReadinessGatesNotReady"
)

// kubeletConditionTypes are the pod conditions the kubelet writes; any other
// condition (DisruptionTarget, a readiness gate's) belongs to someone else
// and is kept as it is.
var kubeletConditionTypes = []api.PodConditionType{
	api.PodReadyToStartContainers, api.PodInitialized, api.PodReady, api.ContainersReady, api.PodScheduled,
}

func isKubeletCondition(t api.PodConditionType) bool {
	for _, k := range kubeletConditionTypes {
		if k == t {
			return true
		}
	}
	return false
}

// containerStatusFor is the API status of one container from the kubelet's
// state of it (nil: never started). defaultReason is the waiting reason of
// a container not yet started: ContainerCreating, or PodInitializing when
// the pod has init containers. isInit is set for an ordinary (not sidecar)
// init container.
func containerStatusFor(spec *api.Container, st *containerState, defaultReason string, isInit bool) api.ContainerStatus {
	status := api.ContainerStatus{Name: spec.Name, Image: normalizeImage(spec.Image), ImageID: imageID(spec.Image)}
	notStarted := false
	status.Started = &notStarted
	if st == nil || st.current == nil {
		status.State.Waiting = &api.ContainerStateWaiting{Reason: defaultReason}
		return status
	}
	status.RestartCount = st.restartCount
	run := st.current
	status.ContainerID = run.id
	if run.image != "" {
		status.Image = normalizeImage(run.image)
		status.ImageID = imageID(run.image)
	}
	switch {
	case run.terminated == nil:
		status.State.Running = &api.ContainerStateRunning{StartedAt: api.NewTime(run.startedAt)}
		status.LastTerminationState.Terminated = st.lastTermination
		started := run.probes.isStarted()
		status.Started = &started
		// An ordinary init container is ready only once it completed.
		status.Ready = !isInit && started && run.probes.isReady()
	case st.waiting != nil:
		// Exited and waiting to be restarted: the run that just ended is
		// the "last state".
		status.State.Waiting = st.waiting
		status.LastTerminationState.Terminated = run.terminated
	default:
		status.State.Terminated = run.terminated
		status.LastTerminationState.Terminated = st.lastTermination
		// A regular init container that completed counts as ready: that is
		// what Initialized looks at.
		status.Ready = isInit && run.terminated.ExitCode == 0
	}
	return status
}

// isRestartableInit reports whether an init container is a sidecar
// (restartPolicy Always): it starts in init order but keeps running.
func isRestartableInit(c *api.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == api.ContainerRestartPolicyAlways
}

// findStatus returns the status of the named container.
func findStatus(statuses []api.ContainerStatus, name string) (*api.ContainerStatus, bool) {
	for i := range statuses {
		if statuses[i].Name == name {
			return &statuses[i], true
		}
	}
	return nil, false
}

// hasAnyRegularContainerStarted reports whether an app container has ever
// run: once one has, the pod has been initialized and stays so.
func hasAnyRegularContainerStarted(spec *api.PodSpec, statuses []api.ContainerStatus) bool {
	for _, c := range spec.Containers {
		if s, ok := findStatus(statuses, c.Name); ok && (s.State.Running != nil || s.State.Terminated != nil ||
			s.LastTerminationState.Terminated != nil) {
			return true
		}
	}
	return false
}

// podPhase computes a pod's phase from its container statuses (init and
// app together), as upstream's getPhase: Pending until every container has
// started, Running while any runs (or, with restartPolicy Always or
// OnFailure, while failed ones wait to restart), Succeeded when all exited
// 0 for good, Failed when all exited for good and one failed. podIsTerminal
// says no container will run again (the pod is being deleted and its
// containers have stopped), which settles the Always case too.
func podPhase(pod *api.Pod, statuses []api.ContainerStatus, podIsTerminal bool) api.PodPhase {
	spec := &pod.Spec
	pendingInitialization, failedInitialization := 0, 0
	unknown, running, waiting, stopped, succeeded := 0, 0, 0, 0, 0

	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		s, ok := findStatus(statuses, c.Name)
		if isRestartableInit(c) {
			switch {
			case !ok:
				unknown++
			case s.State.Running != nil:
				if s.Started == nil || !*s.Started {
					pendingInitialization++
				}
				running++
			case s.State.Terminated != nil:
			case s.State.Waiting != nil && s.LastTerminationState.Terminated == nil:
				pendingInitialization++
				waiting++
			case s.State.Waiting == nil:
				pendingInitialization++
				unknown++
			}
			continue
		}
		switch {
		case !ok, s.State.Running != nil:
			pendingInitialization++
		case s.State.Terminated != nil:
			if s.State.Terminated.ExitCode != 0 {
				failedInitialization++
			}
		case s.State.Waiting != nil && s.LastTerminationState.Terminated != nil:
			if s.LastTerminationState.Terminated.ExitCode != 0 {
				failedInitialization++
			}
		default:
			pendingInitialization++
		}
	}

	for _, c := range spec.Containers {
		s, ok := findStatus(statuses, c.Name)
		switch {
		case !ok:
			unknown++
		case s.State.Running != nil:
			running++
		case s.State.Terminated != nil:
			stopped++
			if s.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		case s.State.Waiting != nil && s.LastTerminationState.Terminated != nil:
			stopped++
		case s.State.Waiting != nil:
			waiting++
		default:
			unknown++
		}
	}

	if failedInitialization > 0 && spec.RestartPolicy == api.RestartPolicyNever {
		return api.PodFailed
	}
	switch {
	case pendingInitialization > 0 && !hasAnyRegularContainerStarted(spec, statuses), waiting > 0:
		return api.PodPending
	case running > 0 && unknown == 0:
		return api.PodRunning
	case running == 0 && stopped > 0 && unknown == 0:
		if podIsTerminal {
			if stopped == succeeded {
				return api.PodSucceeded
			}
			return api.PodFailed
		}
		if spec.RestartPolicy == api.RestartPolicyAlways {
			return api.PodRunning // every container is between a crash and its restart
		}
		if stopped == succeeded {
			return api.PodSucceeded
		}
		if spec.RestartPolicy == api.RestartPolicyNever {
			return api.PodFailed
		}
		return api.PodRunning // OnFailure: the failed ones will restart
	default:
		return api.PodPending
	}
}

// podConditions returns the conditions the kubelet owns, in upstream's
// order, with no timestamps (the status manager keeps lastTransitionTime
// from the stored condition when the status did not change).
func podConditions(pod *api.Pod, initStatuses, statuses []api.ContainerStatus, phase api.PodPhase, sandboxReady bool) []api.PodCondition {
	all := append(append([]api.ContainerStatus{}, initStatuses...), statuses...)
	readyToStart := api.PodCondition{Type: api.PodReadyToStartContainers, Status: api.ConditionFalse}
	if sandboxReady {
		readyToStart.Status = api.ConditionTrue
	}
	containersReady := containersReadyCondition(pod, all, phase)
	return []api.PodCondition{
		readyToStart,
		initializedCondition(pod, all, phase),
		readyCondition(pod, containersReady),
		containersReady,
		{Type: api.PodScheduled, Status: api.ConditionTrue},
	}
}

// initializedCondition is True once every init container has completed
// (or, for a sidecar, started).
func initializedCondition(pod *api.Pod, statuses []api.ContainerStatus, phase api.PodPhase) api.PodCondition {
	var unknown, incomplete []string
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		s, ok := findStatus(statuses, c.Name)
		switch {
		case !ok:
			unknown = append(unknown, c.Name)
		case isRestartableInit(c) && (s.Started == nil || !*s.Started):
			incomplete = append(incomplete, c.Name)
		case !isRestartableInit(c) && !s.Ready:
			incomplete = append(incomplete, c.Name)
		}
	}
	cond := api.PodCondition{Type: api.PodInitialized, Status: api.ConditionTrue}
	switch {
	case phase == api.PodSucceeded && len(unknown) == 0:
		cond.Reason = reasonPodCompleted
	case hasAnyRegularContainerStarted(&pod.Spec, statuses):
	case len(unknown) > 0 || len(incomplete) > 0:
		cond.Status, cond.Reason = api.ConditionFalse, reasonContainersNotInitialized
		cond.Message = notReadyMessage("incomplete", unknown, incomplete)
	}
	return cond
}

// containersReadyCondition is True when every app container (and sidecar)
// is ready.
func containersReadyCondition(pod *api.Pod, statuses []api.ContainerStatus, phase api.PodPhase) api.PodCondition {
	var unknown, unready []string
	check := func(name string) {
		s, ok := findStatus(statuses, name)
		switch {
		case !ok:
			unknown = append(unknown, name)
		case !s.Ready:
			unready = append(unready, name)
		}
	}
	for i := range pod.Spec.InitContainers {
		if isRestartableInit(&pod.Spec.InitContainers[i]) {
			check(pod.Spec.InitContainers[i].Name)
		}
	}
	for _, c := range pod.Spec.Containers {
		check(c.Name)
	}
	cond := api.PodCondition{Type: api.ContainersReady, Status: api.ConditionTrue}
	switch {
	case phase == api.PodSucceeded && len(unknown) == 0:
		cond.Status, cond.Reason = api.ConditionFalse, reasonPodCompleted
	case phase == api.PodFailed:
		cond.Status, cond.Reason = api.ConditionFalse, reasonPodFailed
	case len(unknown) > 0 || len(unready) > 0:
		cond.Status, cond.Reason = api.ConditionFalse, reasonContainersNotReady
		cond.Message = notReadyMessage("unready", unknown, unready)
	}
	return cond
}

// readyCondition is ContainersReady, further held back by readiness gates
// whose conditions are not True.
func readyCondition(pod *api.Pod, containersReady api.PodCondition) api.PodCondition {
	if containersReady.Status != api.ConditionTrue {
		return api.PodCondition{Type: api.PodReady, Status: containersReady.Status,
			Reason: containersReady.Reason, Message: containersReady.Message}
	}
	var gates []string
	for _, g := range pod.Spec.ReadinessGates {
		var found *api.PodCondition
		for i := range pod.Status.Conditions {
			if pod.Status.Conditions[i].Type == g.ConditionType {
				found = &pod.Status.Conditions[i]
			}
		}
		switch {
		case found == nil:
			gates = append(gates, fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", g.ConditionType))
		case found.Status != api.ConditionTrue:
			gates = append(gates, fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %s", g.ConditionType, found.Status))
		}
	}
	if len(gates) > 0 {
		return api.PodCondition{Type: api.PodReady, Status: api.ConditionFalse,
			Reason: reasonReadinessGatesNotReady, Message: strings.Join(gates, ", ")}
	}
	return api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue}
}

// notReadyMessage is upstream's "containers with unready status: [web]"
// (with the unknown ones listed first).
func notReadyMessage(adjective string, unknown, notReady []string) string {
	var parts []string
	if len(unknown) > 0 {
		parts = append(parts, fmt.Sprintf("containers with unknown status: %v", unknown))
	}
	if len(notReady) > 0 {
		parts = append(parts, fmt.Sprintf("containers with %s status: %v", adjective, notReady))
	}
	return strings.Join(parts, ", ")
}

// normalizeImage spells an image reference the way containerd reports it:
// "nginx" is "docker.io/library/nginx:latest".
func normalizeImage(image string) string {
	if image == "" {
		return ""
	}
	name, digest, hasDigest := strings.Cut(image, "@")
	first, rest, hasSlash := strings.Cut(name, "/")
	switch {
	case !hasSlash:
		name = "docker.io/library/" + name
	case !strings.ContainsAny(first, ".:") && first != "localhost":
		name = "docker.io/" + first + "/" + rest
	}
	if hasDigest {
		return name + "@" + digest
	}
	if lastSlash := strings.LastIndex(name, "/"); !strings.Contains(name[lastSlash+1:], ":") {
		name += ":latest"
	}
	return name
}

// imageID is the image's "repo@sha256:…" digest. Nothing is pulled, so the
// digest is made up, but stable: the SHA-256 of the normalized reference.
func imageID(image string) string {
	if image == "" {
		return ""
	}
	normalized := normalizeImage(image)
	if i := strings.Index(normalized, "@"); i >= 0 {
		return normalized
	}
	repo := normalized[:strings.LastIndex(normalized, ":")]
	sum := sha256.Sum256([]byte(normalized))
	return repo + "@sha256:" + hex.EncodeToString(sum[:])
}
