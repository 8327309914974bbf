package daemonset

// This file holds the informer event handlers. They only work out which
// DaemonSets a change concerns and enqueue their keys, keeping the
// expectations up to date on the way ("one of the pods I created has
// arrived"); the work happens in sync.

import (
	"maps"
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

// addDaemonSet enqueues a new DaemonSet.
func (c *Controller) addDaemonSet(obj api.Object) {
	if ds, ok := obj.(*api.DaemonSet); ok {
		c.log.Debug("daemonset added", "key", keyOf(ds))
		c.enqueue(ds)
	}
}

// updateDaemonSet enqueues a DaemonSet on every change (a resync retries
// one whose last creates failed; a status echo costs one cheap sync). A
// delete and re-create under one name that reach us as one update clear
// the old one's expectations first.
func (c *Controller) updateDaemonSet(oldObj, newObj api.Object) {
	oldDS, ok1 := oldObj.(*api.DaemonSet)
	curDS, ok2 := newObj.(*api.DaemonSet)
	if !ok1 || !ok2 {
		return
	}
	if oldDS.UID != curDS.UID {
		c.forgetDaemonSet(oldDS)
	}
	c.enqueue(curDS)
}

// deleteDaemonSet forgets a deleted DaemonSet's expectations and back-offs
// so a new one of the same name starts clean; its pods are the garbage
// collector's to delete.
func (c *Controller) deleteDaemonSet(obj any) {
	ds, ok := informer.DeletedObject[*api.DaemonSet](obj)
	if !ok {
		return
	}
	c.log.Debug("daemonset deleted", "key", keyOf(ds))
	c.forgetDaemonSet(ds)
	c.enqueue(ds)
}

func (c *Controller) forgetDaemonSet(ds *api.DaemonSet) {
	key := keyOf(ds)
	c.creations.Delete(key)
	c.deletions.Delete(key)
	c.failedPods.forget(ds.UID)
}

// addPod lowers its DaemonSet's expected creations, or, for an orphan,
// wakes the DaemonSets that might adopt it.
func (c *Controller) addPod(obj api.Object) {
	pod, ok := obj.(*api.Pod)
	if !ok {
		return
	}
	if pod.DeletionTimestamp != nil {
		// Seen first while already being deleted (a restart): a deletion
		// to observe, not a creation.
		c.deletePod(pod)
		return
	}
	if ref := controllerutil.GetControllerOf(&pod.ObjectMeta); ref != nil {
		ds := c.resolveControllerRef(pod.Namespace, ref)
		if ds == nil {
			return
		}
		c.creations.CreationObserved(keyOf(ds))
		c.enqueue(ds)
		return
	}
	for _, ds := range c.daemonSetsSelecting(pod) {
		c.enqueue(ds)
	}
}

// updatePod wakes the DaemonSets a pod change concerns: its controller
// (binding, readiness and phase changes all move the status), a former
// controller, and for a relabelled orphan every DaemonSet that might adopt
// it. A pod that got a deletionTimestamp counts as deleted at once.
func (c *Controller) updatePod(oldObj, newObj api.Object) {
	oldPod, ok1 := oldObj.(*api.Pod)
	curPod, ok2 := newObj.(*api.Pod)
	if !ok1 || !ok2 || curPod.ResourceVersion == oldPod.ResourceVersion {
		return
	}
	if curPod.DeletionTimestamp != nil {
		c.deletePod(curPod)
		return
	}
	curRef := controllerutil.GetControllerOf(&curPod.ObjectMeta)
	oldRef := controllerutil.GetControllerOf(&oldPod.ObjectMeta)
	if oldRef != nil && (curRef == nil || oldRef.UID != curRef.UID) {
		if ds := c.resolveControllerRef(oldPod.Namespace, oldRef); ds != nil {
			c.enqueue(ds)
		}
	}
	if curRef != nil {
		if ds := c.resolveControllerRef(curPod.Namespace, curRef); ds != nil {
			c.enqueue(ds)
		}
		return
	}
	if !maps.Equal(oldPod.Labels, curPod.Labels) || oldRef != nil {
		for _, ds := range c.daemonSetsSelecting(curPod) {
			c.enqueue(ds)
		}
	}
}

// deletePod counts a pod's deletion for its DaemonSet and enqueues it.
func (c *Controller) deletePod(obj any) {
	pod, ok := informer.DeletedObject[*api.Pod](obj)
	if !ok {
		return
	}
	ref := controllerutil.GetControllerOf(&pod.ObjectMeta)
	if ref == nil {
		return
	}
	ds := c.resolveControllerRef(pod.Namespace, ref)
	if ds == nil {
		return
	}
	c.deletions.DeletionObserved(keyOf(ds), keyOf(pod))
	c.enqueue(ds)
}

// addNode enqueues the DaemonSets that should run a pod on a new node.
func (c *Controller) addNode(obj api.Object) {
	node, ok := obj.(*api.Node)
	if !ok {
		return
	}
	for _, ds := range c.allDaemonSets() {
		if nodePlacement(node, ds).shouldRun {
			c.enqueue(ds)
		}
	}
}

// updateNode enqueues the DaemonSets for which the node's change matters.
// Most node updates are kubelet heartbeats (status only); only a change to
// labels, taints or spec.unschedulable can change where daemon pods
// belong, and then only DaemonSets whose placement on this node moved.
func (c *Controller) updateNode(oldObj, newObj api.Object) {
	oldNode, ok1 := oldObj.(*api.Node)
	curNode, ok2 := newObj.(*api.Node)
	if !ok1 || !ok2 {
		return
	}
	if maps.Equal(oldNode.Labels, curNode.Labels) &&
		slices.EqualFunc(oldNode.Spec.Taints, curNode.Spec.Taints, sameTaint) &&
		oldNode.Spec.Unschedulable == curNode.Spec.Unschedulable {
		return
	}
	for _, ds := range c.allDaemonSets() {
		if nodePlacement(oldNode, ds) != nodePlacement(curNode, ds) {
			c.enqueue(ds)
		}
	}
}

// deleteNode enqueues every DaemonSet: those with a pod pinned to the node
// must delete it.
func (c *Controller) deleteNode(any) {
	for _, ds := range c.allDaemonSets() {
		c.enqueue(ds)
	}
}

// sameTaint compares taints without their timeAdded.
func sameTaint(a, b api.Taint) bool {
	return a.Key == b.Key && a.Value == b.Value && a.Effect == b.Effect
}

// resolveControllerRef returns the DaemonSet a controllerRef points to if
// the cache holds it with that UID, or nil.
func (c *Controller) resolveControllerRef(namespace string, ref *api.OwnerReference) *api.DaemonSet {
	if ref.Kind != kind {
		return nil
	}
	ds, err := c.dsLister.Namespace(namespace).Get(ref.Name)
	if err != nil || ds.UID != ref.UID {
		return nil
	}
	return ds
}

// daemonSetsSelecting returns the DaemonSets in pod's namespace whose
// selector matches its labels: the candidates to adopt an orphan.
func (c *Controller) daemonSetsSelecting(pod *api.Pod) []*api.DaemonSet {
	all, err := c.dsLister.Namespace(pod.Namespace).List(nil)
	if err != nil {
		return nil
	}
	var matching []*api.DaemonSet
	for _, ds := range all {
		selector, err := labels.FromLabelSelector(ds.Spec.Selector)
		if err != nil || selector.Empty() || !selector.Matches(pod.Labels) {
			continue
		}
		matching = append(matching, ds)
	}
	return matching
}

// allDaemonSets lists every cached DaemonSet.
func (c *Controller) allDaemonSets() []*api.DaemonSet {
	all, err := c.dsLister.List(nil)
	if err != nil {
		c.log.Error("list daemonsets", "err", err)
		return nil
	}
	return all
}
