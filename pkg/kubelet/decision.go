package kubelet

// This file records the kubelet's decisions about its pods in the debug
// journal (what `ctl why pod/x` shows next to the controllers' and the
// scheduler's): the pod admitted and given its IP, a container restarted
// or held in CrashLoopBackOff with the computed delay, a probe result that
// changes a container's readiness or gets it killed, and the containers
// stopped when the pod is deleted or runs past its activeDeadlineSeconds.
//
// A pod worker records a decision only when it differs from the last one
// it recorded (a worker syncs on every wake-up, and a pod waiting out a
// back-off would otherwise repeat itself). With the debug API off the
// journal is nil and every function here returns at once.

import (
	"fmt"
	"strconv"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// decisionActor is the Actor of the kubelet's records; the message names
// the node, since one kubelet process may run many hollow nodes.
const decisionActor = "kubelet"

// The upstream files the decisions mirror.
const (
	sourceAdmission   = "pkg/kubelet/kubelet.go"
	sourceBackOff     = "pkg/kubelet/kuberuntime/kuberuntime_manager.go"
	sourceProber      = "pkg/kubelet/prober/worker.go"
	sourceTermination = "pkg/kubelet/kuberuntime/kuberuntime_container.go"
	sourceDeadline    = "pkg/kubelet/active_deadline.go"
)

// decide records message about the worker's pod, unless it is the same as
// the worker's last decision. The worker's lock is held.
func (w *podWorker) decide(pod *api.Pod, message string, values map[string]string, source string) {
	if !w.env.journal.Enabled() || message == w.lastDecision {
		return
	}
	w.lastDecision = message
	recordPodDecision(w.env.journal, pod, message, values, source)
}

// recordPodDecision records a decision about pod in journal.
func recordPodDecision(journal *debug.Journal, pod *api.Pod, message string, values map[string]string, source string) {
	journal.Decision(debug.Decision{
		Actor: decisionActor, Resource: "pods", Key: pod.Namespace + "/" + pod.Name,
		UID: pod.UID, ResourceVersion: pod.ResourceVersion,
		Message: message, Values: values, Source: source,
	})
}

// decideAdmitted records that the pod was admitted and got its IP.
// kplane's kubelet runs no admission handlers (upstream's canAdmitPod
// checks resources, node affinity and taints again): every pod bound to
// the node is run, and the record says so.
func (w *podWorker) decideAdmitted(pod *api.Pod) {
	if !w.env.journal.Enabled() {
		return
	}
	w.decide(pod, fmt.Sprintf("pod bound to %s → admitted (kplane's kubelet runs no admission checks), sandbox IP %s",
		pod.Spec.NodeName, w.podIP), map[string]string{"node": pod.Spec.NodeName, "podIP": w.podIP}, sourceAdmission)
}

// decideRestart records what an exited container's back-off decided:
// restart now, or wait until until (delay being the back-off it waits
// out).
func (w *podWorker) decideRestart(pod *api.Pod, c *api.Container, st *containerState, delay time.Duration, until time.Time, waiting bool) {
	if !w.env.journal.Enabled() {
		return
	}
	how := "exited"
	if exit := st.current.terminated; exit != nil {
		how = fmt.Sprintf("exited with code %d at %s", exit.ExitCode, exit.FinishedAt.UTC().Format(time.TimeOnly))
	}
	if st.current.restartAfterStop {
		how = "was stopped to be restarted and " + how
	}
	values := map[string]string{
		"container":    c.Name,
		"restartCount": strconv.Itoa(int(st.restartCount)),
		"backOff":      delay.String(),
	}
	if !waiting {
		w.decide(pod, fmt.Sprintf("container %s %s, restartPolicy %s → restart now (restart %d)",
			c.Name, how, restartPolicyOf(pod), st.restartCount+1), values, sourceBackOff)
		return
	}
	values["restartAt"] = until.UTC().Format(time.RFC3339)
	w.decide(pod, fmt.Sprintf("container %s %s after %d restarts → CrashLoopBackOff: back-off %s, restart at %s",
		c.Name, how, st.restartCount, delay, until.UTC().Format(time.TimeOnly)), values, sourceBackOff)
}

// decideKill records that a running container is stopped to be replaced:
// a liveness or startup probe failed for good, or its image changed.
func (w *podWorker) decideKill(pod *api.Pod, c *api.Container, why string, grace time.Duration, restart bool) {
	if !w.env.journal.Enabled() {
		return
	}
	then := "not restarted (restartPolicy Never)"
	if restart {
		then = "restarted after it exits"
	}
	w.decide(pod, fmt.Sprintf("container %s: %s → kill it (grace %s), %s", c.Name, why, grace, then),
		map[string]string{"container": c.Name, "gracePeriodSeconds": strconv.Itoa(int(grace / time.Second))}, sourceBackOff)
}

// decideTerminate records the stop of a pod's running containers.
func (w *podWorker) decideTerminate(pod *api.Pod, removed bool, grace time.Duration, running []string) {
	if !w.env.journal.Enabled() || len(running) == 0 {
		return
	}
	var why, source string
	switch {
	case removed:
		why, source = "pod object removed (force-deleted)", sourceTermination
	case pod.DeletionTimestamp != nil:
		why, source = "pod deleted", sourceTermination
	case pod.Spec.ActiveDeadlineSeconds != nil && w.startTime != nil:
		why, source = fmt.Sprintf("pod active since %s, activeDeadlineSeconds %d passed (%s)",
			w.startTime.UTC().Format(time.TimeOnly), *pod.Spec.ActiveDeadlineSeconds, w.failReason), sourceDeadline
	default:
		why, source = w.failMessage, sourceDeadline
	}
	w.decide(pod, fmt.Sprintf("%s → stop %d running containers %v: SIGTERM now, SIGKILL after the grace period %s",
		why, len(running), running, grace),
		map[string]string{"running": strconv.Itoa(len(running)), "gracePeriodSeconds": strconv.Itoa(int(grace / time.Second))}, source)
}

// recordProbeChange records a probe result that changed a container's
// state: Ready or not, started, or failed for good (the worker then kills
// it). It runs on the probe's goroutine, so it records straight into the
// journal; it is called only on a change, so it does not repeat.
func recordProbeChange(journal *debug.Journal, pod *api.Pod, c *api.Container, kind probeKind, ok bool, results, threshold int) {
	if !journal.Enabled() {
		return
	}
	outcome := "succeeded"
	if !ok {
		outcome = "failed"
	}
	var effect string
	switch {
	case kind == readinessProbe && ok:
		effect = "container Ready: the pod's endpoints get traffic once every container is"
	case kind == readinessProbe:
		effect = "container not Ready: the pod leaves its Services' ready endpoints"
	case kind == startupProbe && ok:
		effect = "container started: liveness and readiness probes begin"
	default:
		effect = "the kubelet kills the container"
	}
	recordPodDecision(journal, pod, fmt.Sprintf("%s probe of container %s %s %d times in a row (threshold %d) → %s",
		kind, c.Name, outcome, results, threshold, effect),
		map[string]string{"container": c.Name, "probe": string(kind), "result": outcome, "threshold": strconv.Itoa(threshold)}, sourceProber)
}

// restartPolicyOf is the pod's restartPolicy, Always when unset.
func restartPolicyOf(pod *api.Pod) api.RestartPolicy {
	if pod.Spec.RestartPolicy == "" {
		return api.RestartPolicyAlways
	}
	return pod.Spec.RestartPolicy
}
