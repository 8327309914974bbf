package controllerutil

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
)

// RefManager adopts and releases objects for one controller, the way
// upstream's ControllerRefManager does. A ReplicaSet claims pods, a
// Deployment claims ReplicaSets; the rules are the same:
//
//   - An object controlled by someone else is never touched.
//   - An orphan (no controller ownerReference) that matches the selector is
//     adopted: a patch adds an ownerReference with controller: true and
//     blockOwnerDeletion: true. An owner that is being deleted adopts
//     nothing, and neither does one whose fresh copy says it is being
//     deleted (CanAdopt), so a deletion cannot race an adoption.
//   - An object the owner controls that no longer matches the selector (its
//     labels were edited) is released: the ownerReference is patched away
//     and the object becomes an orphan that another owner may adopt.
type RefManager struct {
	// Owner is the controller claiming objects, with its apiVersion and kind
	// for the ownerReference (e.g. "apps/v1", "ReplicaSet").
	Owner      api.Object
	APIVersion string
	Kind       string
	// Selector is the owner's spec.selector.
	Selector labels.Selector
	// CanAdopt re-reads the owner from the apiserver (not the cache) and
	// returns an error if it is gone or being deleted. It is called at most
	// once per Claim, before the first adoption.
	CanAdopt func(ctx context.Context) error
	// Patch applies a strategic merge patch to the claimed object named
	// name in the owner's namespace.
	Patch func(ctx context.Context, name string, patch []byte) error

	canAdoptOnce sync.Once
	canAdoptErr  error
}

// Claim returns the objects the owner controls after adopting the orphans
// that match its selector and releasing its own objects that no longer do.
// Errors on single objects are collected and returned together. A caller
// should return such an error before creating or deleting anything (as
// upstream's controllers do): an orphan that failed to be adopted is
// missing from the list, and acting on the list would replace it.
func Claim[T api.Object](ctx context.Context, m *RefManager, objects []T) ([]T, error) {
	var claimed []T
	var errs []error
	ownerMeta := m.Owner.GetObjectMeta()
	for _, obj := range objects {
		meta := obj.GetObjectMeta()
		matches := m.Selector.Matches(meta.Labels)
		if ref := GetControllerOf(meta); ref != nil {
			if ref.UID != ownerMeta.UID {
				continue // someone else's
			}
			if matches || ownerMeta.DeletionTimestamp != nil {
				claimed = append(claimed, obj)
				continue
			}
			if err := m.release(ctx, meta); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err)
				claimed = append(claimed, obj) // still ours until the patch lands
			}
			continue
		}
		if !matches || ownerMeta.DeletionTimestamp != nil || meta.DeletionTimestamp != nil {
			continue
		}
		if err := m.adopt(ctx, meta); err != nil {
			if !apierrors.IsNotFound(err) {
				errs = append(errs, err)
			}
			continue
		}
		claimed = append(claimed, obj)
	}
	return claimed, errors.Join(errs...)
}

func (m *RefManager) adopt(ctx context.Context, meta *api.ObjectMeta) error {
	m.canAdoptOnce.Do(func() {
		if m.CanAdopt != nil {
			m.canAdoptErr = m.CanAdopt(ctx)
		}
	})
	if m.canAdoptErr != nil {
		return fmt.Errorf("cannot adopt %s: %w", meta.Name, m.canAdoptErr)
	}
	ref := NewControllerRef(m.Owner, m.APIVersion, m.Kind)
	patch, err := ownerRefPatch(meta.UID, ref)
	if err != nil {
		return err
	}
	if err := m.Patch(ctx, meta.Name, patch); err != nil {
		return fmt.Errorf("adopt %s: %w", meta.Name, err)
	}
	return nil
}

func (m *RefManager) release(ctx context.Context, meta *api.ObjectMeta) error {
	patch, err := ownerRefPatch(meta.UID, map[string]string{"$patch": "delete", "uid": m.Owner.GetObjectMeta().UID})
	if err != nil {
		return err
	}
	if err := m.Patch(ctx, meta.Name, patch); err != nil {
		return fmt.Errorf("release %s: %w", meta.Name, err)
	}
	return nil
}

// ownerRefPatch builds the strategic merge patch that adds (or, with a
// "$patch": "delete" element, removes) one ownerReference. The object's uid
// rides along as a precondition: if the name now belongs to a new object,
// the patch fails instead of claiming a stranger.
func ownerRefPatch(objectUID string, element any) ([]byte, error) {
	return json.Marshal(map[string]any{
		"metadata": map[string]any{
			"ownerReferences": []any{element},
			"uid":             objectUID,
		},
	})
}

// RecheckDeletionTimestamp returns a CanAdopt function built on get, which
// reads the owner fresh from the apiserver: adoption is refused when the
// owner is gone, has been replaced by a new object of the same name (a
// different uid), or is being deleted.
func RecheckDeletionTimestamp(uid string, get func(ctx context.Context) (*api.ObjectMeta, error)) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		fresh, err := get(ctx)
		if err != nil {
			return err
		}
		if fresh.UID != uid {
			return fmt.Errorf("original %s is gone: got uid %s, wanted %s", fresh.Name, fresh.UID, uid)
		}
		if fresh.DeletionTimestamp != nil {
			return fmt.Errorf("%s has just been deleted at %v", fresh.Name, fresh.DeletionTimestamp)
		}
		return nil
	}
}
