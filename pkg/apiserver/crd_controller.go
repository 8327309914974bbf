package apiserver

import (
	"context"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/informer/workqueue"
	"kplane/pkg/store"
)

// The CRD controller runs inside the apiserver, as upstream's
// apiextensions-apiserver runs its controllers in-process, because what it
// decides is what the apiserver serves. One sync per CRD name does, in
// order, the work of upstream's:
//
//   - naming controller: the names a CRD asks for (spec.names) are
//     accepted into status.acceptedNames unless another CRD of the group
//     (or a built-in resource of it) holds them; the NamesAccepted
//     condition says which name conflicts;
//   - establishing controller: once its names are accepted the CRD is
//     Established, and from then on its served versions are served
//     (customresource_registry.go);
//   - registration controller: each group/version a CRD serves is listed
//     as a Local APIService (crd_apiservices.go);
//   - finalizer controller: a CRD marked for deletion (handlers_delete.go
//     puts on the customresourcecleanup finalizer) takes no new objects,
//     has every object deleted — their own finalizers honoured — and loses
//     its finalizer once none is left; then it is gone and so are its
//     paths.
//
// Namespace deletion and the garbage collector find custom resources in
// discovery, outside the apiserver: the namespace controller deletes the
// namespaced ones with a namespace (controllers/namespace/content.go), and
// the garbage collector watches each with a dynamic informer
// (controllers/garbagecollector/monitors.go).

// crdResyncDelay is how soon a CRD whose objects are still being deleted
// is looked at again (upstream's finalizer polls each second too).
const crdResyncDelay = time.Second

// crdController keeps what the apiserver serves in line with the CRDs.
type crdController struct {
	s     *Server
	crds  *resource // apiextensions.k8s.io/v1 customresourcedefinitions
	queue *workqueue.Queue[string]
}

// runCRDController starts the controller; it stops with ctx.
func (s *Server) runCRDController(ctx context.Context) {
	c := &crdController{s: s, crds: s.reg.lookup(api.APIExtensionsGroupName, "v1", "customresourcedefinitions"),
		queue: workqueue.New(workqueue.Options[string]{Name: "crd", Clock: s.clock})}
	for _, crd := range c.listCRDs() {
		if err := c.sync(ctx, crd.Name); err != nil {
			s.log.Warn("serve customresourcedefinition at start", "name", crd.Name, "err", err)
		}
	}
	go c.watch(ctx)
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	go c.work(ctx)
}

