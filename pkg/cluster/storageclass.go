package cluster

import (
	"context"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// DefaultStorageClassName is the name of the StorageClass every new
// cluster starts with: kind's, so manifests and charts written for kind
// find it.
const DefaultStorageClassName = "standard"

// hostPathProvisioner is hostpathprovisioner.ProvisionerName, the
// provisioner `ctl up` runs in the controller-manager. It is spelt out
// here because the test framework imports this package and the
// controller's package imports the informers, whose tests import the
// framework (a test checks the two names agree).
const hostPathProvisioner = "kplane.io/hostpath"

// defaultStorageClass is kind's default class with kplane's provisioner:
// marked default (so the DefaultStorageClass admission gives it to every
// claim without a class), volumes deleted with their claims, and made only
// once the scheduler has chosen the node of the claim's first pod, which
// is where the volume's directory is then used.
func defaultStorageClass() *api.StorageClass {
	reclaim := api.PersistentVolumeReclaimDelete
	mode := api.VolumeBindingWaitForFirstConsumer
	return &api.StorageClass{
		ObjectMeta: api.ObjectMeta{
			Name:        DefaultStorageClassName,
			Annotations: map[string]string{api.AnnDefaultStorageClass: "true"},
		},
		Provisioner:       hostPathProvisioner,
		ReclaimPolicy:     &reclaim,
		VolumeBindingMode: &mode,
	}
}

// ensureDefaultStorageClass creates the default class in a cluster that
// has no StorageClass at all, as kind installs its class when it creates a
// cluster. A cluster whose user deleted "standard" and made classes of
// their own keeps them as they are.
func ensureDefaultStorageClass(ctx context.Context, admin *client.Client) error {
	classes, err := admin.StorageClasses().List(ctx, client.ListOptions{})
	if err != nil {
		return fmt.Errorf("list storage classes: %w", err)
	}
	if len(classes.Items) > 0 {
		return nil
	}
	_, err = admin.StorageClasses().Create(ctx, defaultStorageClass(), client.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create the default storage class %s: %w", DefaultStorageClassName, err)
	}
	return nil
}
