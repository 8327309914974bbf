package endpointslice

// This file holds the informer event handlers. They only compute Service
// keys and queue them; all the work happens in sync. The pod handlers are
// controllerutil.ServicePodHandlers, which the endpoints controller registers
// too: both controllers resync the Services a pod event concerns by the
// same rule.

import (
	"kplane/pkg/api"
	"kplane/pkg/informer"
)

// enqueueKey queues the key of a Service. obj may be a delete handler's
// tombstone: MetaNamespaceKeyFunc reads the key it carries, even when the
// tombstone lost the Service's last state, so deleteService need not
// unwrap it (upstream's DeletionHandlingMetaNamespaceKeyFunc).
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

// deleteService queues a deleted Service, whose sync forgets it. obj may
// be a tombstone; only its key is needed.
func (c *Controller) deleteService(obj any) { c.enqueueKey(obj) }

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
// else, so that the slice is written again. obj may be a tombstone.
func (c *Controller) deleteSlice(obj any) {
	slice, ok := informer.DeletedObject[*api.EndpointSlice](obj)
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
