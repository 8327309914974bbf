package hostpathprovisioner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

// This file is the claim side: from a claim handed to this provisioner to
// a volume for it.

// volumeDirMode lets a container running as any user write to its volume,
// as the local-path provisioner's directories do.
const volumeDirMode = 0o777

// syncClaim makes the volume of the claim named key if it needs one: the
// claim is handed to this provisioner, not bound, of a class that names
// this provisioner, and — for a WaitForFirstConsumer class — has its node.
// The volume's name comes from the claim's UID, so a second run (or a
// second manager) finds the volume there, or gets AlreadyExists, and
// makes nothing twice.
func (c *Controller) syncClaim(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return controllerutil.DoNotRetry(fmt.Errorf("claim key %q: %w", key, err))
	}
	claim, err := c.claims.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.claimDecisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get claim %s from cache: %w", key, err)
	}
	if claim.Spec.VolumeName != "" || claim.DeletionTimestamp != nil || provisionerOf(claim) != ProvisionerName {
		return nil
	}
	className := ""
	if claim.Spec.StorageClassName != nil {
		className = *claim.Spec.StorageClassName
	}
	class, err := c.classes.Get(className)
	if apierrors.IsNotFound(err) {
		c.recorder.Eventf(claim, api.EventTypeWarning, ReasonProvisioningFailed, "storageclass.storage.k8s.io %q not found", className)
		return fmt.Errorf("provision claim %s: storage class %q not found", key, className)
	}
	if err != nil {
		return fmt.Errorf("get storage class %s from cache: %w", className, err)
	}
	if class.Provisioner != ProvisionerName {
		return nil
	}
	node := claim.Annotations[api.AnnSelectedNode]
	if waitsForConsumer(class) && node == "" {
		c.recordWaitForNode(claim, class)
		return nil // the scheduler has not placed the claim's first pod yet
	}
	pvName := VolumeName(claim)
	if _, err := c.volumes.Get(pvName); err == nil {
		return nil // made already; the binder binds it
	}

	c.recorder.Eventf(claim, api.EventTypeNormal, ReasonProvisioning,
		"External provisioner is provisioning volume for claim %q", key)
	pv := newVolume(claim, class, node, filepath.Join(c.volumesDir, pvName))
	c.recordProvision(claim, class, node, pvName, pv.Spec.HostPath.Path)
	if err := os.MkdirAll(pv.Spec.HostPath.Path, volumeDirMode); err != nil {
		c.recorder.Eventf(claim, api.EventTypeWarning, ReasonProvisioningFailed,
			"failed to provision volume with StorageClass %q: %v", class.Name, err)
		return fmt.Errorf("make the directory of volume %s: %w", pvName, err)
	}
	// MkdirAll's mode is filtered by the umask; the volume is meant to
	// be writable by anyone.
	if err := os.Chmod(pv.Spec.HostPath.Path, volumeDirMode); err != nil {
		return fmt.Errorf("open the directory of volume %s: %w", pvName, err)
	}
	_, err = c.client.PersistentVolumes().Create(ctx, pv, client.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	if err != nil {
		c.recorder.Eventf(claim, api.EventTypeWarning, ReasonProvisioningFailed,
			"failed to provision volume with StorageClass %q: %v", class.Name, err)
		return fmt.Errorf("create volume %s for claim %s: %w", pvName, key, err)
	}
	c.log.Info("provisioned volume", "claim", key, "volume", pvName, "path", pv.Spec.HostPath.Path, "node", node)
	c.recorder.Eventf(claim, api.EventTypeNormal, ReasonProvisioningSucceeded, "Successfully provisioned volume %s", pvName)
	return nil
}

// VolumeName is the name of the volume provisioned for claim:
// "pvc-<claim uid>", as upstream names every dynamically provisioned
// volume.
func VolumeName(claim *api.PersistentVolumeClaim) string {
	return "pvc-" + claim.UID
}

// waitsForConsumer reports whether class binds WaitForFirstConsumer.
func waitsForConsumer(class *api.StorageClass) bool {
	return class.VolumeBindingMode != nil && *class.VolumeBindingMode == api.VolumeBindingWaitForFirstConsumer
}

// newVolume is the volume provisioned for claim of class at path: the
// size and access modes the claim asks for, pre-bound to it (claimRef
// with its UID, so the binder binds these two and no others), the class's
// name, reclaim policy and mount options, and, when the scheduler chose a
// node, node affinity to it: kind's local-path volumes are the same
// (a directory on one node), and a pod using one is scheduled to that
// node only.
func newVolume(claim *api.PersistentVolumeClaim, class *api.StorageClass, node, path string) *api.PersistentVolume {
	reclaim := api.PersistentVolumeReclaimDelete
	if class.ReclaimPolicy != nil {
		reclaim = *class.ReclaimPolicy
	}
	hostPathType := api.HostPathDirectoryOrCreate
	pv := &api.PersistentVolume{
		ObjectMeta: api.ObjectMeta{
			Name:        VolumeName(claim),
			Annotations: map[string]string{AnnProvisionedBy: ProvisionerName},
			Finalizers:  []string{FinalizerVolume},
		},
		Spec: api.PersistentVolumeSpec{
			Capacity:    api.ResourceList{api.ResourceStorage: claim.Spec.Resources.Requests[api.ResourceStorage]},
			AccessModes: append([]api.PersistentVolumeAccessMode(nil), claim.Spec.AccessModes...),
			ClaimRef: &api.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID, ResourceVersion: claim.ResourceVersion},
			PersistentVolumeReclaimPolicy: reclaim,
			StorageClassName:              class.Name,
			MountOptions:                  append([]string(nil), class.MountOptions...),
			VolumeMode:                    api.DeepCopyValue(claim.Spec.VolumeMode),
			PersistentVolumeSource: api.PersistentVolumeSource{
				HostPath: &api.HostPathVolumeSource{Path: path, Type: &hostPathType},
			},
		},
	}
	if node != "" {
		pv.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{
			NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{{
				Key: api.LabelHostname, Operator: api.NodeSelectorOpIn, Values: []string{node},
			}}}},
		}}
	}
	return pv
}
