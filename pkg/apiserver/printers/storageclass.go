package printers

import (
	"time"

	"kplane/pkg/api"
)

// This file prints StorageClasses.

var storageClassColumns = []api.TableColumnDefinition{
	nameColumn,
	text("Provisioner", "The component that creates the class's volumes."),
	text("ReclaimPolicy", "What happens to a provisioned volume when its claim is deleted: Delete or Retain."),
	text("VolumeBindingMode", "When claims are bound: Immediate, or WaitForFirstConsumer (once a pod using the claim is scheduled)."),
	text("AllowVolumeExpansion", "Whether claims of the class may grow."),
	ageColumn,
}

// storageClassCells is upstream's printStorageClass: the default class's
// name is followed by " (default)", and unset fields print their
// defaults.
func storageClassCells(class *api.StorageClass, now time.Time) []any {
	name := class.Name
	if api.IsDefaultStorageClass(class) {
		name += " (default)"
	}
	reclaimPolicy := string(api.PersistentVolumeReclaimDelete)
	if class.ReclaimPolicy != nil {
		reclaimPolicy = string(*class.ReclaimPolicy)
	}
	bindingMode := string(api.VolumeBindingImmediate)
	if class.VolumeBindingMode != nil {
		bindingMode = string(*class.VolumeBindingMode)
	}
	allowExpansion := class.AllowVolumeExpansion != nil && *class.AllowVolumeExpansion
	return []any{name, class.Provisioner, reclaimPolicy, bindingMode, allowExpansion, age(class.CreationTimestamp, now)}
}
