package apiserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
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
// Namespace deletion and the garbage collector do not know custom
// resources yet: the namespace controller's list of namespaced resources
// and the garbage collector's graph will take them from discovery, which
// lists them already.

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

// calculateNames is upstream's naming rule: each requested name is
// accepted when it is already this CRD's or no other CRD of the group
// (nor a built-in resource of it) has it; a name that is not keeps the
// one accepted before, and NamesAccepted says why.
func (c *crdController) calculateNames(crd *api.CustomResourceDefinition) (api.CustomResourceDefinitionNames, api.CustomResourceDefinitionCondition, api.CustomResourceDefinitionCondition) {
	usedResources, usedKinds := c.namesTakenInGroup(crd)
	return acceptNames(crd, usedResources, usedKinds)
}

// acceptNames is calculateNames given the resource names and kinds the
// rest of the group holds: the names crd is given, its NamesAccepted
// condition, and its Established condition before the establishing step.
func acceptNames(crd *api.CustomResourceDefinition, usedResources, usedKinds map[string]bool) (api.CustomResourceDefinitionNames, api.CustomResourceDefinitionCondition, api.CustomResourceDefinitionCondition) {
	requested, accepted := crd.Spec.Names, crd.Status.AcceptedNames
	names := accepted
	cond := api.CustomResourceDefinitionCondition{Type: api.NamesAccepted, Status: api.ConditionUnknown}
	conflict := func(reason string, err error) {
		cond.Status, cond.Reason, cond.Message = api.ConditionFalse, reason, err.Error()
	}
	if err := acceptedOrFree(requested.Plural, accepted.Plural, usedResources); err != nil {
		conflict("PluralConflict", err)
	} else {
		names.Plural = requested.Plural
	}
	if err := acceptedOrFree(requested.Singular, accepted.Singular, usedResources); err != nil {
		conflict("SingularConflict", err)
	} else {
		names.Singular = requested.Singular
	}
	if !slices.Equal(requested.ShortNames, accepted.ShortNames) {
		var errs []error
		for _, short := range requested.ShortNames {
			if slices.Contains(accepted.ShortNames, short) {
				continue
			}
			if err := acceptedOrFree(short, "", usedResources); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			conflict("ShortNamesConflict", apierrors.Aggregate(errs))
		} else {
			names.ShortNames = requested.ShortNames
		}
	}
	if err := acceptedOrFree(requested.Kind, accepted.Kind, usedKinds); err != nil {
		conflict("KindConflict", err)
	} else {
		names.Kind = requested.Kind
	}
	if err := acceptedOrFree(requested.ListKind, accepted.ListKind, usedKinds); err != nil {
		conflict("ListKindConflict", err)
	} else {
		names.ListKind = requested.ListKind
	}
	names.Categories = requested.Categories
	if cond.Status == api.ConditionUnknown {
		cond.Status, cond.Reason, cond.Message = api.ConditionTrue, "NoConflicts", "no conflicts found"
	}

	established := api.CustomResourceDefinitionCondition{Type: api.Established, Status: api.ConditionFalse,
		Reason: "NotAccepted", Message: "not all names are accepted"}
	if old := api.FindCRDCondition(crd, api.Established); old != nil {
		established = *old
	}
	if established.Status != api.ConditionTrue && cond.Status == api.ConditionTrue {
		established = api.CustomResourceDefinitionCondition{Type: api.Established, Status: api.ConditionFalse,
			Reason: "Installing", Message: "the initial names have been accepted"}
	}
	return names, cond, established
}

// namesTakenInGroup lists the resource names (plurals, singulars, short
// names) and kinds the other CRDs of crd's group have been given, and
// those of the built-in resources of the group.
func (c *crdController) namesTakenInGroup(crd *api.CustomResourceDefinition) (resources, kinds map[string]bool) {
	resources, kinds = map[string]bool{}, map[string]bool{}
	for _, other := range c.listCRDs() {
		if other.Spec.Group != crd.Spec.Group || other.Name == crd.Name {
			continue
		}
		n := other.Status.AcceptedNames
		for _, name := range append([]string{n.Plural, n.Singular}, n.ShortNames...) {
			if name != "" {
				resources[name] = true
			}
		}
		for _, kind := range []string{n.Kind, n.ListKind} {
			if kind != "" {
				kinds[kind] = true
			}
		}
	}
	for _, res := range c.s.reg.all {
		if res.group != crd.Spec.Group {
			continue
		}
		resources[res.plural], resources[res.singular] = true, true
		kinds[res.kind], kinds[res.kind+"List"] = true, true
		for _, short := range res.shortNames {
			resources[short] = true
		}
	}
	return resources, kinds
}

