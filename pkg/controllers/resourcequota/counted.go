package resourcequota

import (
	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
	"kplane/pkg/quota"
)

// This file is what upstream's QuotaMonitor does: it watches the resources
// whose objects quota charges and asks for a recount (replenishment) when
// one stops charging. kplane watches the resources that have their own
// quota names (pods, services, claims, configmaps, secrets, replication
// controllers, quotas); a count/<resource>.<group> of any other resource is
// recounted with a live list at each sync and given back at the next full
// resync.

// namespaceLister returns the objects of one resource in a namespace.
type namespaceLister func(namespace string) ([]api.Object, error)

// countedResources returns the listers of the resources the controller
// watches and the handlers that replenish quota when their objects change.
func (c *Controller) countedResources(informers *informer.SharedInformerFactory) (map[quota.GroupResource]namespaceLister, []controllerutil.Handlers) {
	listers := map[quota.GroupResource]namespaceLister{}
	var handlers []controllerutil.Handlers
	add := func(resource string, inf informer.SharedIndexInformer, list namespaceLister) {
		gr := quota.GroupResource{Resource: resource}
		listers[gr] = list
		handlers = append(handlers, controllerutil.Handlers{Informer: inf, Handler: c.replenishHandler(quota.EvaluatorFor(gr))})
	}
	add("pods", informers.Pods().Informer(), objectsOf(informers.Pods().Lister()))
	add("services", informers.Services().Informer(), objectsOf(informers.Services().Lister()))
	add("persistentvolumeclaims", informers.PersistentVolumeClaims().Informer(), objectsOf(informers.PersistentVolumeClaims().Lister()))
	add("configmaps", informers.ConfigMaps().Informer(), objectsOf(informers.ConfigMaps().Lister()))
	add("secrets", informers.Secrets().Informer(), objectsOf(informers.Secrets().Lister()))
	add("replicationcontrollers", informers.ReplicationControllers().Informer(), objectsOf(informers.ReplicationControllers().Lister()))
	// Quotas count themselves (resourcequotas, count/resourcequotas); the
	// quota informer's own handlers already see their deletes.
	listers[quota.GroupResource{Resource: "resourcequotas"}] = objectsOf(informers.ResourceQuotas().Lister())
	return listers, handlers
}

// objectsOf adapts a typed lister to a namespaceLister.
func objectsOf[T api.Object](l *informer.Lister[T]) namespaceLister {
	return func(namespace string) ([]api.Object, error) {
		typed, err := l.Namespace(namespace).List(nil)
		if err != nil {
			return nil, err
		}
		objects := make([]api.Object, len(typed))
		for i, obj := range typed {
			objects[i] = obj
		}
		return objects, nil
	}
}

// replenishHandler asks for a recount of the namespace's quotas when an
// object is deleted, or updated so that it charges differently (a pod
// that finished, a Service that is no longer a LoadBalancer). Creates need
// nothing: admission has charged them.
func (c *Controller) replenishHandler(e quota.Evaluator) informer.ResourceEventHandler {
	return informer.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj api.Object) {
			now := c.clock.Now()
			oldUsage, err1 := e.Usage(oldObj, now)
			newUsage, err2 := e.Usage(newObj, now)
			if err1 == nil && err2 == nil && quota.Equals(oldUsage, newUsage) {
				return
			}
			c.replenish(e, newObj.GetObjectMeta().Namespace)
		},
		DeleteFunc: func(obj any) {
			if deleted, ok := informer.DeletedObject[api.Object](obj); ok {
				c.replenish(e, deleted.GetObjectMeta().Namespace)
			}
		},
	}
}
