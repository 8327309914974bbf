package nodelifecycle

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

// sync brings one node in line with its heartbeats, in upstream's order:
// give it a pod range if it has none; mark its kubelet conditions Unknown
// if its heartbeats are overdue; mark its pods not ready if it is Unknown;
// make its condition taints match its conditions. Every step reads the
// current state and changes only what differs, so a second run changes
// nothing.
func (c *Controller) sync(ctx context.Context, name string) error {
	cached, err := c.nodes.Get(name)
	if apierrors.IsNotFound(err) {
		c.health.forget(name)
		c.decisions.Forget(name)
		c.cidrs.release(name)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get node %s from cache: %w", name, err)
	}
	node := api.DeepCopy(cached)
	now := c.clock.Now()
	var errs []error

	if err := c.ensurePodCIDR(ctx, node); err != nil {
		errs = append(errs, err) // health monitoring goes on regardless
	}

	observed := controllerutil.NodeReadyStatus(node)
	if err := c.updateHealth(ctx, node, now); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if observed == api.ConditionTrue && controllerutil.NodeReadyStatus(node) != api.ConditionTrue {
		c.recorder.Eventf(node, api.EventTypeNormal, eventNodeNotReady, "Node %s status is now: %s", name, eventNodeNotReady)
	}

	pods, err := c.pods.ByIndex(informer.NodeNameIndex, name)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("list pods of node %s: %w", name, err))...)
	}
	notReady := podsToMarkNotReady(node, pods)
	c.recordPodsNotReady(node, notReady)
	if err := c.markPodsNotReady(ctx, notReady, now); err != nil {
		errs = append(errs, err)
	}

	if err := c.updateTaints(ctx, node, now); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// updateHealth records node's heartbeats and, when they are overdue, writes
// its kubelet conditions as Unknown. node is updated in place with what the
// API returned.
func (c *Controller) updateHealth(ctx context.Context, node *api.Node, now time.Time) error {
	ready := findCondition(&node.Status, api.NodeReady)
	lease, err := c.leases.Namespace(api.NamespaceNodeLease).Get(node.Name)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("get lease of node %s from cache: %w", node.Name, err)
	}
	probe, first := c.health.observe(node, ready, lease, now)
	if first {
		c.recorder.Eventf(node, api.EventTypeNormal, eventRegisteredNode, "Node %s event: Registered Node %s in Controller", node.Name, node.Name)
	}
	grace := c.gracePeriod
	if ready == nil {
		grace = c.startupGracePeriod
	}
	if !now.After(probe.Add(grace)) {
		return nil
	}
	if !markStatusUnknown(node, now) {
		return nil // already Unknown: nothing new to say
	}
	c.recordUnknown(node, probe, grace, now)
	updated, err := c.client.Nodes().UpdateStatus(ctx, node, client.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("mark node %s Unknown (no heartbeat since %s): %w", node.Name, probe.Format(time.RFC3339), err)
	}
	c.log.Info("node stopped posting status; marked it Unknown", "node", node.Name,
		"lastHeartbeatSeen", probe.Format(time.RFC3339), "gracePeriod", grace)
	*node = *updated
	return nil
}

// updateTaints makes node's condition taints match its conditions.
func (c *Controller) updateTaints(ctx context.Context, node *api.Node, now time.Time) error {
	taints, changed := reconcileTaints(node.Spec.Taints, desiredManagedTaints(node), now)
	if !changed {
		return nil
	}
	before := node.Spec.Taints
	c.recordTaints(node, before, taints)
	node.Spec.Taints = taints
	updated, err := c.client.Nodes().Update(ctx, node, client.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("update taints of node %s: %w", node.Name, err)
	}
	c.log.Info("updated node taints", "node", node.Name, "from", taintList(before), "to", taintList(updated.Spec.Taints))
	*node = *updated
	return nil
}

// ensurePodCIDR gives node a pod range when it has none.
func (c *Controller) ensurePodCIDR(ctx context.Context, node *api.Node) error {
	if node.Spec.PodCIDR != "" || len(node.Spec.PodCIDRs) > 0 {
		c.cidrs.release(node.Name)
		return nil
	}
	all, err := c.nodes.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list nodes from cache: %w", err)
	}
	cidr, err := c.cidrs.allocate(node.Name, all)
	if err != nil {
		c.recorder.Eventf(node, api.EventTypeNormal, eventCIDRNotAvailable, "Node %s status is now: %s", node.Name, eventCIDRNotAvailable)
		return err
	}
	c.recordPodCIDR(node, cidr.String())
	withCIDR := api.DeepCopy(node)
	withCIDR.Spec.PodCIDR, withCIDR.Spec.PodCIDRs = cidr.String(), []string{cidr.String()}
	updated, err := c.client.Nodes().Update(ctx, withCIDR, client.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("set podCIDR %s on node %s: %w", cidr, node.Name, err)
	}
	c.log.Info("assigned pod CIDR", "node", node.Name, "podCIDR", cidr)
	*node = *updated
	return nil
}

// taintList renders taints as kubectl does, "key=value:Effect", for logs.
func taintList(taints []api.Taint) []string {
	out := make([]string, 0, len(taints))
	for _, t := range taints {
		s := t.Key
		if t.Value != "" {
			s += "=" + t.Value
		}
		out = append(out, s+":"+string(t.Effect))
	}
	return out
}
