package kubelet

// This file lets a restarted kubelet carry on where the previous process
// left off, as upstream's does by asking the container runtime what runs
// (its containers outlive it in containerd). kplane's runtime state lives in
// the kubelet process, so the pod's last reported status is the record.

import (
	"context"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/runtime"
)

// adopt reads back the status a previous kubelet process wrote, so that a
// restarted kubelet carries on with the same containers, IP and restart
// counts instead of starting the pod over. Running containers are adopted
// from the runtime when it can (the simulated one always can); a container
// it cannot find is reported lost (exit 137, ContainerStatusUnknown) and
// restarted as its policy says.
func (w *podWorker) adopt(ctx context.Context, pod *api.Pod, now time.Time) {
	st := &pod.Status
	if st.StartTime != nil {
		t := *st.StartTime
		w.startTime = &t
	}
	if st.Phase == api.PodSucceeded || st.Phase == api.PodFailed {
		w.terminal = true
	}
	if st.PodIP != "" && !w.terminal {
		w.podIP, w.sandboxReady = st.PodIP, true
		if !pod.Spec.HostNetwork {
			if ip, err := parseAddr(st.PodIP); err == nil {
				w.env.ipam().Reserve(w.uid, ip)
			}
		}
	} else if st.PodIP != "" {
		w.podIP = st.PodIP
	}
	adoptOne := func(c *api.Container, s *api.ContainerStatus) {
		cs := w.state(c.Name)
		cs.restartCount = s.RestartCount
		cs.lastTermination = s.LastTerminationState.Terminated
		run := &containerRun{id: s.ContainerID, image: c.Image}
		switch {
		case s.State.Running != nil:
			run.startedAt = s.State.Running.StartedAt.Time
			if adopter, ok := w.env.runtime.(runtime.Adopter); ok && !w.terminal {
				if container, ok := adopter.Adopt(ctx, pod, c, s); ok {
					run.container = container
					cs.current = run
					w.watch(ctx, pod, c, run, s.Ready, s.Started != nil && *s.Started)
					return
				}
			}
			run.terminated = &api.ContainerStateTerminated{ExitCode: 137, Reason: reasonContainerStatusUnknown,
				Message:   "The container could not be located when the pod was terminated",
				StartedAt: s.State.Running.StartedAt, FinishedAt: api.NewTime(now), ContainerID: s.ContainerID}
		case s.State.Terminated != nil:
			t := *s.State.Terminated
			run.terminated = &t
		case s.State.Waiting != nil && s.LastTerminationState.Terminated != nil:
			t := *s.LastTerminationState.Terminated
			run.terminated = &t
			cs.lastTermination = nil
		default:
			return // never started
		}
		cs.current = run
	}
	for _, list := range []struct {
		specs    []api.Container
		statuses []api.ContainerStatus
	}{{pod.Spec.InitContainers, st.InitContainerStatuses}, {pod.Spec.Containers, st.ContainerStatuses}} {
		for i := range list.specs {
			if s, ok := findStatus(list.statuses, list.specs[i].Name); ok {
				adoptOne(&list.specs[i], s)
			}
		}
	}
}
