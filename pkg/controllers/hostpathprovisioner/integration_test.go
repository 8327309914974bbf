package hostpathprovisioner_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/hostpathprovisioner"
	"kplane/pkg/controllers/persistentvolume"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 15 * time.Second

// With the binder and the provisioner running against a real apiserver, a
// claim that only names the default class (it gets it from admission)
// ends Bound to a new pvc-<uid> volume whose directory exists; deleting
// the claim deletes the volume and its directory.
func TestProvisionBindAndDelete(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	dir := t.TempDir()
	controllertest.RunController(t, c, "persistentvolume-controller", 1,
		func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*persistentvolume.Controller, error) {
			return persistentvolume.New(c, f, rec, persistentvolume.Options{Logger: logger, ResyncPeriod: time.Second})
		})
	controllertest.RunController(t, c, hostpathprovisioner.ProvisionerName, 1,
		func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*hostpathprovisioner.Controller, error) {
			return hostpathprovisioner.New(c, f, rec, hostpathprovisioner.Options{Logger: logger, VolumesDir: dir})
		})

	immediate := api.VolumeBindingImmediate
	if _, err := c.StorageClasses().Create(ctx, &api.StorageClass{
		ObjectMeta:        api.ObjectMeta{Name: "standard", Annotations: map[string]string{api.AnnDefaultStorageClass: "true"}},
		Provisioner:       hostpathprovisioner.ProvisionerName,
		VolumeBindingMode: &immediate,
	}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Admission reads the classes from the watch cache: wait until a
	// claim gets the default class, then use that claim.
	var claim *api.PersistentVolumeClaim
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		if claim != nil {
			_ = c.PersistentVolumeClaims("default").Delete(ctx, claim.Name, client.DeleteOptions{})
		}
		var err error
		claim, err = c.PersistentVolumeClaims("default").Create(ctx, &api.PersistentVolumeClaim{
			ObjectMeta: api.ObjectMeta{GenerateName: "data-", Namespace: "default"},
			Spec: api.PersistentVolumeClaimSpec{
				AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
				Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParseQuantity("1Gi")}},
			},
		}, client.CreateOptions{})
		if err != nil {
			return false, err.Error()
		}
		return claim.Spec.StorageClassName != nil && *claim.Spec.StorageClassName == "standard", "claim created without the default class"
	})

	pvName := "pvc-" + claim.UID
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		got, err := c.PersistentVolumeClaims("default").Get(ctx, claim.Name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return got.Status.Phase == api.ClaimBound && got.Spec.VolumeName == pvName,
			fmt.Sprintf("claim %s volume %q, want Bound to %s", got.Status.Phase, got.Spec.VolumeName, pvName)
	})
	pv, err := c.PersistentVolumes().Get(ctx, pvName, client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pv.Status.Phase != api.VolumeBound || pv.Annotations[hostpathprovisioner.AnnProvisionedBy] != hostpathprovisioner.ProvisionerName {
		t.Errorf("volume phase %s, provisioned-by %q; want Bound by %s", pv.Status.Phase, pv.Annotations[hostpathprovisioner.AnnProvisionedBy], hostpathprovisioner.ProvisionerName)
	}
	volumeDir := filepath.Join(dir, pvName)
	if fi, err := os.Stat(volumeDir); err != nil || !fi.IsDir() {
		t.Fatalf("volume directory %s: %v", volumeDir, err)
	}

	if err := c.PersistentVolumeClaims("default").Delete(ctx, claim.Name, client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		_, err := c.PersistentVolumes().Get(ctx, pvName, client.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return false, fmt.Sprintf("volume %s still there (err %v)", pvName, err)
		}
		_, err = os.Stat(volumeDir)
		return os.IsNotExist(err), fmt.Sprintf("volume gone, directory stat: %v", err)
	})
}
