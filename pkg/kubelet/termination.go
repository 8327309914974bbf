package kubelet

// This file is the end of a pod's life on the node: stopping containers
// with the pod's grace period (after a deletion, a removal or an
// activeDeadlineSeconds), and noticing that a pod which runs to completion
// is done. podworker.go calls it from sync.

import (
	"fmt"
	"slices"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/runtime"
)

// stopRun asks a run to stop, recording a Killing event with message.
// Stop may block for the grace period, so it runs in its own goroutine;
// the exit watcher wakes the worker when the run is gone.
func (w *podWorker) stopRun(pod *api.Pod, run *containerRun, message string, grace time.Duration) {
	run.stopping = true
	run.probes.stop()
	w.env.recorder.Event(pod, api.EventTypeNormal, eventKilling, message)
	if run.container == nil {
		return
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		run.container.Stop(grace)
	}()
}

// podGracePeriod is how long containers get to stop: the deletion's grace
// period, else the pod's terminationGracePeriodSeconds, else 30 s; at
// least 2 s, upstream's minimum shutdown window.
func podGracePeriod(pod *api.Pod) time.Duration {
	seconds := int64(api.DefaultTerminationGracePeriodSeconds)
	switch {
	case pod.DeletionGracePeriodSeconds != nil:
		seconds = *pod.DeletionGracePeriodSeconds
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		seconds = *pod.Spec.TerminationGracePeriodSeconds
	}
	return time.Duration(max(seconds, 2)) * time.Second
}

// completed reports whether no container of the pod will run again on its
// own: every app container exited for good, or an init container failed
// under restartPolicy Never. Running sidecars are then stopped.
func (w *podWorker) completed(pod *api.Pod) bool {
	policy := pod.Spec.RestartPolicy
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if st := w.containers[c.Name]; !isRestartableInit(c) && policy == api.RestartPolicyNever &&
			st != nil && st.current != nil && st.current.terminated != nil && st.current.terminated.ExitCode != 0 {
			return w.stopSidecars(pod)
		}
	}
	if policy == api.RestartPolicyAlways {
		return false
	}
	for _, c := range pod.Spec.Containers {
		st := w.containers[c.Name]
		if st == nil || st.current == nil || st.current.isRunning() || st.waiting != nil {
			return false
		}
		if shouldRestart(policy, st.current.terminated.ExitCode) || st.current.restartAfterStop {
			return false
		}
	}
	return w.stopSidecars(pod)
}

// stopSidecars stops the running sidecars of a pod whose app containers
// are done, and reports whether none is left running.
func (w *podWorker) stopSidecars(pod *api.Pod) bool {
	done := true
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if st := w.containers[c.Name]; st != nil && st.current.isRunning() {
			done = false
			if !st.current.stopping {
				w.stopRun(pod, st.current, fmt.Sprintf(msgStopping, c.Name), podGracePeriod(pod))
			}
		}
	}
	return done
}

// terminate stops every running container of a pod that is being deleted
// (or was removed, or failed), then publishes its final status. It reports
// finished once the pod object is gone too.
func (w *podWorker) terminate(pod *api.Pod, removed bool) (time.Duration, bool) {
	if !w.terminated {
		grace := podGracePeriod(pod)
		if removed {
			grace = time.Second // force-deleted: upstream's minimal kill window
		}
		running := false
		var stopping []string
		for _, st := range w.containers {
			st.waiting = nil // a container waiting to restart never will
			if run := st.current; run.isRunning() {
				running = true
				if !run.stopping {
					stopping = append(stopping, st.name)
					w.stopRun(pod, run, fmt.Sprintf(msgStopping, st.name), grace)
				}
			}
		}
		slices.Sort(stopping) // the map's order is random
		w.decideTerminate(pod, removed, grace, stopping)
		if running {
			w.publish(pod, false)
			return 0, false // the exit watchers will wake us
		}
		w.terminal, w.terminated = true, true
		w.teardownSandbox()
		if !removed && pod.DeletionTimestamp == nil {
			w.publish(pod, true) // failed (activeDeadlineSeconds), not deleted
		}
	}
	switch {
	case removed:
		w.env.status.Forget(w.uid)
		w.env.ipam().Release(w.uid)
		if f, ok := w.env.runtime.(runtime.PodForgetter); ok {
			f.ForgetPod(w.uid) // the pod's volumes go with it
		}
		return 0, true
	case pod.DeletionTimestamp != nil && !w.static && !w.deleteRequested:
		// The final status goes out, then the object is deleted for good.
		w.deleteRequested = true
		w.env.status.TerminatePod(pod, w.buildStatus(pod, true))
	}
	return 0, false
}
