package quota

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"kplane/pkg/api"
)

// storageClassSuffix follows a class name in the per-class quota names:
// "fast.storageclass.storage.k8s.io/requests.storage".
const storageClassSuffix = ".storageclass.storage.k8s.io/"

// claimResources are the quota names every claim may charge; the per-class
// names go by suffix.
var claimResources = []api.ResourceName{
	"count/persistentvolumeclaims", api.ResourcePersistentVolumeClaims, api.ResourceRequestsStorage,
}

// StorageClassResource is the quota name for resource within one class:
// StorageClassResource("fast", "requests.storage") is
// "fast.storageclass.storage.k8s.io/requests.storage".
func StorageClassResource(class string, resource api.ResourceName) api.ResourceName {
	return class + storageClassSuffix + resource
}

// claimEvaluator is the Evaluator of PersistentVolumeClaims (upstream's
// core/persistent_volume_claims.go).
type claimEvaluator struct{}

// NewPersistentVolumeClaimEvaluator returns the evaluator of claims.
func NewPersistentVolumeClaimEvaluator() Evaluator { return claimEvaluator{} }

// GroupResource is persistentvolumeclaims.
func (claimEvaluator) GroupResource() GroupResource {
	return GroupResource{Resource: "persistentvolumeclaims"}
}

// Handles creates and updates: a claim resized upward charges the growth.
func (claimEvaluator) Handles(op Operation) bool { return op == Create || op == Update }

// MatchingResources returns the claim resources among input, per-class
// ones included.
func (claimEvaluator) MatchingResources(input []api.ResourceName) []api.ResourceName {
	var result []api.ResourceName
	for _, name := range input {
		_, perClass, _ := strings.Cut(name, storageClassSuffix)
		if slices.Contains(claimResources, name) || perClass == api.ResourceRequestsStorage || perClass == api.ResourcePersistentVolumeClaims {
			result = append(result, name)
		}
	}
	return result
}

// MatchesScope is false: claims have no quota scopes.
func (claimEvaluator) MatchesScope(s api.ScopedResourceSelectorRequirement, obj api.Object) (bool, error) {
	return noScopes(s, obj)
}

// Constraints has nothing to refuse: every claim can be counted.
func (claimEvaluator) Constraints([]api.ResourceName, api.Object) error { return nil }

// Usage is one claim and its storage request (rounded up to whole bytes),
// each also under the claim's class when it has one.
func (claimEvaluator) Usage(obj api.Object, _ time.Time) (api.ResourceList, error) {
	claim, ok := obj.(*api.PersistentVolumeClaim)
	if !ok {
		return nil, fmt.Errorf("quota: expected a PersistentVolumeClaim, got %T", obj)
	}
	one := api.NewQuantity(1, api.DecimalSI)
	usage := api.ResourceList{"count/persistentvolumeclaims": one, api.ResourcePersistentVolumeClaims: one}
	class := ""
	if claim.Spec.StorageClassName != nil {
		class = *claim.Spec.StorageClassName
	}
	if class != "" {
		usage[StorageClassResource(class, api.ResourcePersistentVolumeClaims)] = one
	}
	if request, ok := claim.Spec.Resources.Requests[api.ResourceStorage]; ok {
		request.RoundUp(0)
		usage[api.ResourceRequestsStorage] = request
		if class != "" {
			usage[StorageClassResource(class, api.ResourceRequestsStorage)] = request
		}
	}
	return usage, nil
}