// acceptedOrFree is nil when requested is the name already accepted or
// nobody uses it.
func acceptedOrFree(requested, accepted string, used map[string]bool) error {
	if requested == accepted || !used[requested] {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}

// sameNames compares two sets of names.
func sameNames(a, b api.CustomResourceDefinitionNames) bool {
	return a.Plural == b.Plural && a.Singular == b.Singular && a.Kind == b.Kind && a.ListKind == b.ListKind &&
		slices.Equal(a.ShortNames, b.ShortNames) && slices.Equal(a.Categories, b.Categories)
}

// sameCondition says whether crd already holds cond (type, status, reason
// and message).
func sameCondition(crd *api.CustomResourceDefinition, cond api.CustomResourceDefinitionCondition) bool {
	have := api.FindCRDCondition(crd, cond.Type)
	return have != nil && have.Status == cond.Status && have.Reason == cond.Reason && have.Message == cond.Message
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

// finalize is the finalizer controller's step for a CRD marked for
// deletion: delete every object of it (each goes when its own finalizers
// allow), and once none is left take off the cleanup finalizer, which
// lets the CRD go.
func (c *crdController) finalize(ctx context.Context, crd *api.CustomResourceDefinition) error {
	res := c.s.storageResourceOf(crd)
	if res != nil && api.IsCRDConditionTrue(crd, api.Established) {
		remaining, err := c.deleteInstances(ctx, res)
		if err != nil {
			_ = c.setTerminating(ctx, crd, api.ConditionTrue, "InstanceDeletionFailed", fmt.Sprintf("could not issue all deletes: %v", err))
			return err
		}
		if remaining > 0 {
			if err := c.setTerminating(ctx, crd, api.ConditionTrue, "InstanceDeletionInProgress", "CustomResource deletion is in progress"); err != nil {
				return err
			}
			c.queue.AddAfter(crd.Name, crdResyncDelay)
			return nil
		}
	}
	if err := c.setTerminating(ctx, crd, api.ConditionFalse, "InstanceDeletionCompleted", "removed all instances"); err != nil {
		return err
	}
	_, err := c.s.guaranteedUpdate(ctx, c.crds, "", crd.Name, updateMain, false, func(current *storedObject) (api.Object, error) {
		next, err := copyOf(c.crds, current)
		if err != nil {
			return nil, err
		}
		meta := next.GetObjectMeta()
		meta.Finalizers = slices.DeleteFunc(meta.Finalizers, func(f string) bool { return f == api.CustomResourceCleanupFinalizer })
		meta.ResourceVersion = ""
		return next, nil
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// setTerminating sets the Terminating condition unless it already reads so.
func (c *crdController) setTerminating(ctx context.Context, crd *api.CustomResourceDefinition, status api.ConditionStatus, reason, message string) error {
	cond := api.CustomResourceDefinitionCondition{Type: api.Terminating, Status: status, Reason: reason, Message: message}
	if sameCondition(crd, cond) {
		return nil
	}
	err := c.updateStatus(ctx, crd.Name, func(next *api.CustomResourceDefinition, now api.Time) { api.SetCRDCondition(next, cond, now) })
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// deleteInstances deletes every object of res that is not yet being
// deleted, through the same delete as a client's, and returns how many
// objects are left.
func (c *crdController) deleteInstances(ctx context.Context, res *resource) (remaining int, err error) {
	page, err := c.s.store.List(ctx, res.keyPrefix(""), store.ListOptions{})
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, kv := range page.Items {
		so, err := c.s.decodeStored(res, kv)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		meta := so.obj.GetObjectMeta()
		if meta.DeletionTimestamp != nil {
			remaining++
			continue
		}
		_, removed, err := c.s.delete(ctx, res, meta.Namespace, meta.Name, api.DeleteOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			errs = append(errs, err)
			remaining++
		case !removed:
			remaining++
		}
	}
	if page.More {
		remaining++ // more than one page: look again
	}
	return remaining, errors.Join(errs...)
}

// storageResourceOf is the served resource of crd's storage version, or
// of any served version (they share the stored objects), or nil when
// none is served.
func (s *Server) storageResourceOf(crd *api.CustomResourceDefinition) *resource {
	served := s.custom.set().byCRD[crd.Name]
	if served == nil || len(served.resources) == 0 {
		return nil
	}
	for _, res := range served.resources {
		if res.groupVersion() == res.custom.storageAPIVersion {
			return res
		}
	}
	return served.resources[0]
}