// watch enqueues every CRD, then each CRD that changes, re-watching when
// a watch ends.
func (c *crdController) watch(ctx context.Context) {
	cache := c.s.caches[c.crds]
	for ctx.Err() == nil {
		entries, revision, err := cache.List(ctx, c.crds.keyPrefix(""), 0)
		if err == nil {
			for _, e := range entries {
				c.queue.Add(e.Object.(*storedObject).obj.GetObjectMeta().Name)
			}
			c.follow(ctx, revision)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// follow enqueues the CRD of each event after revision until the watch
// ends. A change of a CRD's accepted names may free or take names the
// others of its group want, so they are enqueued too.
func (c *crdController) follow(ctx context.Context, revision int64) {
	w, err := c.s.caches[c.crds].Watch(ctx, c.crds.keyPrefix(""), revision, false)
	if err != nil {
		return
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok || ev.Type == store.Error {
				return
			}
			so, isStored := ev.Object.(*storedObject)
			if !isStored {
				continue
			}
			crd := so.obj.(*api.CustomResourceDefinition)
			c.queue.Add(crd.Name)
			if ev.Type == store.Deleted || namesMoved(ev.PrevObject, crd) {
				c.enqueueGroup(crd.Spec.Group)
			}
		}
	}
}

// namesMoved says whether an event changed a CRD's accepted names.
func namesMoved(prev any, crd *api.CustomResourceDefinition) bool {
	so, ok := prev.(*storedObject)
	if !ok {
		return true
	}
	old := so.obj.(*api.CustomResourceDefinition)
	return acceptedNamesKey(old) != acceptedNamesKey(crd)
}

// acceptedNamesKey is a CRD's accepted names as one comparable string.
func acceptedNamesKey(crd *api.CustomResourceDefinition) string {
	n := crd.Status.AcceptedNames
	return strings.Join([]string{n.Plural, n.Singular, n.Kind, n.ListKind, strings.Join(n.ShortNames, ",")}, "/")
}

// enqueueGroup enqueues every CRD of group.
func (c *crdController) enqueueGroup(group string) {
	for _, crd := range c.listCRDs() {
		if crd.Spec.Group == group {
			c.queue.Add(crd.Name)
		}
	}
}

// listCRDs lists the CRDs the watch cache holds.
func (c *crdController) listCRDs() []*api.CustomResourceDefinition {
	entries, _, err := c.s.caches[c.crds].List(context.Background(), c.crds.keyPrefix(""), 0)
	if err != nil {
		return nil
	}
	crds := make([]*api.CustomResourceDefinition, 0, len(entries))
	for _, e := range entries {
		crds = append(crds, e.Object.(*storedObject).obj.(*api.CustomResourceDefinition))
	}
	return crds
}

// work syncs CRD names from the queue until it shuts down. A failed sync
// is retried with the queue's back-off.
func (c *crdController) work(ctx context.Context) {
	for {
		name, shutdown := c.queue.Get()
		if shutdown {
			return
		}
		if err := c.sync(ctx, name); err != nil {
			if ctx.Err() == nil {
				c.s.log.Warn("sync customresourcedefinition", "name", name, "err", err)
			}
			c.queue.AddRateLimited(name)
		} else {
			c.queue.Forget(name)
		}
		c.queue.Done(name)
	}
}

// sync brings one CRD's status and what the server serves for it one
// step closer to what the CRD asks for.
func (c *crdController) sync(ctx context.Context, name string) error {
	entry, found := c.s.caches[c.crds].Get(c.crds.key("", name))
	if !found {
		c.s.stopServingCustomResources(name)
		return c.syncAPIServices(ctx, groupOfCRDName(name))
	}
	crd := entry.Object.(*storedObject).obj.(*api.CustomResourceDefinition)
	if err := c.syncAPIServices(ctx, crd.Spec.Group); err != nil {
		return err
	}

	if crd.DeletionTimestamp == nil || api.CRDHasFinalizer(crd, api.CustomResourceCleanupFinalizer) {
		written, err := c.updateNamesAndConditions(ctx, crd)
		if err != nil || written {
			// A written status comes back through the watch, and the
			// next sync works from it rather than from this older copy.
			return err
		}
	}
	if api.IsCRDConditionTrue(crd, api.Established) {
		if err := c.s.serveCustomResources(ctx, crd.Name, crdFingerprint(crd), customResourcesOf(crd)); err != nil {
			return err
		}
	} else {
		c.s.stopServingCustomResources(crd.Name)
	}
	if crd.DeletionTimestamp != nil && api.CRDHasFinalizer(crd, api.CustomResourceCleanupFinalizer) {
		return c.finalize(ctx, crd)
	}
	return nil
}

// updateNamesAndConditions writes the accepted names and the
// NamesAccepted and Established conditions when they differ from what
// the CRD holds, and says whether it wrote.
func (c *crdController) updateNamesAndConditions(ctx context.Context, crd *api.CustomResourceDefinition) (written bool, err error) {
	names, namesAccepted, established := c.calculateNames(crd)
	if namesAccepted.Status == api.ConditionTrue && established.Status != api.ConditionTrue && crd.DeletionTimestamp == nil {
		// The establishing controller's step: a single apiserver serves
		// the names as soon as they are accepted.
		established = api.CustomResourceDefinitionCondition{Type: api.Established, Status: api.ConditionTrue,
			Reason: "InitialNamesAccepted", Message: "the initial names have been accepted"}
	}
	if sameNames(crd.Status.AcceptedNames, names) && sameCondition(crd, namesAccepted) && sameCondition(crd, established) {
		return false, nil
	}
	if established.Status == api.ConditionTrue && !api.IsCRDConditionTrue(crd, api.Established) {
		// Serve first, then say so: a client that waits for Established
		// finds the paths there (on this apiserver) when it sees it.
		next := api.DeepCopy(crd)
		next.Status.AcceptedNames = names
		api.SetCRDCondition(next, established, c.s.now())
		if err := c.s.serveCustomResources(ctx, next.Name, crdFingerprint(next), customResourcesOf(next)); err != nil {
			return false, err
		}
	}
	return true, c.updateStatus(ctx, crd.Name, func(next *api.CustomResourceDefinition, now api.Time) {
		next.Status.AcceptedNames = names
		api.SetCRDCondition(next, namesAccepted, now)
		api.SetCRDCondition(next, established, now)
	})
}

// updateStatus changes the stored CRD's status with change, through the
// same write path as a client's PUT on /status.
func (c *crdController) updateStatus(ctx context.Context, name string, change func(*api.CustomResourceDefinition, api.Time)) error {
	_, err := c.s.guaranteedUpdate(ctx, c.crds, "", name, updateStatus, false, func(current *storedObject) (api.Object, error) {
		next, err := copyOf(c.crds, current)
		if err != nil {
			return nil, err
		}
		change(next.(*api.CustomResourceDefinition), c.s.now())
		return next, nil
	})
	return err
}
