package garbagecollector

import (
	"encoding/json"
	"fmt"
	"slices"

	"kplane/pkg/api"
)

// The patches the collector sends. Removing or changing one ownerReference
// is a strategic merge patch: ownerReferences merge by uid, so the patch
// names just the references it touches and cannot lose a reference another
// writer added meanwhile. The dependent's own uid rides along in metadata,
// as upstream sends it, to say which object the patch was meant for.

// deleteOwnerRefsPatch removes the ownerReferences with ownerUIDs from the
// object with uid. A reference that is not there is no error.
func deleteOwnerRefsPatch(uid string, ownerUIDs ...string) ([]byte, error) {
	refs := make([]map[string]string, 0, len(ownerUIDs))
	for _, owner := range ownerUIDs {
		refs = append(refs, map[string]string{"$patch": "delete", "uid": owner})
	}
	return ownerRefsPatch(uid, refs)
}

// unblockOwnerRefsPatch sets blockOwnerDeletion: false on each of owners
// that has it true, for the object with uid. It returns nil if none does.
func unblockOwnerRefsPatch(uid string, owners []api.OwnerReference) ([]byte, error) {
	var refs []map[string]any
	for _, ref := range owners {
		if blocks(ref) {
			refs = append(refs, map[string]any{"uid": ref.UID, "blockOwnerDeletion": false})
		}
	}
	if len(refs) == 0 {
		return nil, nil
	}
	return ownerRefsPatch(uid, refs)
}

func ownerRefsPatch(uid string, refs any) ([]byte, error) {
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"ownerReferences": refs, "uid": uid},
	})
	if err != nil {
		return nil, fmt.Errorf("encode ownerReferences patch: %w", err)
	}
	return patch, nil
}

// removeFinalizerPatch is a JSON merge patch that sets meta's finalizers to
// its current list without finalizer. It carries meta's resourceVersion, so
// the apiserver refuses it (Conflict) if the object changed since it was
// read — a merge patch replaces the whole list, and without that check it
// could drop a finalizer someone else added in between.
func removeFinalizerPatch(meta *api.ObjectMeta, finalizer string) ([]byte, error) {
	remaining := []string{}
	for _, f := range meta.Finalizers {
		if f != finalizer {
			remaining = append(remaining, f)
		}
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"finalizers": remaining, "resourceVersion": meta.ResourceVersion},
	})
	if err != nil {
		return nil, fmt.Errorf("encode finalizers patch: %w", err)
	}
	return patch, nil
}

// A custom resource has no Go type to read patch strategies from, so the
// apiserver refuses a strategic merge patch of one (415 Unsupported Media
// Type). As upstream, the collector then sends a JSON merge patch instead:
// the whole ownerReferences list as it should become, computed from the
// live object and carrying its resourceVersion, so that a reference
// another writer added in between makes the patch conflict instead of
// being lost.

// deleteOwnerRefsMergePatch is deleteOwnerRefsPatch as a JSON merge patch
// of meta, the live object's metadata.
func deleteOwnerRefsMergePatch(meta *api.ObjectMeta, ownerUIDs ...string) ([]byte, error) {
	remaining := []api.OwnerReference{}
	for _, ref := range meta.OwnerReferences {
		if !slices.Contains(ownerUIDs, ref.UID) {
			remaining = append(remaining, ref)
		}
	}
	return ownerRefsMergePatch(meta, remaining)
}

// unblockOwnerRefsMergePatch is unblockOwnerRefsPatch as a JSON merge
// patch of meta, the live object's metadata.
func unblockOwnerRefsMergePatch(meta *api.ObjectMeta) ([]byte, error) {
	refs := slices.Clone(meta.OwnerReferences)
	for i := range refs {
		if blocks(refs[i]) {
			unblocked := false
			refs[i].BlockOwnerDeletion = &unblocked
		}
	}
	return ownerRefsMergePatch(meta, refs)
}

func ownerRefsMergePatch(meta *api.ObjectMeta, refs []api.OwnerReference) ([]byte, error) {
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"ownerReferences": refs, "resourceVersion": meta.ResourceVersion},
	})
	if err != nil {
		return nil, fmt.Errorf("encode ownerReferences merge patch: %w", err)
	}
	return patch, nil
}
