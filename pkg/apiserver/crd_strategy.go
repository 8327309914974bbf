package apiserver

import "kplane/pkg/api"

// The CustomResourceDefinition's own write rules, upstream's CRD strategy
// and REST storage (apiextensions-apiserver/pkg/registry/customresourcedefinition).

// admitCustomResourceDefinition keeps status.storedVersions holding the
// storage version: a CRD that moves storage to a new version remembers
// that objects may still be stored in the old one.
func admitCustomResourceDefinition(crd *api.CustomResourceDefinition) {
	v := api.CRDStorageVersion(crd)
	if v == "" {
		return
	}
	for _, stored := range crd.Status.StoredVersions {
		if stored == v {
			return
		}
	}
	crd.Status.StoredVersions = append(crd.Status.StoredVersions, v)
}

// markCRDForDeletion is upstream's first delete of a CRD: it puts on the
// customresourcecleanup finalizer, which holds the CRD until the CRD
// controller's finalizing step (crd_finalizer.go) has deleted every custom
// resource of it, and says so in the Terminating condition.
func markCRDForDeletion(crd *api.CustomResourceDefinition, now api.Time) {
	if crd.DeletionTimestamp != nil {
		return
	}
	if !api.CRDHasFinalizer(crd, api.CustomResourceCleanupFinalizer) {
		crd.Finalizers = append(crd.Finalizers, api.CustomResourceCleanupFinalizer)
	}
	api.SetCRDCondition(crd, api.CustomResourceDefinitionCondition{
		Type: api.Terminating, Status: api.ConditionTrue, Reason: "InstanceDeletionPending",
		Message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
	}, now)
}
