package scheduler

import (
	"context"
	"errors"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/scheduler/framework"
)

// podReasonSchedulerError is the PodScheduled reason upstream uses when an
// attempt failed for a reason other than "no node fits" (a rejected
// binding, say).
const podReasonSchedulerError = "SchedulerError"

// handleSchedulingFailure is upstream's handleSchedulingFailure: requeue
// the pod, record a FailedScheduling event, and write the reason into the
// pod's PodScheduled condition, which is what `kubectl get pod` shows as
// Pending and `kubectl describe pod` under Conditions and Events.
//
// fromAPIPool says the caller already runs in the API pool (a failed
// binding), so the status update runs inline instead of taking a second
// slot, which could deadlock a full pool.
func (s *Scheduler) handleSchedulingFailure(ctx context.Context, qp *QueuedPodInfo, err error, fromAPIPool bool) {
	var fitErr *framework.FitError
	unschedulable := errors.As(err, &fitErr) || errors.Is(err, framework.ErrNoNodesAvailable)
	reason := podReasonSchedulerError
	if unschedulable {
		reason = api.PodReasonUnschedulable
	}
	message := err.Error()

	// Requeue the latest version of the pod, unless it is gone or someone
	// else bound it meanwhile.
	pod, getErr := s.podLister.Namespace(qp.Pod.Namespace).Get(qp.Pod.Name)
	if getErr != nil || pod.Spec.NodeName != "" || pod.UID != qp.Pod.UID {
		s.queue.Done(qp.Key)
		if s.v(2) {
			s.log.Info("pod deleted or assigned during its attempt; not requeued", "pod", qp.Key)
		}
		return
	}
	qp.Pod = pod
	qp.Unschedulable = unschedulable
	s.queue.AddUnschedulableIfNotPresent(qp)

	if unschedulable {
		if s.v(2) {
			s.log.Info("unable to schedule pod; waiting", "pod", qp.Key, "attempts", qp.Attempts, "reason", message)
		}
	} else {
		s.log.Warn("error scheduling pod; retrying after back-off", "pod", qp.Key, "attempts", qp.Attempts, "err", err)
	}
	s.recorder.Record(pod, nil, api.EventTypeWarning, "FailedScheduling", "Scheduling", message)
	update := func() { s.updatePodScheduledCondition(ctx, pod, reason, message) }
	if fromAPIPool {
		update()
	} else {
		s.goAPICall(update)
	}
}

// updatePodScheduledCondition sets PodScheduled=False with reason and
// message through pods/status, unless the pod already says exactly that
// (a pod retried every few seconds must not rewrite itself every time).
// The transition time changes only when the status does, as upstream's
// UpdatePodCondition does. A conflict or a vanished pod is not an error:
// the next attempt writes again if it still matters.
func (s *Scheduler) updatePodScheduledCondition(ctx context.Context, pod *api.Pod, reason, message string) {
	now := api.NewTime(s.clock.Now().UTC().Truncate(time.Second))
	updated := api.DeepCopy(pod)
	found := false
	for i := range updated.Status.Conditions {
		c := &updated.Status.Conditions[i]
		if c.Type != api.PodScheduled {
			continue
		}
		found = true
		if c.Status == api.ConditionFalse && c.Reason == reason && c.Message == message {
			return
		}
		if c.Status != api.ConditionFalse {
			c.LastTransitionTime = now
		}
		c.Status, c.Reason, c.Message = api.ConditionFalse, reason, message
	}
	if !found {
		updated.Status.Conditions = append(updated.Status.Conditions, api.PodCondition{
			Type: api.PodScheduled, Status: api.ConditionFalse, Reason: reason, Message: message, LastTransitionTime: now,
		})
	}
	_, err := s.client.Pods(pod.Namespace).UpdateStatus(ctx, updated, client.UpdateOptions{})
	switch {
	case err == nil:
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err) || ctx.Err() != nil:
		if s.v(4) {
			s.log.Info("skipped PodScheduled condition update", "pod", pod.Namespace+"/"+pod.Name, "err", err)
		}
	default:
		s.log.Warn("could not update PodScheduled condition", "pod", pod.Namespace+"/"+pod.Name, "err", err)
	}
}
