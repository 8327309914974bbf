package nodelifecycle

// The informer handlers: they only decide which node to enqueue.

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/informer"
)

// ensureNodeNameIndex adds the NodeNameIndex to the shared pod informer
// unless another controller already did.
func ensureNodeNameIndex(pods informer.SharedIndexInformer) error {
	if _, ok := pods.GetIndexer().GetIndexers()[informer.NodeNameIndex]; ok {
		return nil
	}
	if err := pods.AddIndexers(informer.Indexers{informer.NodeNameIndex: informer.NodeNameIndexFunc}); err != nil {
		return fmt.Errorf("index pods by node: %w", err)
	}
	return nil
}

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
	if tombstone, ok := obj.(informer.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if node, ok := obj.(*api.Node); ok {
		c.queue.Add(node.Name)
	}
}
