package hostpathprovisioner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// This file is the volume side: a provisioned volume being deleted loses
// its directory, then its finalizer.

// syncVolume finishes the deletion of the volume named key: when the
// volume was provisioned here, is being deleted and still carries the
// finalizer, its directory is removed (only for reclaim policy Delete:
// a Retain volume deleted by hand keeps its data, as upstream's
// provisioners do) and the finalizer taken off, which lets the apiserver
// remove the object. Removing a directory that is gone already is
// success, so the sync may run any number of times.
func (c *Controller) syncVolume(ctx context.Context, key string) error {
	pv, err := c.volumes.Get(key)
	if apierrors.IsNotFound(err) {
		c.volumeDecisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get volume %s from cache: %w", key, err)
	}
	if pv.Annotations[AnnProvisionedBy] != ProvisionerName || pv.DeletionTimestamp == nil ||
		!slices.Contains(pv.Finalizers, FinalizerVolume) {
		return nil
	}
	if pv.Spec.PersistentVolumeReclaimPolicy == api.PersistentVolumeReclaimDelete && pv.Spec.HostPath != nil {
		dir := pv.Spec.HostPath.Path
		if !c.inVolumesDir(dir) {
			// Never remove what this provisioner did not make: someone
			// edited the annotation onto a volume of their own.
			c.recordCleanup(pv, "keep %s: it is outside the volumes directory", dir)
			c.log.Warn("volume's path is outside the volumes directory; not removing it", "volume", pv.Name, "path", dir)
		} else {
			c.recordCleanup(pv, "remove its directory %s", dir)
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("remove the directory of volume %s: %w", pv.Name, err)
			}
			c.log.Info("removed the directory of a deleted volume", "volume", pv.Name, "path", dir)
		}
	} else {
		c.recordCleanup(pv, "keep its directory")
	}
	updated := api.DeepCopy(pv)
	updated.Finalizers = slices.DeleteFunc(updated.Finalizers, func(f string) bool { return f == FinalizerVolume })
	_, err = c.client.PersistentVolumes().Update(ctx, updated, client.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove the finalizer of volume %s: %w", pv.Name, err)
	}
	return nil
}

// inVolumesDir reports whether path is a directory strictly inside the
// volumes directory.
func (c *Controller) inVolumesDir(path string) bool {
	rel, err := filepath.Rel(c.volumesDir, path)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel)
}
