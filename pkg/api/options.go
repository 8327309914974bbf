package api

// This file holds request bodies that are not stored objects: meta/v1
// DeleteOptions and policy/v1 Eviction.

// DeletionPropagation says what happens to an object's dependents when it is deleted.
type DeletionPropagation string

// The propagation policies.
const (
	// DeletePropagationOrphan leaves dependents, removing their ownerReferences.
	DeletePropagationOrphan DeletionPropagation = "Orphan"
	// DeletePropagationBackground deletes the owner now and dependents afterwards.
	DeletePropagationBackground DeletionPropagation = "Background"
	// DeletePropagationForeground deletes dependents first, then the owner.
	DeletePropagationForeground DeletionPropagation = "Foreground"
)

// DryRunAll asks the apiserver to run a request without persisting it.
const DryRunAll = "All"

// DeleteOptions is the optional body (or query) of a DELETE.
type DeleteOptions struct {
	TypeMeta           `json:",inline"`
	GracePeriodSeconds *int64               `json:"gracePeriodSeconds,omitempty" protobuf:"varint,1,opt,name=gracePeriodSeconds"`
	Preconditions      *Preconditions       `json:"preconditions,omitempty" protobuf:"bytes,2,opt,name=preconditions"`
	OrphanDependents   *bool                `json:"orphanDependents,omitempty" protobuf:"varint,3,opt,name=orphanDependents"`
	PropagationPolicy  *DeletionPropagation `json:"propagationPolicy,omitempty" protobuf:"bytes,4,opt,name=propagationPolicy"`
	DryRun             []string             `json:"dryRun,omitempty" protobuf:"bytes,5,rep,name=dryRun"`
	// IgnoreStoreReadErrorWithClusterBreakingPotential deletes an object that cannot be decoded.
	IgnoreStoreReadErrorWithClusterBreakingPotential *bool `json:"ignoreStoreReadErrorWithClusterBreakingPotential,omitempty" protobuf:"varint,6,opt,name=ignoreStoreReadErrorWithClusterBreakingPotential"`
}

// Preconditions must hold for a delete to go ahead.
type Preconditions struct {
	UID             *string `json:"uid,omitempty" protobuf:"bytes,1,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	ResourceVersion *string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
}

// Eviction is the body of a POST to pods/<name>/eviction: a request to
// delete the pod that respects PodDisruptionBudgets.
type Eviction struct {
	TypeMeta      `json:",inline"`
	ObjectMeta    `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	DeleteOptions *DeleteOptions `json:"deleteOptions,omitempty" protobuf:"bytes,2,opt,name=deleteOptions"`
}
