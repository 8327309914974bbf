package apiserver

// This file is a kplane-only admission step: the simulated runtime's load
// is inherited. `ctl load deploy/web --cpu 300m` (or `kubectl annotate
// deploy/web sim.kplane.io/cpu=300m`) puts the load model's annotations
// (package simload) on the workload's own metadata — not its pod template,
// which would roll the Deployment out. So that the replicas created later
// (a scale-up, a replacement) use what their workload says, a pod created
// with no load annotation of its own gets its controller's: the pod's
// controller ownerReference (a ReplicaSet, StatefulSet, DaemonSet, Job,
// ReplicationController), or, when that owner has none, the owner's own
// controller one level up (the ReplicaSet's Deployment, the Job's
// CronJob). Upstream has no such thing; a real container's usage comes
// from what it does.
//
// Owners are read from the watch caches, never etcd: pod creation is the
// hottest write path, and an owner that creates pods is in the cache long
// before (its controller saw it there). A lagging cache means only that
// the pod keeps the default idle load.

import (
	"maps"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/simload"
)

// simLoadOwnerLevels is how far up the controller chain the load is
// looked for: pod → ReplicaSet → Deployment.
const simLoadOwnerLevels = 2

// inheritSimLoad copies the load annotations of the new pod's nearest
// controller that has any, unless the pod has its own.
func (s *Server) inheritSimLoad(pod *api.Pod) {
	if simload.HasLoad(pod.Annotations) {
		return
	}
	meta := &pod.ObjectMeta
	for range simLoadOwnerLevels {
		owner := s.cachedController(pod.Namespace, meta)
		if owner == nil {
			return
		}
		if load := simload.LoadAnnotations(owner.Annotations); load != nil {
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			maps.Copy(pod.Annotations, load)
			return
		}
		meta = owner
	}
}

// cachedController returns the metadata of the object meta's controller
// ownerReference points to, from the watch cache; nil when meta has no
// controller, its kind is not served, or the cache has no object of that
// name and UID.
func (s *Server) cachedController(namespace string, meta *api.ObjectMeta) *api.ObjectMeta {
	var ref *api.OwnerReference
	for i := range meta.OwnerReferences {
		if r := &meta.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			ref = r
			break
		}
	}
	if ref == nil {
		return nil
	}
	res := s.reg.byKind[ref.APIVersion+"/"+ref.Kind]
	if res == nil {
		return nil
	}
	if storage := s.reg.byPluralAny[res.plural]; storage != nil {
		res = storage // a converted view (autoscaling/v1) caches nothing of its own
	}
	c := s.caches[res]
	if c == nil {
		return nil
	}
	e, ok := c.Get(res.key(namespace, ref.Name))
	if !ok {
		return nil
	}
	stored, ok := e.Object.(*storedObject)
	if !ok {
		return nil
	}
	owner := stored.obj.GetObjectMeta()
	if owner.UID != ref.UID {
		return nil // a different object of the same name
	}
	return owner
}
