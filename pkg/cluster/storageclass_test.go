package cluster

import (
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/api/validation"
	"kplane/pkg/controllers/hostpathprovisioner"
)

// The default class is kind's "standard" with the provisioner that ctl up
// runs, and a class the apiserver accepts.
func TestDefaultStorageClass(t *testing.T) {
	class := defaultStorageClass()
	if class.Provisioner != hostpathprovisioner.ProvisionerName {
		t.Errorf("provisioner = %q, want the controller's %q", class.Provisioner, hostpathprovisioner.ProvisionerName)
	}
	if class.Name != "standard" || !api.IsDefaultStorageClass(class) ||
		*class.VolumeBindingMode != api.VolumeBindingWaitForFirstConsumer || *class.ReclaimPolicy != api.PersistentVolumeReclaimDelete {
		t.Errorf("class = %+v, want kind's standard: default, WaitForFirstConsumer, Delete", class)
	}
	if errs := validation.ValidateCreate(class); len(errs) > 0 {
		t.Errorf("the default class is invalid: %v", errs)
	}
}
