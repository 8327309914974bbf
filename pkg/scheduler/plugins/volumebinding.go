package plugins

import (
	"context"
	"fmt"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/informer"
	"kplane/pkg/scheduler/framework"
)

// VolumeBinding keeps a pod that uses PersistentVolumeClaims off every
// node until each claim is bound to a volume, and then off the nodes its
// volumes cannot be reached from.
//
// As a PreFilter it looks up, once per scheduling cycle, every claim the
// pod's volumes name (spec.volumes[].persistentVolumeClaim.claimName, in
// the pod's namespace), and rejects the pod for all nodes at once —
// UnschedulableAndUnresolvable, with upstream's messages — when a claim
//
//	does not exist           persistentvolumeclaim "data" not found
//	has lost its volume      persistentvolumeclaim "data" bound to non-existent persistentvolume "pv1"
//	is being deleted         persistentvolumeclaim "data" is being deleted
//	is not bound yet         pod has unbound immediate PersistentVolumeClaims
//
// (the first three are checked for every claim before the fourth, as
// upstream does). A claim is bound once the persistentvolume-binder has
// finished with it: spec.volumeName is set and the claim carries the
// pv.kubernetes.io/bind-completed annotation (upstream's
// isPVCFullyBound). That is a claim in upstream's Immediate binding mode:
// the binder binds it on its own and the scheduler only waits.
//
// A claim of a WaitForFirstConsumer StorageClass is different: its volume
// is made (or chosen) only once the scheduler has chosen a node for its
// first pod. Such an unbound claim passes PreFilter and Filter ("delayed");
// in the binding cycle, PreBind writes the chosen node on the claim
// (volume.kubernetes.io/selected-node, upstream's annotation), which the
// binder and the class's provisioner wait for, and then waits until the
// claim is bound — at most BindTimeout — before the pod is bound to the
// node. Upstream also checks in Filter that a volume can be made on each
// node (allowedTopologies, capacity) and binds matching pre-made volumes
// itself; kplane's provisioner can make a volume on any node, and leaves
// matching to the binder. Generic ephemeral volumes are left out (kplane
// has no controller that would create their claims).
//
// As a Filter it checks the volumes of the bound claims against each node:
// a volume with spec.nodeAffinity (a local disk, a zonal volume) can only
// be used on nodes whose labels match it, "node(s) had volume node
// affinity conflict"; a claim whose volume has vanished fails every node
// with "node(s) unavailable due to one or more pvc(s) bound to
// non-existent pv(s)".
//
// Nothing a node does can fix an unbound claim, so the scheduler retries
// these pods when a claim or a volume is added or updated
// (pkg/scheduler/handlers.go): the binder's write that binds the claim is
// such an update.
type VolumeBinding struct {
	claims  *informer.Lister[*api.PersistentVolumeClaim]
	volumes *informer.Lister[*api.PersistentVolume]
	// classes tells delayed claims apart; nil treats every claim as
	// Immediate.
	classes *informer.Lister[*api.StorageClass]
	// client writes the selected-node annotation on delayed claims.
	client *client.Client
	// BindTimeout is how long PreBind waits for a delayed claim to be
	// bound; upstream's --bind-timeout-seconds default is 600 s.
	BindTimeout time.Duration
	// pollInterval is how often PreBind looks at the claims again.
	pollInterval time.Duration
}

// Upstream's reason texts.
const (
	// ErrReasonUnboundImmediateClaims is the PreFilter message for a claim
	// that exists but is not bound yet.
	ErrReasonUnboundImmediateClaims = "pod has unbound immediate PersistentVolumeClaims"
	// ErrReasonVolumeNodeConflict is the Filter reason for a node outside
	// a bound volume's node affinity.
	ErrReasonVolumeNodeConflict = "node(s) had volume node affinity conflict"
	// ErrReasonVolumeNotExist is the Filter reason for a claim bound to a
	// volume that does not exist.
	ErrReasonVolumeNotExist = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)

// Annotations on claims, upstream's names.
const (
	// annBindCompleted is put on a claim by the persistentvolume-binder
	// once the binding is complete on both sides.
	annBindCompleted = "pv.kubernetes.io/bind-completed"
	// annBetaStorageClass named a claim's class before
	// spec.storageClassName existed.
	annBetaStorageClass = "volume.beta.kubernetes.io/storage-class"
)

