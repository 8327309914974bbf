package endpointslice

// This file holds the informer event handlers. They only compute Service
// keys and queue them; all the work happens in sync.

import (
	"kplane/pkg/api"
	"kplane/pkg/informer"
)

// enqueueKey queues the key of obj (an object or a tombstone).
func (c *Controller) enqueueKey(obj any) {
	key, err := informer.MetaNamespaceKeyFunc(obj)
	if err != nil {
		c.log.Error("cannot compute key", "err", err)
		return
	}
	c.queue.Add(key)
}

// addService queues a new Service.
func (c *Controller) addService(obj api.Object) { c.enqueueKey(obj) }

// updateService queues a changed Service (its selector, ports or labels
// may differ).
func (c *Controller) updateService(_, newObj api.Object) { c.enqueueKey(newObj) }

// deleteService queues a deleted Service, whose sync forgets it.
func (c *Controller) deleteService(obj any) { c.enqueueKey(obj) }

// addPod queues the Services that select a new pod.
func (c *Controller) addPod(obj api.Object) {
	pod, ok := obj.(*api.Pod)
	if !ok {
		return
	}
	keys, err := servicesForPod(c.serviceLister.Namespace(pod.Namespace), pod)
	if err != nil {
		c.log.Error("cannot find the services of a pod", "pod", pod.Namespace+"/"+pod.Name, "err", err)
		return
	}
	for key := range keys {
		c.queue.Add(key)
	}
}

// updatePod queues the Services a pod change concerns (see servicesToUpdate).
func (c *Controller) updatePod(oldObj, newObj api.Object) {
	oldPod, ok1 := oldObj.(*api.Pod)
	newPod, ok2 := newObj.(*api.Pod)
	if !ok1 || !ok2 {
		return
	}
	keys, err := servicesToUpdate(c.serviceLister.Namespace(newPod.Namespace), oldPod, newPod)
	if err != nil {
		c.log.Error("cannot find the services of a pod", "pod", newPod.Namespace+"/"+newPod.Name, "err", err)
		return
	}
	for key := range keys {
		c.queue.Add(key)
	}
}

// deletePod queues the Services that selected a deleted pod. obj may be a
// tombstone when the deletion was only noticed by a relist.
func (c *Controller) deletePod(obj any) {
	if tombstone, ok := obj.(informer.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if pod, ok := obj.(*api.Pod); ok {
		c.addPod(pod)
	}
}

// addSlice queues the Service of a slice this controller manages but did
// not just write: one found at start-up, or created by someone else with
// its labels.
func (c *Controller) addSlice(obj api.Object) {
	if slice, ok := obj.(*api.EndpointSlice); ok && managed(slice) && c.tracker.shouldSync(slice) {
		c.queueServiceOf(slice)
	}
}

// updateSlice queues the Service of a slice that someone else changed, of
// a slice that moved between Services (its service-name label changed:
// both are queued), and of one that came under or left this controller's
// management.
func (c *Controller) updateSlice(oldObj, newObj api.Object) {
	oldSlice, ok1 := oldObj.(*api.EndpointSlice)
	newSlice, ok2 := newObj.(*api.EndpointSlice)
	if !ok1 || !ok2 {
		return
	}
	switch {
	case serviceKeyOf(oldSlice) != serviceKeyOf(newSlice):
		c.queueServiceOf(oldSlice)
		c.queueServiceOf(newSlice)
	case managed(oldSlice) != managed(newSlice):
		c.queueServiceOf(newSlice)
	case managed(newSlice) && c.tracker.shouldSync(newSlice):
		c.queueServiceOf(newSlice)
	}
}

// deleteSlice queues the Service of a managed slice deleted by someone
// else, so that the slice is written again.
func (c *Controller) deleteSlice(obj any) {
	if tombstone, ok := obj.(informer.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	slice, ok := obj.(*api.EndpointSlice)
	if !ok || !managed(slice) {
		return
	}
	if !c.tracker.deleted(slice) {
		c.queueServiceOf(slice)
	}
}

// managed reports whether this controller writes slice.
func managed(slice *api.EndpointSlice) bool {
	return slice.Labels[api.LabelManagedBy] == ManagedByValue
}

// queueServiceOf queues the Service a slice belongs to, if it names one.
func (c *Controller) queueServiceOf(slice *api.EndpointSlice) {
	if key := serviceKeyOf(slice); key != "" {
		c.queue.Add(key)
	}
}
