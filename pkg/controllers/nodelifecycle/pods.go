package nodelifecycle

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
)

// Events the controller records, with upstream's reasons and messages.
const (
	eventNodeNotReady  = "NodeNotReady"
	messagePodNotReady = "Node is not ready"
	// eventRegisteredNode is recorded for every node the controller learns
	// about, at start-up and when nodes join ("Node node1 event:
	// Registered Node node1 in Controller").
	eventRegisteredNode = "RegisteredNode"
	// eventCIDRNotAvailable is recorded when the cluster CIDR is full.
	eventCIDRNotAvailable = "CIDRNotAvailable"
)

// podsToMarkNotReady returns the pods of node whose Ready condition must
// be turned False because the node went silent: those bound to it that
// are Ready and became Ready no later than the node's Ready condition
// became Unknown. Nobody else will say these pods are not ready — their
// kubelet is the one that stopped — so Services stop sending them traffic
// (the endpoints controllers move them to notReadyAddresses).
//
// Upstream marks the pods once, on the transition, and retries a node
// whose marking failed. Comparing transition times gets the same effect
// from the current state alone, which keeps sync idempotent: a retry marks
// only the pods still Ready, and a pod the kubelet made Ready again after
// the node came back (a later transition) is left alone.
func podsToMarkNotReady(node *api.Node, pods []*api.Pod) []*api.Pod {
	nodeReady := findCondition(&node.Status, api.NodeReady)
	if nodeReady == nil || nodeReady.Status != api.ConditionUnknown {
		return nil
	}
	var out []*api.Pod
	for _, pod := range pods {
		if pod.Spec.NodeName != node.Name {
			continue
		}
		ready := controllerutil.GetPodReadyCondition(pod)
		if ready == nil || ready.Status != api.ConditionTrue {
			continue
		}
		if ready.LastTransitionTime.Time.After(nodeReady.LastTransitionTime.Time) {
			continue
		}
		out = append(out, pod)
	}
	return out
}

// markPodsNotReady sets the Ready condition of pods to False (upstream's
// MarkPodsNotReady) and records a NodeNotReady Warning on each. A pod that
// is gone is skipped; other errors are returned together, so the node is
// synced again and the pods still Ready are retried.
func (c *Controller) markPodsNotReady(ctx context.Context, pods []*api.Pod, now time.Time) error {
	var errs []error
	for _, cached := range pods {
		pod := api.DeepCopy(cached)
		ready := controllerutil.GetPodReadyCondition(pod)
		ready.Status = api.ConditionFalse
		ready.LastTransitionTime = api.NewTime(now.UTC().Truncate(time.Second))
		_, err := c.client.Pods(pod.Namespace).UpdateStatus(ctx, pod, client.UpdateOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("mark pod %s/%s not ready: %w", pod.Namespace, pod.Name, err))
			continue
		}
		c.log.Info("marked pod not ready", "pod", pod.Namespace+"/"+pod.Name, "node", pod.Spec.NodeName)
		c.recorder.Event(pod, api.EventTypeWarning, eventNodeNotReady, messagePodNotReady)
	}
	return errors.Join(errs...)
}