// DefaultBindTimeout is how long PreBind waits for the volumes of delayed
// claims: upstream's --bind-timeout-seconds default.
const DefaultBindTimeout = 600 * time.Second

// NewVolumeBinding returns the plugin reading claims, volumes and storage
// classes from the given informer caches and writing the selected node on
// delayed claims through c. Without classes (nil) every claim is treated
// as Immediate, and c is not used.
func NewVolumeBinding(claims *informer.Lister[*api.PersistentVolumeClaim], volumes *informer.Lister[*api.PersistentVolume],
	classes *informer.Lister[*api.StorageClass], c *client.Client) *VolumeBinding {
	return &VolumeBinding{claims: claims, volumes: volumes, classes: classes, client: c,
		BindTimeout: DefaultBindTimeout, pollInterval: 100 * time.Millisecond}
}

// Name returns "VolumeBinding".
func (*VolumeBinding) Name() string { return "VolumeBinding" }

// volumeBindingState is what PreFilter leaves in the pod's CycleState for
// Filter: the volume of each claim of the pod, in the order of the pod's
// volumes, with nil for a volume that does not exist. A pod without
// claims gets no state, and Filter passes every node.
type volumeBindingState struct {
	volumes []*api.PersistentVolume
	// delayed are the pod's unbound claims of WaitForFirstConsumer
	// classes, for PreBind.
	delayed []*api.PersistentVolumeClaim
}

// PreFilter rejects the pod while any of its claims is missing, lost,
// being deleted or unbound; otherwise it records the claims' volumes.
func (pl *VolumeBinding) PreFilter(pod *framework.PodInfo) *framework.Status {
	names := claimNames(pod.Pod)
	if len(names) == 0 {
		return nil
	}
	claims := make([]*api.PersistentVolumeClaim, 0, len(names))
	for _, name := range names {
		claim, err := pl.claims.Namespace(pod.Pod.Namespace).Get(name)
		switch {
		case apierrors.IsNotFound(err):
			// Upstream's text is its lister's NotFound error, which names
			// the resource in the singular.
			return framework.NewStatus(framework.UnschedulableAndUnresolvable,
				fmt.Sprintf("persistentvolumeclaim %q not found", name))
		case err != nil:
			return framework.NewStatus(framework.Error, fmt.Sprintf("get persistentvolumeclaim %q: %v", name, err))
		case claim.Status.Phase == api.ClaimLost:
			return framework.NewStatus(framework.UnschedulableAndUnresolvable,
				fmt.Sprintf("persistentvolumeclaim %q bound to non-existent persistentvolume %q", claim.Name, claim.Spec.VolumeName))
		case claim.DeletionTimestamp != nil:
			return framework.NewStatus(framework.UnschedulableAndUnresolvable,
				fmt.Sprintf("persistentvolumeclaim %q is being deleted", claim.Name))
		}
		claims = append(claims, claim)
	}

	state := &volumeBindingState{volumes: make([]*api.PersistentVolume, 0, len(claims))}
	for _, claim := range claims {
		if !claimIsBound(claim) && pl.waitsForFirstConsumer(claim) {
			state.delayed = append(state.delayed, claim)
			continue
		}
		if !claimIsBound(claim) {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnboundImmediateClaims)
		}
		pv, err := pl.volumes.Get(claim.Spec.VolumeName)
		switch {
		case apierrors.IsNotFound(err):
			pv = nil // Filter says so, node by node, as upstream does
		case err != nil:
			return framework.NewStatus(framework.Error, fmt.Sprintf("get persistentvolume %q: %v", claim.Spec.VolumeName, err))
		}
		state.volumes = append(state.volumes, pv)
	}
	pod.CycleState.Write(pl.Name(), state)
	return nil
}

// Filter passes a node from which every volume of the pod's claims can
// be reached.
func (pl *VolumeBinding) Filter(pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	state, _ := pod.CycleState.Read(pl.Name()).(*volumeBindingState)
	if state == nil {
		return nil
	}
	for _, pv := range state.volumes {
		if pv == nil {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonVolumeNotExist)
		}
		if !volumeReachableFrom(pv, node.Node) {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonVolumeNodeConflict)
		}
	}
	return nil
}

