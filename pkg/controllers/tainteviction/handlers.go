package tainteviction

// The informer handlers: they only decide which pods to enqueue.

import (
	"reflect"

	"kplane/pkg/api"
	"kplane/pkg/informer"
)

// podChanged enqueues a pod that was bound or whose tolerations changed:
// the only changes to a pod that can change its fate. (Upstream's
// PodUpdated, with the same filter.)
func (c *Controller) podChanged(oldObj, newObj api.Object) {
	pod, ok := newObj.(*api.Pod)
	if !ok || pod.Spec.NodeName == "" {
		return
	}
	if old, ok := oldObj.(*api.Pod); ok && old.Spec.NodeName == pod.Spec.NodeName &&
		reflect.DeepEqual(old.Spec.Tolerations, pod.Spec.Tolerations) {
		return
	}
	c.enqueuePod(pod)
}

// podDeleted enqueues a deleted pod, so that a scheduled eviction of it is
// cancelled. The object may be a tombstone.
func (c *Controller) podDeleted(obj any) {
	if pod, ok := informer.DeletedObject[*api.Pod](obj); ok {
		c.enqueuePod(pod)
	}
}

// nodeChanged enqueues every pod of a node whose NoExecute taints changed
// (or that just appeared with some).
func (c *Controller) nodeChanged(oldObj, newObj api.Object) {
	node, ok := newObj.(*api.Node)
	if !ok {
		return
	}
	var before []api.Taint
	if old, ok := oldObj.(*api.Node); ok {
		before = noExecuteTaints(old.Spec.Taints)
	}
	after := noExecuteTaints(node.Spec.Taints)
	if len(before) == 0 && len(after) == 0 || reflect.DeepEqual(before, after) {
		return
	}
	c.enqueuePodsOf(node.Name)
}

// nodeDeleted enqueues the pods of a deleted node: their evictions are
// cancelled (the pod garbage collector, not this controller, deals with
// pods of nodes that are gone).
func (c *Controller) nodeDeleted(obj any) {
	if node, ok := informer.DeletedObject[*api.Node](obj); ok {
		c.enqueuePodsOf(node.Name)
	}
}

// enqueuePodsOf enqueues every pod the cache has bound to nodeName.
func (c *Controller) enqueuePodsOf(nodeName string) {
	pods, err := c.pods.ByIndex(informer.NodeNameIndex, nodeName)
	if err != nil {
		c.log.Error("list pods of node from cache", "node", nodeName, "err", err)
		return
	}
	for _, pod := range pods {
		c.enqueuePod(pod)
	}
}

// enqueuePod enqueues pod's key, "namespace/name".
func (c *Controller) enqueuePod(pod *api.Pod) {
	c.queue.Add(pod.Namespace + "/" + pod.Name)
}
