package statefulset

// This file holds the informer event handlers. They only find the sets a
// change concerns and enqueue their keys. The StatefulSet controller needs
// no expectations: its pods have fixed names, so creating one twice fails
// with AlreadyExists, and deletes carry the pod's uid as a precondition.

import (
	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

func (c *Controller) addSet(obj api.Object) {
	if set, ok := obj.(*api.StatefulSet); ok {
		c.enqueue(set)
	}
}

// updateSet enqueues on every change, resyncs included: a resync retries a
// set whose last writes failed.
func (c *Controller) updateSet(_, newObj api.Object) {
	if set, ok := newObj.(*api.StatefulSet); ok {
		c.enqueue(set)
	}
}

func (c *Controller) deleteSet(obj any) {
	if set, ok := informer.DeletedObject[*api.StatefulSet](obj); ok {
		c.enqueue(set)
	}
}

// addPod wakes the pod's set, or for an orphan every set that could adopt
// it.
func (c *Controller) addPod(obj api.Object) {
	pod, ok := obj.(*api.Pod)
	if !ok {
		return
	}
	c.enqueuePodOwners(pod)
}

// updatePod wakes the sets of both versions: a pod relabelled or released
// concerns its old set and maybe a new one. Every status change counts
// (a pod turning Ready is what OrderedReady waits for).
func (c *Controller) updatePod(oldObj, newObj api.Object) {
	oldPod, ok1 := oldObj.(*api.Pod)
	curPod, ok2 := newObj.(*api.Pod)
	if !ok1 || !ok2 || oldPod.ResourceVersion == curPod.ResourceVersion {
		return
	}
	c.enqueuePodOwners(curPod)
	if !sameController(oldPod, curPod) {
		c.enqueuePodOwners(oldPod)
	}
}

// deletePod wakes the pod's set: OrderedReady scale down and rolling
// updates wait for exactly this.
func (c *Controller) deletePod(obj any) {
	pod, ok := informer.DeletedObject[*api.Pod](obj)
	if !ok {
		return
	}
	if ref := controllerutil.GetControllerOf(&pod.ObjectMeta); ref != nil {
		if set := c.resolveControllerRef(pod.Namespace, ref); set != nil {
			c.enqueue(set)
		}
	}
}

// enqueuePodOwners enqueues pod's controlling set, or, if it is an orphan,
// every set whose selector matches it.
func (c *Controller) enqueuePodOwners(pod *api.Pod) {
	if ref := controllerutil.GetControllerOf(&pod.ObjectMeta); ref != nil {
		if set := c.resolveControllerRef(pod.Namespace, ref); set != nil {
			c.enqueue(set)
		}
		return
	}
	if pod.DeletionTimestamp != nil {
		return
	}
	sets, err := c.setLister.Namespace(pod.Namespace).List(nil)
	if err != nil {
		c.log.Error("list statefulsets", "namespace", pod.Namespace, "err", err)
		return
	}
	for _, set := range sets {
		selector, err := labels.FromLabelSelector(set.Spec.Selector)
		if err != nil || selector.Empty() || !selector.Matches(pod.Labels) {
			continue
		}
		c.enqueue(set)
	}
}

// resolveControllerRef returns the set a controllerRef points to if it is
// a StatefulSet in the cache with the same uid, nil otherwise.
func (c *Controller) resolveControllerRef(namespace string, ref *api.OwnerReference) *api.StatefulSet {
	if ref.Kind != "StatefulSet" {
		return nil
	}
	set, err := c.setLister.Namespace(namespace).Get(ref.Name)
	if err != nil || set.UID != ref.UID {
		return nil
	}
	return set
}

// sameController reports whether two pod versions have the same
// controller (both none counts as the same).
func sameController(a, b *api.Pod) bool {
	ra, rb := controllerutil.GetControllerOf(&a.ObjectMeta), controllerutil.GetControllerOf(&b.ObjectMeta)
	if ra == nil || rb == nil {
		return ra == rb
	}
	return ra.UID == rb.UID
}
