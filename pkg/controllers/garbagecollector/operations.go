package garbagecollector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// This file is every request the collector sends. It works on any kind, so
// it uses the dynamic client and reads only the object's metadata.

// dynamicFor returns a dynamic client for the object ref names.
func (c *Controller) dynamicFor(ref objectReference) (*client.DynamicClient, error) {
	res, err := c.mapper.resourceFor(ref.APIVersion, ref.Kind)
	if err != nil {
		return nil, err
	}
	d := c.client.Dynamic(res)
	if res.Namespaced {
		d = d.Namespace(ref.Namespace)
	}
	return d, nil
}

// getObject reads the live metadata of the object named by ref's kind,
// namespace and name. The uid is not checked here: callers compare it.
func (c *Controller) getObject(ctx context.Context, ref objectReference) (*api.ObjectMeta, error) {
	d, err := c.dynamicFor(ref)
	if err != nil {
		return nil, err
	}
	obj, err := d.Get(ctx, ref.Name, client.GetOptions{})
	if err != nil {
		return nil, err
	}
	return metadataOf(obj)
}

// metadataOf decodes the metadata of an object read as a JSON map.
func metadataOf(obj map[string]any) (*api.ObjectMeta, error) {
	raw, err := json.Marshal(obj["metadata"])
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	meta := &api.ObjectMeta{}
	if err := json.Unmarshal(raw, meta); err != nil {
		return nil, fmt.Errorf("decode metadata: %w", err)
	}
	return meta, nil
}

// patchObject sends a patch to the object ref names.
func (c *Controller) patchObject(ctx context.Context, ref objectReference, pt client.PatchType, patch []byte) error {
	d, err := c.dynamicFor(ref)
	if err != nil {
		return err
	}
	if _, err := d.Patch(ctx, ref.Name, pt, patch, client.PatchOptions{}); err != nil {
		return fmt.Errorf("patch %s: %w", ref, err)
	}
	return nil
}

// patchOwnerReferences changes the ownerReferences of the object ref names
// by smp, a strategic merge patch; if the apiserver refuses that kind of
// patch (a custom resource), it reads the object and sends the JSON merge
// patch mergePatch computes from its live metadata instead (patch.go).
func (c *Controller) patchOwnerReferences(ctx context.Context, ref objectReference, smp []byte, mergePatch func(*api.ObjectMeta) ([]byte, error)) error {
	err := c.patchObject(ctx, ref, client.StrategicMergePatchType, smp)
	if apierrors.ReasonOf(err) != apierrors.ReasonUnsupportedMediaType {
		return err
	}
	live, err := c.getObject(ctx, ref)
	if err != nil {
		return err
	}
	if live.UID != ref.UID {
		return nil // replaced by a new object of the same name: nothing to change
	}
	patch, err := mergePatch(live)
	if err != nil {
		return err
	}
	return c.patchObject(ctx, ref, client.MergePatchType, patch)
}

// deleteObject deletes the object ref names with policy, as long as it is
// still the object that was judged: the same uid, and — through
// resourceVersion — unchanged since it was read. If it did change, it is
// deleted anyway when its ownerReferences are still the ones judged (a
// status update does not matter); otherwise an error sends it back to be
// judged again (it may have been adopted in between). This is upstream's
// deleteObject. An object already gone (deleted by someone else, a second
// collector say, or replaced by a new object of the same name) is done.
func (c *Controller) deleteObject(ctx context.Context, ref objectReference, latest *api.ObjectMeta, policy api.DeletionPropagation) error {
	d, err := c.dynamicFor(ref)
	if err != nil {
		return err
	}
	uid, rv := ref.UID, latest.ResourceVersion
	err = d.Delete(ctx, ref.Name, client.DeleteOptions{
		Preconditions:     &api.Preconditions{UID: &uid, ResourceVersion: &rv},
		PropagationPolicy: &policy,
	})
	if apierrors.IsConflict(err) {
		fresh, getErr := c.getObject(ctx, ref)
		switch {
		case apierrors.IsNotFound(getErr):
			return nil
		case getErr != nil:
			return fmt.Errorf("delete %s: %w", ref, getErr)
		case fresh.UID != ref.UID:
			return nil
		case !reflect.DeepEqual(fresh.OwnerReferences, latest.OwnerReferences):
			return fmt.Errorf("delete %s: its ownerReferences changed since it was judged: %w", ref, err)
		}
		err = d.Delete(ctx, ref.Name, client.DeleteOptions{
			Preconditions:     &api.Preconditions{UID: &uid},
			PropagationPolicy: &policy,
		})
	}
	switch {
	case err == nil:
		c.log.Info("deleted object", "object", ref, "propagationPolicy", policy)
		return nil
	case apierrors.IsNotFound(err):
		return nil
	case apierrors.IsConflict(err):
		return nil // the uid precondition failed: the name now belongs to a new object
	}
	return fmt.Errorf("delete %s: %w", ref, err)
}

