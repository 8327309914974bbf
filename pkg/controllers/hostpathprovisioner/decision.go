package hostpathprovisioner

// This file records, for the debug journal (what `ctl why pvc/x` and `ctl
// why pv/x` show), each volume the provisioner decides to make, each claim
// it leaves waiting for the scheduler, and each deleted volume whose
// directory it removes.

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file of the hostPath provisioner
// (local-up-cluster's, a directory per volume), which this provisioner
// resembles most; kind's local-path provisioner, its model, lives outside
// Kubernetes.
const decisionSource = "pkg/volume/hostpath/host_path.go"

// recordProvision records the volume made for claim.
func (c *Controller) recordProvision(claim *api.PersistentVolumeClaim, class *api.StorageClass, node, pvName, path string) {
	if !c.claimDecisions.Enabled() {
		return
	}
	requested := claim.Spec.Resources.Requests[api.ResourceStorage]
	where := "any node"
	if node != "" {
		where = "node " + node + ", the scheduler's choice"
	}
	c.claimDecisions.Record(&claim.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("claim handed to %s, class %s, wants %s → make volume %s, directory %s, usable on %s",
			ProvisionerName, class.Name, requested.String(), pvName, path, where),
		Values: map[string]string{"volume": pvName, "node": node, "requested": requested.String()},
		Source: decisionSource,
	})
}

// recordWaitForNode records a WaitForFirstConsumer claim whose first pod
// has not been scheduled yet.
func (c *Controller) recordWaitForNode(claim *api.PersistentVolumeClaim, class *api.StorageClass) {
	if !c.claimDecisions.Enabled() {
		return
	}
	c.claimDecisions.Record(&claim.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("class %s binds WaitForFirstConsumer and the claim has no %s annotation yet → wait for the scheduler to place its first pod",
			class.Name, api.AnnSelectedNode),
		Source: decisionSource,
	})
}

// recordCleanup records what happens to a deleted volume's directory.
func (c *Controller) recordCleanup(pv *api.PersistentVolume, format string, args ...any) {
	if !c.volumeDecisions.Enabled() {
		return
	}
	action := fmt.Sprintf(format, args...)
	c.volumeDecisions.Record(&pv.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("volume %s is being deleted, persistentVolumeReclaimPolicy %s → %s, then remove finalizer %s",
			pv.Name, pv.Spec.PersistentVolumeReclaimPolicy, action, FinalizerVolume),
		Source: decisionSource,
	})
}
