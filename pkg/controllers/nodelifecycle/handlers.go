package nodelifecycle

// The informer handlers: they only decide which node to enqueue.

import (
	"kplane/pkg/api"
	"kplane/pkg/informer"
)

// leaseChanged enqueues the node whose Lease was renewed.
func (c *Controller) leaseChanged(obj api.Object) {
	if meta := obj.GetObjectMeta(); meta.Namespace == api.NamespaceNodeLease {
		c.queue.Add(meta.Name)
	}
}

// podBound enqueues the node a pod was just bound to: a pod that lands on
// a node already marked Unknown is marked not ready too.
func (c *Controller) podBound(oldObj, newObj api.Object) {
	pod, ok := newObj.(*api.Pod)
	if !ok || pod.Spec.NodeName == "" {
		return
	}
	if old, ok := oldObj.(*api.Pod); ok && old.Spec.NodeName == pod.Spec.NodeName {
		return
	}
	c.queue.Add(pod.Spec.NodeName)
}

// nodeDeleted enqueues a deleted node so that sync forgets it.
func (c *Controller) nodeDeleted(obj any) {
	if node, ok := informer.DeletedObject[*api.Node](obj); ok {
		c.queue.Add(node.Name)
	}
}
