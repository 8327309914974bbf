package tainteviction

import (
	"context"
	"fmt"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// The condition upstream puts on a pod before deleting it for a taint, so
// that a Job's podFailurePolicy can tell a disruption from a failure.
const (
	reasonDeletionByTaintManager  = "DeletionByTaintManager"
	messageDeletionByTaintManager = "Taint manager: deleting due to NoExecute taint"
)

// evict deletes pod as upstream's taint manager does: an Event
// "Marking for deletion Pod <ns>/<name>", the DisruptionTarget condition
// on its status, then an ordinary (graceful) delete. The pod's kubelet
// finishes the deletion; while that kubelet is unreachable the pod stays
// Terminating, exactly as on a real cluster, until the node comes back or
// is deleted. The UID precondition keeps a retry from deleting a new pod
// that took the name.
func (c *Controller) evict(ctx context.Context, pod *api.Pod) error {
	key := pod.Namespace + "/" + pod.Name
	ref := &api.Pod{TypeMeta: api.TypeMeta{Kind: "Pod", APIVersion: "v1"}, ObjectMeta: api.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name}}
	c.recorder.Eventf(ref, api.EventTypeNormal, eventTaintManagerEviction, messageMarking, key)

	if withCondition, changed := addDisruptionTarget(pod, c.clock.Now()); changed {
		_, err := c.client.Pods(pod.Namespace).UpdateStatus(ctx, withCondition, client.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			c.schedule.remove(key)
			return nil
		}
		if err != nil {
			return fmt.Errorf("mark pod %s as a disruption target: %w", key, err)
		}
	}
	uid := pod.UID
	err := c.client.Pods(pod.Namespace).Delete(ctx, pod.Name, client.DeleteOptions{Preconditions: &api.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete pod %s: %w", key, err)
	}
	c.schedule.remove(key)
	return nil
}

// addDisruptionTarget returns a copy of pod with the condition
// DisruptionTarget=True (DeletionByTaintManager), and whether that is a
// change; a pod that already has it is returned as it is.
func addDisruptionTarget(pod *api.Pod, now time.Time) (*api.Pod, bool) {
	want := api.PodCondition{
		Type: api.DisruptionTarget, Status: api.ConditionTrue,
		Reason: reasonDeletionByTaintManager, Message: messageDeletionByTaintManager,
		LastTransitionTime: api.NewTime(now.UTC().Truncate(time.Second)),
	}
	out := api.DeepCopy(pod)
	for i, cond := range out.Status.Conditions {
		if cond.Type != api.DisruptionTarget {
			continue
		}
		if cond.Status == want.Status && cond.Reason == want.Reason && cond.Message == want.Message {
			return pod, false
		}
		out.Status.Conditions[i] = want
		return out, true
	}
	out.Status.Conditions = append(out.Status.Conditions, want)
	return out, true
}
