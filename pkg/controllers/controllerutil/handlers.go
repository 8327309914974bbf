package controllerutil

import (
	"fmt"

	"kplane/pkg/informer"
)

// Handlers pairs an informer with the event handlers a controller puts on
// it.
type Handlers struct {
	Informer informer.SharedIndexInformer
	Handler  informer.ResourceEventHandler
}

// AddEventHandlers registers each handler on its informer and returns the
// registrations' HasSynced functions, which the controller's Run hands to
// informer.WaitForCacheSync. An informer that is only read through its
// lister takes an empty informer.ResourceEventHandlerFuncs, so that its
// cache is waited for too. name is the controller's, for the error.
func AddEventHandlers(name string, all ...Handlers) ([]func() bool, error) {
	synced := make([]func() bool, 0, len(all))
	for _, h := range all {
		reg, err := h.Informer.AddEventHandler(h.Handler)
		if err != nil {
			return nil, fmt.Errorf("%s: add event handler: %w", name, err)
		}
		synced = append(synced, reg.HasSynced)
	}
	return synced, nil
}