// removeFinalizerAttempts bounds removeFinalizer's optimistic-concurrency
// loop (client-go's retry.DefaultBackoff makes 4 attempts); past it the
// worker requeues the owner with back-off.
const removeFinalizerAttempts = 4

// removeFinalizer removes finalizer from the object ref names: read it,
// patch the list without the finalizer at the resourceVersion read, and on
// a Conflict (another writer, or a second collector, got there first) read
// again. An object already gone, replaced (another uid) or without the
// finalizer is done. When the last finalizer goes, the apiserver deletes
// the object.
func (c *Controller) removeFinalizer(ctx context.Context, ref objectReference, finalizer string) error {
	var err error
	for range removeFinalizerAttempts {
		var meta *api.ObjectMeta
		meta, err = c.getObject(ctx, ref)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("remove finalizer %s: %w", finalizer, err)
		}
		if meta.UID != ref.UID || !slices.Contains(meta.Finalizers, finalizer) {
			return nil
		}
		patch, perr := removeFinalizerPatch(meta, finalizer)
		if perr != nil {
			return perr
		}
		err = c.patchObject(ctx, ref, client.MergePatchType, patch)
		if err == nil {
			c.log.Info("removed finalizer", "object", ref, "finalizer", finalizer)
			return nil
		}
		if apierrors.IsNotFound(err) {
			return nil
		}
		if !apierrors.IsConflict(err) {
			return fmt.Errorf("remove finalizer %s: %w", finalizer, err)
		}
	}
	return fmt.Errorf("remove finalizer %s from %s: still conflicting after %d attempts: %w", finalizer, ref, removeFinalizerAttempts, err)
}

// isDangling reports whether ref, an ownerReference of the object item,
// names an owner that does not exist, asking the apiserver unless the
// absent-owner cache already knows. For an owner that exists it returns
// the owner's live metadata.
func (c *Controller) isDangling(ctx context.Context, item objectReference, ref api.OwnerReference) (ownerState, error) {
	owner := objectReference{
		APIVersion: ref.APIVersion,
		Kind:       ref.Kind,
		Namespace:  c.mapper.ownerNamespace(ref, item.Namespace),
		Name:       ref.Name,
		UID:        ref.UID,
	}
	if c.absentOwners.Has(owner) {
		return ownerState{absent: true}, nil
	}
	meta, err := c.getObject(ctx, owner)
	switch {
	case apierrors.IsNotFound(err):
		c.absentOwners.Add(owner)
		return ownerState{absent: true}, nil
	case err != nil:
		return ownerState{}, fmt.Errorf("look up owner %s of %s: %w", owner, item, err)
	case meta.UID != ref.UID:
		c.absentOwners.Add(owner)
		return ownerState{absent: true}, nil
	}
	return ownerState{meta: meta}, nil
}

// isUnknownKind reports whether err comes from a reference to a kind
// kplane does not serve.
func isUnknownKind(err error) bool { return errors.Is(err, errUnknownKind) }
