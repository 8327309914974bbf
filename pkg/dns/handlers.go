package dns

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/informer"
)

// This file connects the informers to the Table. Unlike a controller's
// handlers, which only enqueue a key for a worker, these apply the change
// at once: updating a view is cheap, needs no API call and cannot fail,
// so a queue would only delay the answer. Each informer calls its handler
// from one goroutine, in the order the changes happened.

// addEventHandlers registers the table's handlers on the Service,
// EndpointSlice and Namespace informers and returns the registrations,
// whose HasSynced says when the first lists are in the table.
func addEventHandlers(table *Table, services, slices, namespaces informer.SharedIndexInformer) ([]informer.ResourceEventHandlerRegistration, error) {
	handlers := []struct {
		informer informer.SharedIndexInformer
		handler  informer.ResourceEventHandler
	}{
		{services, informer.ResourceEventHandlerFuncs{
			AddFunc:    func(obj api.Object) { table.SetService(obj.(*api.Service)) },
			UpdateFunc: func(_, obj api.Object) { table.SetService(obj.(*api.Service)) },
			DeleteFunc: func(obj any) { deleted(obj, table.DeleteService) },
		}},
		{slices, informer.ResourceEventHandlerFuncs{
			AddFunc:    func(obj api.Object) { table.SetEndpointSlice(obj.(*api.EndpointSlice)) },
			UpdateFunc: func(_, obj api.Object) { table.SetEndpointSlice(obj.(*api.EndpointSlice)) },
			DeleteFunc: func(obj any) { deleted(obj, table.DeleteEndpointSlice) },
		}},
		{namespaces, informer.ResourceEventHandlerFuncs{
			AddFunc:    func(obj api.Object) { table.SetNamespace(obj.GetObjectMeta().Name) },
			UpdateFunc: func(_, obj api.Object) { table.SetNamespace(obj.GetObjectMeta().Name) },
			DeleteFunc: func(obj any) { deleted(obj, func(_, name string) { table.DeleteNamespace(name) }) },
		}},
	}
	var registrations []informer.ResourceEventHandlerRegistration
	for _, h := range handlers {
		reg, err := h.informer.AddEventHandler(h.handler)
		if err != nil {
			return nil, fmt.Errorf("add event handler: %w", err)
		}
		registrations = append(registrations, reg)
	}
	return registrations, nil
}

// deleted calls remove with the namespace and name of a deleted object,
// which OnDelete hands over either as the object or as a relist's
// tombstone (whose key names it even when its last state was lost).
func deleted(obj any, remove func(namespace, name string)) {
	key, err := informer.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	if namespace, name, err := informer.SplitMetaNamespaceKey(key); err == nil {
		remove(namespace, name)
	}
}
