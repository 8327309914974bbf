package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/protobuf"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/store"
)

// Deletion. An object without finalizers is removed from etcd at once.
// Otherwise it is only marked — metadata.deletionTimestamp is set — and
// stays until the controllers holding finalizers remove them (the last
// removal deletes it, see finishUpdate). Propagation policies add their own
// finalizer: Foreground adds "foregroundDeletion" (the owner waits for its
// dependents), Orphan adds "orphan" (the garbage collector strips owner
// references from the dependents first). A scheduled pod is deleted
// gracefully: marked with a grace period for its kubelet to stop it.

// Finalizers the garbage collector acts on.
const (
	finalizerOrphan     = "orphan"
	finalizerForeground = "foregroundDeletion"
)

// parseDeleteOptions reads DeleteOptions from the body or the query string.
func parseDeleteOptions(r *http.Request) (api.DeleteOptions, error) {
	var opts api.DeleteOptions
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return opts, apierrors.NewBadRequest(fmt.Sprintf("read request body: %v", err))
	}
	if len(body) > 0 {
		// client-go's typed clients send DeleteOptions as protobuf.
		decodeOptions := func() error { return json.Unmarshal(body, &opts) }
		if protobuf.IsProtobuf(r.Header.Get("Content-Type")) {
			decodeOptions = func() error { return protobuf.Decode(body, &opts) }
		}
		if err := decodeOptions(); err != nil {
			return opts, apierrors.NewBadRequest(fmt.Sprintf("invalid DeleteOptions: %v", err))
		}
	}
	// The query's options override the body's, as upstream decodes the
	// query into the same DeleteOptions after the body.
	q := queryOf(r)
	gracePeriod, err := q.optionalInt64("gracePeriodSeconds")
	if err != nil {
		return opts, err
	}
	if gracePeriod != nil {
		opts.GracePeriodSeconds = gracePeriod
	}
	if v := q.string("propagationPolicy"); v != "" {
		p := api.DeletionPropagation(v)
		opts.PropagationPolicy = &p
	}
	if orphan := q.optionalBool("orphanDependents"); orphan != nil {
		opts.OrphanDependents = orphan
	}
	opts.DryRun = append(opts.DryRun, q.list("dryRun")...)
	if err := validateDryRun("DeleteOptions", opts.DryRun); err != nil {
		return opts, err
	}
	if opts.PropagationPolicy != nil {
		switch *opts.PropagationPolicy {
		case api.DeletePropagationBackground, api.DeletePropagationForeground, api.DeletePropagationOrphan:
		default:
			return opts, apierrors.NewInvalid("DeleteOptions", "", "", apierrors.FieldErrorList{
				apierrors.NotSupported("propagationPolicy", string(*opts.PropagationPolicy), []string{"Foreground", "Background", "Orphan"})})
		}
	}
	return opts, nil
}

// serveDelete handles DELETE on one object.
func (s *Server) serveDelete(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	opts, err := parseDeleteOptions(r)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	if err := refuseSystemPriorityClassDelete(info.res, info.name); err != nil {
		response.WriteError(w, err)
		return
	}
	so, removed, err := s.delete(r.Context(), info.res, info.namespace, info.name, opts)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	s.writeDeleted(w, r, info.res, so, removed)
}

// writeDeleted answers a delete: the object while it is only marked, and for
// a removed one either the object (pods) or a Success Status, as upstream.
func (s *Server) writeDeleted(w http.ResponseWriter, r *http.Request, res *resource, so *storedObject, removed bool) {
	if !removed || res.returnDeletedObject {
		s.writeObject(w, r, http.StatusOK, res, so)
		return
	}
	meta := so.obj.GetObjectMeta()
	response.WriteJSON(w, http.StatusOK, api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   "Success",
		Details:  &api.StatusDetails{Name: meta.Name, Group: res.group, Kind: res.plural, UID: meta.UID},
	})
}

// delete removes or marks one object. removed says it is gone from etcd.
func (s *Server) delete(ctx context.Context, res *resource, namespace, name string, opts api.DeleteOptions) (so *storedObject, removed bool, err error) {
	dryRun := len(opts.DryRun) > 0
	key := res.key(namespace, name)
	for attempt := 0; attempt <= maxUpdateRetries; attempt++ {
		kv, err := s.store.Get(ctx, key)
		if err != nil {
			return nil, false, storeError(err, res, name)
		}
		current, err := s.decodeStored(res, kv)
		if err != nil {
			return nil, false, err
		}
		if err := checkPreconditions(res, current.obj, opts.Preconditions); err != nil {
			return nil, false, err
		}
		if err := nodeRestrictDelete(ctx, res, current.obj); err != nil {
			return nil, false, err
		}
		obj, err := copyOf(res, current)
		if err != nil {
			return nil, false, err
		}
		if markForDeletion(res, obj, opts, s.now()) {
			value, err := s.encodeChecked(res, obj)
			if err != nil {
				return nil, false, err
			}
			if dryRun || string(value) == string(kv.Value) {
				return current, false, nil
			}
			began := s.writeBegins()
			written, err := s.store.Update(ctx, key, value, kv.ModRevision)
			if errors.Is(err, store.ErrConflict) {
				continue
			}
			if err != nil {
				return nil, false, storeError(err, res, name)
			}
			s.recordWrite(ctx, "update", res, obj, written.ModRevision, began)
			so, err := s.stored(res, key, obj, written.ModRevision)
			return so, false, err
		}
		if dryRun {
			return current, true, nil
		}
		began := s.writeBegins()
		deleted, err := s.store.Delete(ctx, key, kv.ModRevision)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return nil, false, storeError(err, res, name)
		}
		s.afterDelete(res, current.obj)
		s.recordWrite(ctx, "delete", res, obj, deleted.ModRevision, began)
		so, err := s.stored(res, key, obj, deleted.ModRevision)
		return so, true, err
	}
	return nil, false, apierrors.NewConflict(res.qualified(), name, "the object kept changing while being deleted; try again")
}

