package controllerutil

import "kplane/pkg/api"

// NewControllerRef returns the ownerReference a controller puts on the
// objects it manages: controller: true (at most one per object, so one
// owner is "the" controller) and blockOwnerDeletion: true (a foreground
// deletion of the owner waits for this object to go).
func NewControllerRef(owner api.Object, apiVersion, kind string) api.OwnerReference {
	yes := true
	meta := owner.GetObjectMeta()
	return api.OwnerReference{
		APIVersion:         apiVersion,
		Kind:               kind,
		Name:               meta.Name,
		UID:                meta.UID,
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}
}

// GetControllerOf returns the ownerReference of meta's controller, or nil
// if it has none.
func GetControllerOf(meta *api.ObjectMeta) *api.OwnerReference {
	for i := range meta.OwnerReferences {
		ref := &meta.OwnerReferences[i]
		if ref.Controller != nil && *ref.Controller {
			return ref
		}
	}
	return nil
}

// IsControlledBy reports whether meta's controller is the object with uid.
func IsControlledBy(meta *api.ObjectMeta, uid string) bool {
	ref := GetControllerOf(meta)
	return ref != nil && ref.UID == uid
}
