package persistentvolume

import (
	"kplane/pkg/api"
)

// This file builds the test objects: volumes and claims in the shape the
// apiserver stores them (defaults applied), changed by options.

// volumeOpt changes a test volume.
type volumeOpt func(*api.PersistentVolume)

// testVolume is an unclaimed hostPath volume of size with access mode RWO,
// policy Retain, no class, phase Available.
func testVolume(name, size string, opts ...volumeOpt) *api.PersistentVolume {
	mode := api.PersistentVolumeFilesystem
	pv := &api.PersistentVolume{
		TypeMeta:   api.TypeMeta{Kind: "PersistentVolume", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: name, UID: "uid-" + name, ResourceVersion: "1"},
		Spec: api.PersistentVolumeSpec{
			Capacity:                      api.ResourceList{api.ResourceStorage: api.MustParseQuantity(size)},
			PersistentVolumeSource:        api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/tmp/" + name}},
			AccessModes:                   []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: api.PersistentVolumeReclaimRetain,
			VolumeMode:                    &mode,
		},
		Status: api.PersistentVolumeStatus{Phase: api.VolumeAvailable},
	}
	for _, o := range opts {
		o(pv)
	}
	return pv
}

func volumeModes(modes ...api.PersistentVolumeAccessMode) volumeOpt {
	return func(pv *api.PersistentVolume) { pv.Spec.AccessModes = modes }
}

func volumeClassName(class string) volumeOpt {
	return func(pv *api.PersistentVolume) { pv.Spec.StorageClassName = class }
}

func volumeLabels(l map[string]string) volumeOpt {
	return func(pv *api.PersistentVolume) { pv.Labels = l }
}

func volumePhase(phase api.PersistentVolumePhase) volumeOpt {
	return func(pv *api.PersistentVolume) { pv.Status.Phase = phase }
}

func reclaimPolicy(policy api.PersistentVolumeReclaimPolicy) volumeOpt {
	return func(pv *api.PersistentVolume) { pv.Spec.PersistentVolumeReclaimPolicy = policy }
}

func blockVolume(pv *api.PersistentVolume) {
	mode := api.PersistentVolumeBlock
	pv.Spec.VolumeMode = &mode
}

// claimRefTo points the volume at claim namespace/name with uid ("" for a
// pre-binding by name).
func claimRefTo(namespace, name, uid string) volumeOpt {
	return func(pv *api.PersistentVolume) {
		pv.Spec.ClaimRef = &api.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: namespace, Name: name, UID: uid}
	}
}

func boundByController(pv *api.PersistentVolume) {
	pv.Annotations = map[string]string{annBoundByController: "yes"}
}

// claimOpt changes a test claim.
type claimOpt func(*api.PersistentVolumeClaim)

// testClaim is a Pending claim default/name asking for size with RWO and
// no class, as a StatefulSet's volumeClaimTemplate makes it.
func testClaim(name, size string, opts ...claimOpt) *api.PersistentVolumeClaim {
	mode := api.PersistentVolumeFilesystem
	claim := &api.PersistentVolumeClaim{
		TypeMeta:   api.TypeMeta{Kind: "PersistentVolumeClaim", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name, ResourceVersion: "1"},
		Spec: api.PersistentVolumeClaimSpec{
			AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParseQuantity(size)}},
			VolumeMode:  &mode,
		},
		Status: api.PersistentVolumeClaimStatus{Phase: api.ClaimPending},
	}
	for _, o := range opts {
		o(claim)
	}
	return claim
}

func claimModes(modes ...api.PersistentVolumeAccessMode) claimOpt {
	return func(c *api.PersistentVolumeClaim) { c.Spec.AccessModes = modes }
}

func claimClassName(class string) claimOpt {
	return func(c *api.PersistentVolumeClaim) { c.Spec.StorageClassName = &class }
}

func claimSelector(matchLabels map[string]string) claimOpt {
	return func(c *api.PersistentVolumeClaim) { c.Spec.Selector = &api.LabelSelector{MatchLabels: matchLabels} }
}

func blockClaim(c *api.PersistentVolumeClaim) {
	mode := api.PersistentVolumeBlock
	c.Spec.VolumeMode = &mode
}

func volumeName(name string) claimOpt {
	return func(c *api.PersistentVolumeClaim) { c.Spec.VolumeName = name }
}

// boundTo makes the claim bound to volume pvName of size with RWO, as the
// controller leaves it.
func boundTo(pvName, size string) claimOpt {
	return func(c *api.PersistentVolumeClaim) {
		c.Spec.VolumeName = pvName
		c.Annotations = map[string]string{annBindCompleted: "yes", annBoundByController: "yes"}
		c.Status = api.PersistentVolumeClaimStatus{Phase: api.ClaimBound,
			AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			Capacity:    api.ResourceList{api.ResourceStorage: api.MustParseQuantity(size)}}
	}
}
