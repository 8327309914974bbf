package persistentvolume

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/informer"
)

// The informer handlers. They only compute keys and enqueue them; every
// decision is the sync's.

// addVolume queues a volume that appeared or changed. A volume without a
// claimRef may be the one a waiting claim needs, so the claims that wait
// (Pending, no volumeName) are queued too; a volume with a claimRef queues
// the claim it names, which finishes a pre-binding at once.
//
// Upstream queues only the volume and lets its 15 s resync find the waiting
// claims; waking them here binds a claim as soon as its volume exists.
func (c *Controller) addVolume(obj api.Object) {
	pv, ok := obj.(*api.PersistentVolume)
	if !ok {
		return
	}
	c.volumeQueue.Add(pv.Name)
	if ref := pv.Spec.ClaimRef; ref != nil {
		c.claimQueue.Add(claimRefKey(ref))
		return
	}
	c.enqueueWaitingClaims()
}

// deleteVolume queues the claim a deleted volume was bound to, whose sync
// then marks it Lost (upstream does the same, so the claim need not wait for
// a resync). obj may be a tombstone.
func (c *Controller) deleteVolume(obj any) {
	pv, ok := informer.DeletedObject[*api.PersistentVolume](obj)
	if !ok {
		c.log.Warn("persistentvolume delete event without a PersistentVolume", "object", fmt.Sprintf("%T", obj))
		return
	}
	if ref := pv.Spec.ClaimRef; ref != nil {
		c.claimQueue.Add(claimRefKey(ref))
	}
}

// addClaim queues a claim that appeared or changed.
func (c *Controller) addClaim(obj api.Object) {
	if claim, ok := obj.(*api.PersistentVolumeClaim); ok {
		c.claimQueue.Add(claimKey(claim))
	}
}

// deleteClaim queues the volume a deleted claim was bound to, whose sync
// then releases it. obj may be a tombstone.
func (c *Controller) deleteClaim(obj any) {
	claim, ok := informer.DeletedObject[*api.PersistentVolumeClaim](obj)
	if !ok {
		c.log.Warn("persistentvolumeclaim delete event without a PersistentVolumeClaim", "object", fmt.Sprintf("%T", obj))
		return
	}
	if claim.Spec.VolumeName != "" {
		c.volumeQueue.Add(claim.Spec.VolumeName)
	}
}

// enqueueWaitingClaims queues every claim that is waiting for a volume:
// not bound yet and not asking for a volume by name.
func (c *Controller) enqueueWaitingClaims() {
	claims, err := c.claimLister.List(labels.Everything())
	if err != nil {
		c.log.Error("cannot list claims", "err", err)
		return
	}
	for _, claim := range claims {
		if claim.Spec.VolumeName == "" {
			c.claimQueue.Add(claimKey(claim))
		}
	}
}
