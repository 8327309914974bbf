package podautoscaler

// The informer handlers: they only decide when an HPA is reconciled.

import (
	"reflect"

	"kplane/pkg/api"
	"kplane/pkg/informer"
)

// hpaAdded reconciles a new HPA at once. (Upstream puts even a new HPA
// behind the sync period; kplane does not make a student wait 15 s for the
// first status.)
func (c *Controller) hpaAdded(obj api.Object) {
	if hpa, ok := obj.(*api.HorizontalPodAutoscaler); ok {
		c.queue.Add(key(hpa))
	}
}

// hpaUpdated reconciles an HPA whose spec changed at once; a status-only
// change (the controller's own write) waits for the next period, which the
// last sync has already scheduled.
func (c *Controller) hpaUpdated(oldObj, newObj api.Object) {
	old, ok1 := oldObj.(*api.HorizontalPodAutoscaler)
	hpa, ok2 := newObj.(*api.HorizontalPodAutoscaler)
	if ok1 && ok2 && !reflect.DeepEqual(old.Spec, hpa.Spec) {
		c.queue.Add(key(hpa))
	}
}

// hpaDeleted lets the sync forget the HPA's history.
func (c *Controller) hpaDeleted(obj any) {
	if hpa, ok := informer.DeletedObject[*api.HorizontalPodAutoscaler](obj); ok {
		c.queue.Add(key(hpa))
	}
}

// key is an HPA's queue key, "namespace/name".
func key(hpa *api.HorizontalPodAutoscaler) string {
	return hpa.Namespace + "/" + hpa.Name
}
