package tainteviction

import (
	"context"
	"fmt"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/informer"
)

// Event reason and messages, upstream's.
const (
	eventTaintManagerEviction = "TaintManagerEviction"
	messageMarking            = "Marking for deletion Pod %s"
	messageCancelling         = "Cancelling deletion of Pod %s"
)

// sync decides the fate of the pod key names, from the pod's tolerations
// and its node's NoExecute taints in the caches:
//
//   - no such taint, or every one tolerated for ever: the pod stays, and a
//     scheduled eviction is cancelled ("Cancelling deletion of Pod …");
//   - a taint the pod does not tolerate: it is deleted now;
//   - otherwise it is deleted once the shortest tolerationSeconds among
//     the tolerations it uses has passed since the eviction was scheduled;
//     until then the key is parked in the queue (AddAfter) for that time.
//
// Time is the controller's clock, so a test with a fake clock can step over
// the five minutes of a default toleration.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	pod, err := c.pods.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.cancel(key, namespace, name)
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get pod %s from cache: %w", key, err)
	}
	if pod.DeletionTimestamp != nil {
		// Already going (perhaps because of us): nothing left to decide.
		c.schedule.remove(key)
		return nil
	}
	taints, err := c.nodeTaints(pod.Spec.NodeName)
	if err != nil {
		return err
	}
	if len(taints) == 0 {
		c.cancel(key, namespace, name)
		return nil
	}
	allTolerated, used := matchingTolerations(taints, pod.Spec.Tolerations)
	if !allTolerated {
		c.log.Info("pod does not tolerate its node's NoExecute taints; deleting it", "pod", key, "node", pod.Spec.NodeName)
		c.recordUntolerated(pod, taints)
		c.cancel(key, namespace, name)
		return c.evict(ctx, pod)
	}
	wait := minTolerationTime(used)
	if wait == forever {
		c.cancel(key, namespace, name)
		return nil
	}
	now := c.clock.Now()
	since, added := c.schedule.start(key, now)
	deadline := since.Add(wait)
	c.recordTolerated(pod, taints, wait, since, now)
	if now.Before(deadline) {
		if added {
			c.log.Info("pod tolerates its node's NoExecute taints for a while; eviction scheduled",
				"pod", key, "node", pod.Spec.NodeName, "tolerationSeconds", int64(wait/time.Second), "at", deadline.Format(time.RFC3339))
		}
		c.queue.AddAfter(key, deadline.Sub(now))
		return nil
	}
	c.log.Info("pod's toleration of its node's NoExecute taints ran out; deleting it", "pod", key, "node", pod.Spec.NodeName)
	return c.evict(ctx, pod)
}

// nodeTaints are the NoExecute taints of the node called nodeName; none
// for an unbound pod or a node that is gone.
func (c *Controller) nodeTaints(nodeName string) ([]api.Taint, error) {
	if nodeName == "" {
		return nil, nil
	}
	node, err := c.nodes.Get(nodeName)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get node %s from cache: %w", nodeName, err)
	}
	return noExecuteTaints(node.Spec.Taints), nil
}

// cancel unschedules the pod's eviction, recording an Event if there was
// one to cancel.
func (c *Controller) cancel(key, namespace, name string) {
	if !c.schedule.remove(key) {
		return
	}
	c.log.Info("eviction cancelled", "pod", key)
	c.recordCancelled(namespace, name)
	ref := &api.Pod{TypeMeta: api.TypeMeta{Kind: "Pod", APIVersion: "v1"}, ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: name}}
	c.recorder.Eventf(ref, api.EventTypeNormal, eventTaintManagerEviction, messageCancelling, key)
}
