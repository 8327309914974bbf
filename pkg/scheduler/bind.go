package scheduler

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/scheduler/framework"
)

// bind is the binding cycle of one assumed pod, run in the API pool beside
// the scheduling loop. It runs the PreBind plugins (VolumeBinding waits
// there for the volumes of WaitForFirstConsumer claims), then POSTs
// pods/<name>/binding; the apiserver sets
// spec.nodeName (and PodScheduled=True), and the node's kubelet takes over
// from there. On success the Scheduled event is recorded; on failure the
// assumption is taken back, the freed room is announced to the waiting
// pods, and the pod goes back to the queue with a back-off.
func (s *Scheduler) bind(ctx context.Context, qp *QueuedPodInfo, assumed *framework.PodInfo) {
	pod := assumed.Pod
	node := pod.Spec.NodeName
	if st := s.profile.RunPreBinds(ctx, assumed, node); !st.IsSuccess() {
		s.abandonBinding(ctx, qp, assumed, fmt.Errorf("running PreBind plugin %q: %s", st.Plugin(), st.Message()))
		return
	}
	binding := &api.Binding{
		ObjectMeta: api.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     api.ObjectReference{Kind: "Node", Name: node},
	}
	if err := s.client.Bind(ctx, binding); err != nil {
		s.abandonBinding(ctx, qp, assumed, fmt.Errorf("binding rejected: %w", err))
		return
	}
	s.cache.FinishBinding(assumed.UID)
	s.recorder.Record(pod, nil, api.EventTypeNormal, "Scheduled", "Binding", fmt.Sprintf("Successfully assigned %s/%s to %s", pod.Namespace, pod.Name, node))
	if s.v(2) {
		s.log.Info("bound pod to node", "pod", assumed.Key, "node", node, "attempts", qp.Attempts)
	}
}

// abandonBinding takes back a pod's assumption after its binding cycle
// failed: the freed room is announced to the waiting pods and the pod goes
// back to the queue with a back-off.
func (s *Scheduler) abandonBinding(ctx context.Context, qp *QueuedPodInfo, assumed *framework.PodInfo, err error) {
	s.cache.ForgetPod(assumed.UID)
	if ctx.Err() != nil {
		// Shutting down (or leadership lost): the pod stays pending for
		// whoever schedules next.
		return
	}
	s.moveAllToActiveOrBackoff(eventAssignedPodDelete)
	s.handleSchedulingFailure(ctx, qp, err, true)
}