// checkPreconditions enforces DeleteOptions.preconditions.
func checkPreconditions(res *resource, obj api.Object, pre *api.Preconditions) error {
	if pre == nil {
		return nil
	}
	meta := obj.GetObjectMeta()
	if pre.UID != nil && *pre.UID != meta.UID {
		return apierrors.NewConflict(res.qualified(), meta.Name,
			fmt.Sprintf("Precondition failed: UID in precondition: %s, UID in object meta: %s", *pre.UID, meta.UID))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != meta.ResourceVersion {
		return apierrors.NewConflict(res.qualified(), meta.Name,
			fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s", *pre.ResourceVersion, meta.ResourceVersion))
	}
	return nil
}

// markForDeletion decides between marking and removing. It returns true when
// obj was changed into its "being deleted" state and must be written back
// rather than removed.
func markForDeletion(res *resource, obj api.Object, opts api.DeleteOptions, now api.Time) bool {
	meta := obj.GetObjectMeta()

	policy := api.DeletePropagationBackground
	if opts.OrphanDependents != nil && *opts.OrphanDependents {
		policy = api.DeletePropagationOrphan
	}
	if opts.PropagationPolicy != nil {
		policy = *opts.PropagationPolicy
	}
	switch policy {
	case api.DeletePropagationOrphan:
		if !slices.Contains(meta.Finalizers, finalizerOrphan) {
			meta.Finalizers = append(meta.Finalizers, finalizerOrphan)
		}
	case api.DeletePropagationForeground:
		if !slices.Contains(meta.Finalizers, finalizerForeground) {
			meta.Finalizers = append(meta.Finalizers, finalizerForeground)
		}
	}

	// Graceful deletion of a pod that a kubelet is running.
	if pod, ok := obj.(*api.Pod); ok {
		grace := int64(api.DefaultTerminationGracePeriodSeconds)
		if pod.Spec.TerminationGracePeriodSeconds != nil {
			grace = *pod.Spec.TerminationGracePeriodSeconds
		}
		if opts.GracePeriodSeconds != nil {
			grace = *opts.GracePeriodSeconds
		}
		if pod.Spec.NodeName == "" || pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
			grace = 0 // nothing runs it: no one to wait for
		}
		if grace > 0 {
			deadline := api.NewTime(now.Add(time.Duration(grace) * time.Second))
			if meta.DeletionTimestamp == nil || deadline.Before(meta.DeletionTimestamp.Time) {
				meta.DeletionTimestamp = &deadline
				meta.DeletionGracePeriodSeconds = &grace
			}
			return true
		}
		if meta.DeletionTimestamp != nil && len(meta.Finalizers) == 0 {
			return false // a kubelet confirming the stop: remove it now
		}
		if meta.DeletionTimestamp != nil {
			// The wait is over, but finalizers hold the pod: record a
			// grace period of 0, so it goes when the last one is removed.
			zero := int64(0)
			if now.Before(meta.DeletionTimestamp.Time) {
				meta.DeletionTimestamp = &now
			}
			meta.DeletionGracePeriodSeconds = &zero
			return true
		}
	}

	// A namespace is emptied by the namespace controller before it goes.
	if ns, ok := obj.(*api.Namespace); ok {
		if len(ns.Spec.Finalizers) > 0 || len(meta.Finalizers) > 0 {
			if meta.DeletionTimestamp == nil {
				meta.DeletionTimestamp = &now
				zero := int64(0)
				meta.DeletionGracePeriodSeconds = &zero
			}
			ns.Status.Phase = api.NamespaceTerminating
			return true
		}
		return false
	}

	if crd, ok := obj.(*api.CustomResourceDefinition); ok {
		markCRDForDeletion(crd, now)
	}

	if len(meta.Finalizers) == 0 {
		return false
	}
	if meta.DeletionTimestamp == nil {
		meta.DeletionTimestamp = &now
		zero := int64(0)
		meta.DeletionGracePeriodSeconds = &zero
	}
	return true
}

// afterDelete releases what a removed object held.
func (s *Server) afterDelete(res *resource, obj api.Object) {
	if svc, ok := obj.(*api.Service); ok {
		s.alloc.releaseService(svc, nil)
	}
}

// serveDeleteCollection deletes every object a list request would return.
func (s *Server) serveDeleteCollection(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	opts, err := parseDeleteOptions(r)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	sel, err := parseSelectors(r, info.res)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	c, err := s.cacheOf(info.res)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	entries, rev, err := c.List(r.Context(), info.res.keyPrefix(info.namespace), 0)
	if err != nil {
		response.WriteError(w, storeError(err, info.res, ""))
		return
	}
	result := listResult{revision: rev, items: []*storedObject{}}
	for _, e := range entries {
		so := e.Object.(*storedObject)
		if !sel.matches(so) {
			continue
		}
		meta := so.obj.GetObjectMeta()
		deleted, _, err := s.delete(r.Context(), info.res, meta.Namespace, meta.Name, opts)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			response.WriteError(w, err)
			return
		}
		result.items = append(result.items, deleted)
	}
	response.WriteRaw(w, http.StatusOK, response.ContentTypeJSON, encodeList(info.res, result))
}
