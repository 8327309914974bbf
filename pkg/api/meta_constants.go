package api

// This file holds the enum values of meta/v1 fields declared in meta.go.

// The operators of a LabelSelectorRequirement.
const (
	LabelSelectorOpIn           = "In"
	LabelSelectorOpNotIn        = "NotIn"
	LabelSelectorOpExists       = "Exists"
	LabelSelectorOpDoesNotExist = "DoesNotExist"
)

// The values of Status.Status.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"
)

// The kinds of ManagedFieldsEntry.Operation.
const (
	ManagedFieldsOperationApply  = "Apply"
	ManagedFieldsOperationUpdate = "Update"
)

// FinalizerOrphanDependents and FinalizerDeleteDependents are the finalizers
// the garbage collector uses for Orphan and Foreground deletion.
const (
	FinalizerOrphanDependents = "orphan"
	FinalizerDeleteDependents = "foregroundDeletion"
)