// claimIsBound reports whether the persistentvolume-binder has finished
// binding claim: it names its volume and carries bind-completed. A claim
// that names a volume without the annotation (pre-bound by its author)
// is still waiting for the binder.
func claimIsBound(claim *api.PersistentVolumeClaim) bool {
	_, completed := claim.Annotations[annBindCompleted]
	return claim.Spec.VolumeName != "" && completed
}

// volumeReachableFrom reports whether a pod on node can use pv: a volume
// without spec.nodeAffinity.required can be used anywhere, otherwise one
// of its nodeSelectorTerms must match. As upstream's CheckNodeAffinity,
// only the node's labels are looked at: a matchFields term sees a node
// without a name.
func volumeReachableFrom(pv *api.PersistentVolume, node *api.Node) bool {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return true
	}
	labelsOnly := &api.Node{ObjectMeta: api.ObjectMeta{Labels: node.Labels}}
	terms := pv.Spec.NodeAffinity.Required.NodeSelectorTerms
	for i := range terms {
		if TermMatchesNode(&terms[i], labelsOnly) {
			return true
		}
	}
	return false
}

// claimNames lists the claims a pod's volumes name, in the pod's order.
func claimNames(pod *api.Pod) []string {
	var names []string
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			names = append(names, v.PersistentVolumeClaim.ClaimName)
		}
	}
	return names
}

// waitsForFirstConsumer reports whether claim's StorageClass binds
// WaitForFirstConsumer. A claim without a class, or of a class that does
// not exist (yet), is Immediate.
func (pl *VolumeBinding) waitsForFirstConsumer(claim *api.PersistentVolumeClaim) bool {
	if pl.classes == nil {
		return false
	}
	name, ok := claim.Annotations[annBetaStorageClass]
	if !ok && claim.Spec.StorageClassName != nil {
		name = *claim.Spec.StorageClassName
	}
	if name == "" {
		return false
	}
	class, err := pl.classes.Get(name)
	return err == nil && class.VolumeBindingMode != nil && *class.VolumeBindingMode == api.VolumeBindingWaitForFirstConsumer
}

// PreBind writes nodeName on each delayed claim of the pod
// (api.AnnSelectedNode), so that the binder and the class's provisioner make
// its volume there, and waits until every one of them is bound. The pod is
// bound only after that, as upstream's PreBind does, so it never runs
// before its volumes exist. An error, or no binding within BindTimeout,
// sends the pod back to the queue.
func (pl *VolumeBinding) PreBind(ctx context.Context, pod *framework.PodInfo, nodeName string) *framework.Status {
	state, _ := pod.CycleState.Read(pl.Name()).(*volumeBindingState)
	if state == nil || len(state.delayed) == 0 {
		return nil
	}
	for _, claim := range state.delayed {
		// The cache may be newer than the claim PreFilter saw (an earlier
		// attempt wrote the node already).
		if current, err := pl.claims.Namespace(claim.Namespace).Get(claim.Name); err == nil {
			claim = current
		}
		if claim.Annotations[api.AnnSelectedNode] == nodeName {
			continue
		}
		updated := api.DeepCopy(claim)
		if updated.Annotations == nil {
			updated.Annotations = map[string]string{}
		}
		updated.Annotations[api.AnnSelectedNode] = nodeName
		if _, err := pl.client.PersistentVolumeClaims(claim.Namespace).Update(ctx, updated, client.UpdateOptions{}); err != nil {
			return framework.NewStatus(framework.Error, fmt.Sprintf("select node %s for persistentvolumeclaim %q: %v", nodeName, claim.Name, err))
		}
	}
	deadline := time.Now().Add(pl.BindTimeout)
	for {
		waiting := ""
		for _, claim := range state.delayed {
			current, err := pl.claims.Namespace(claim.Namespace).Get(claim.Name)
			if err != nil {
				return framework.NewStatus(framework.Error, fmt.Sprintf("persistentvolumeclaim %q: %v", claim.Name, err))
			}
			if !claimIsBound(current) {
				waiting = claim.Name
				break
			}
		}
		if waiting == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return framework.NewStatus(framework.Error, fmt.Sprintf("binding volumes: timed out waiting for persistentvolumeclaim %q to be bound", waiting))
		}
		select {
		case <-ctx.Done():
			return framework.NewStatus(framework.Error, fmt.Sprintf("binding volumes: %v", ctx.Err()))
		case <-time.After(pl.pollInterval):
		}
	}
}
