package replicaset

// This file holds the informer event handlers. They only work out which
// owners a change concerns, enqueue their keys, and keep the expectations
// up to date ("one of the pods I created has arrived"); the work happens
// in Sync.

import (
	"fmt"
	"maps"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

// addOwner enqueues a new owner.
func (c *Controller[T]) addOwner(obj api.Object) {
	owner, ok := obj.(T)
	if !ok {
		return
	}
	c.log.Debug("owner added", "key", keyOf(obj))
	c.enqueue(owner)
}

// updateOwner enqueues an owner on every change, not only when its
// replicas or generation change: a resync then retries an owner whose last
// creates failed, and a status write echoing back costs one cheap sync.
func (c *Controller[T]) updateOwner(oldObj, newObj api.Object) {
	oldOwner, ok1 := oldObj.(T)
	newOwner, ok2 := newObj.(T)
	if !ok1 || !ok2 {
		return
	}
	// A delete and a re-create under the same name can reach us as one
	// update (a relist merged them); treat the old one as deleted so its
	// expectations do not leak into the new one.
	if oldObj.GetObjectMeta().UID != newObj.GetObjectMeta().UID {
		c.deleteOwner(oldOwner)
	}
	c.enqueue(newOwner)
}

// deleteOwner forgets a deleted owner's expectations, so that a new owner
// with the same name starts clean, and enqueues its key (the sync finds it
// gone). obj is a T or a tombstone holding one.
func (c *Controller[T]) deleteOwner(obj any) {
	owner, ok := informer.DeletedObject[T](obj)
	if !ok {
		c.log.Error("unexpected object in owner delete", "type", typeName(obj))
		return
	}
	key := keyOf(owner)
	c.log.Debug("owner deleted", "key", key)
	c.expectations.Delete(key)
	c.queue.Add(key)
}

// addPod tells the pod's controller that one of the pods it expected has
// arrived, or, for an orphan, wakes every owner that might adopt it.
func (c *Controller[T]) addPod(obj api.Object) {
	pod, ok := obj.(*api.Pod)
	if !ok {
		return
	}
	if pod.DeletionTimestamp != nil {
		// After a controller-manager restart a pod can appear already
		// being deleted; that is a deletion to observe, not a creation.
		c.deletePod(pod)
		return
	}
	if ref := controllerutil.GetControllerOf(&pod.ObjectMeta); ref != nil {
		owner, found := c.resolveControllerRef(pod.Namespace, ref)
		if !found {
			return
		}
		key := keyOf(owner)
		c.log.Debug("pod created", "pod", keyOf(pod), "owner", key)
		c.expectations.CreationObserved(key)
		c.queue.Add(key)
		return
	}
	// An orphan: no one waits for it, so no expectation is lowered; every
	// owner whose selector matches gets a chance to adopt it.
	for _, owner := range c.ownersSelecting(pod) {
		c.log.Debug("orphan pod created", "pod", keyOf(pod), "owner", keyOf(owner))
		c.enqueue(owner)
	}
}

// updatePod wakes the owners a pod change concerns: its controller, its
// former controller if the controllerRef changed, and, for an orphan whose
// labels or controllerRef changed, every owner that might adopt it.
func (c *Controller[T]) updatePod(oldObj, newObj api.Object) {
	oldPod, ok1 := oldObj.(*api.Pod)
	curPod, ok2 := newObj.(*api.Pod)
	if !ok1 || !ok2 || curPod.ResourceVersion == oldPod.ResourceVersion {
		return // a resync: nothing changed
	}
	labelsChanged := !maps.Equal(oldPod.Labels, curPod.Labels)
	if curPod.DeletionTimestamp != nil {
		// A graceful deletion starts by setting deletionTimestamp; the pod
		// leaves much later. Count the deletion now so the owner replaces
		// the pod at once instead of waiting for the kubelet.
		c.deletePod(curPod)
		if labelsChanged {
			c.deletePod(oldPod) // the old labels' owner may wait for it too
		}
		return
	}

	curRef := controllerutil.GetControllerOf(&curPod.ObjectMeta)
	oldRef := controllerutil.GetControllerOf(&oldPod.ObjectMeta)
	refChanged := !sameRef(oldRef, curRef)
	if refChanged && oldRef != nil {
		if owner, found := c.resolveControllerRef(oldPod.Namespace, oldRef); found {
			c.enqueue(owner)
		}
	}

	if curRef != nil {
		owner, found := c.resolveControllerRef(curPod.Namespace, curRef)
		if !found {
			return
		}
		c.enqueue(owner)
		// Nothing will announce the moment a ready pod becomes available
		// (ready for minReadySeconds), so look again then; the extra
		// second absorbs clock skew between here and the kubelet, as
		// upstream does.
		if view, err := c.kind.View(owner); err == nil && view.MinReadySeconds > 0 &&
			!controllerutil.IsPodReady(oldPod) && controllerutil.IsPodReady(curPod) {
			c.enqueueAfter(owner, time.Duration(view.MinReadySeconds)*time.Second+time.Second)
		}
		return
	}

	if labelsChanged || refChanged {
		for _, owner := range c.ownersSelecting(curPod) {
			c.enqueue(owner)
		}
	}
}

// deletePod counts a pod's deletion for its controller and enqueues it.
// obj is a *api.Pod or a DeletedFinalStateUnknown tombstone, whose pod may
// be stale: if its labels changed in between, the new owner only learns
// of it at its next sync.
func (c *Controller[T]) deletePod(obj any) {
	pod, ok := informer.DeletedObject[*api.Pod](obj)
	if !ok {
		c.log.Error("unexpected object in pod delete", "type", typeName(obj))
		return
	}
	ref := controllerutil.GetControllerOf(&pod.ObjectMeta)
	if ref == nil {
		return // no owner cares about an orphan leaving
	}
	owner, found := c.resolveControllerRef(pod.Namespace, ref)
	if !found {
		return
	}
	key := keyOf(owner)
	c.log.Debug("pod deleted", "pod", keyOf(pod), "owner", key, "deletionTimestamp", pod.DeletionTimestamp)
	c.expectations.DeletionObserved(key, keyOf(pod))
	c.queue.Add(key)
}

// resolveControllerRef returns the owner a controllerRef points to, if it
// is of this manager's kind and the cached owner of that name has the same
// UID (a lister cannot look up by UID).
func (c *Controller[T]) resolveControllerRef(namespace string, ref *api.OwnerReference) (T, bool) {
	var zero T
	if ref.Kind != c.kind.Kind {
		return zero, false
	}
	owner, err := c.kind.Informer.Lister().Namespace(namespace).Get(ref.Name)
	if err != nil || owner.GetObjectMeta().UID != ref.UID {
		return zero, false
	}
	return owner, true
}

// ownersSelecting returns the owners in pod's namespace whose selector
// matches its labels: the candidates to adopt an orphan. An owner with an
// empty selector matches nothing here, as upstream's GetPodReplicaSets.
func (c *Controller[T]) ownersSelecting(pod *api.Pod) []T {
	owners, err := c.kind.Informer.Lister().Namespace(pod.Namespace).List(nil)
	if err != nil {
		c.log.Error("list owners", "namespace", pod.Namespace, "err", err)
		return nil
	}
	var matching []T
	for _, owner := range owners {
		view, err := c.kind.View(owner)
		if err != nil || view.Selector.Empty() || !view.Selector.Matches(pod.Labels) {
			continue
		}
		matching = append(matching, owner)
	}
	if len(matching) > 1 {
		// ControllerRefs keep this safe (only one adopts), but it is a
		// user error worth a line in the log.
		c.log.Warn("more than one owner selects the same pod", "pod", keyOf(pod), "owners", len(matching))
	}
	return matching
}

// sameRef reports whether two controllerRefs are equal (both may be nil).
func sameRef(a, b *api.OwnerReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		boolValue(a.Controller) == boolValue(b.Controller) &&
		boolValue(a.BlockOwnerDeletion) == boolValue(b.BlockOwnerDeletion)
}

func boolValue(b *bool) bool { return b != nil && *b }

// keyOf returns obj's "namespace/name" key.
func keyOf(obj api.Object) string {
	key, _ := informer.MetaNamespaceKeyFunc(obj)
	return key
}

// typeName names obj's Go type for logs.
func typeName(obj any) string {
	if obj == nil {
		return "nil"
	}
	return fmt.Sprintf("%T", obj)
}
