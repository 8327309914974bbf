package disruption

// Finding the scale of the pods' controllers, for budgets that need it (a
// percentage, or maxUnavailable): the denominator is the sum of
// spec.replicas of the distinct controllers of the selected pods, as
// upstream's getExpectedScale. A pod of a ReplicaSet that a Deployment owns
// counts the Deployment's replicas (during a rollout the two ReplicaSets
// together should have that many).

import (
	"fmt"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
)

// expectedScale sums the scale of the pods' controllers, each counted once.
// Pods without a controller are returned in unmanaged (upstream warns and
// leaves them out); a pod whose controller is none of Deployment,
// ReplicaSet, StatefulSet and ReplicationController is an error, since
// nothing says how many pods it should have.
func (c *Controller) expectedScale(pods []*api.Pod) (scale int32, unmanaged []string, err error) {
	counted := map[string]bool{} // by controller UID
	for _, pod := range pods {
		ref := controllerutil.GetControllerOf(&pod.ObjectMeta)
		if ref == nil {
			unmanaged = append(unmanaged, pod.Name)
			continue
		}
		if counted[ref.UID] {
			continue
		}
		uid, replicas, found, err := c.controllerScale(pod.Namespace, ref)
		if err != nil {
			return 0, nil, err
		}
		if !found {
			return 0, nil, fmt.Errorf("found no controllers for pod %q", pod.Name)
		}
		if !counted[uid] {
			scale += replicas
		}
		// The pod's own controller and the one whose scale counted (its
		// Deployment) are both done.
		counted[ref.UID], counted[uid] = true, true
	}
	return scale, unmanaged, nil
}

// controllerScale returns the UID and spec.replicas of the workload that
// ref points to (for a ReplicaSet owned by a Deployment, the Deployment's).
// found is false when the controller is gone or is another object of that
// name; an error when its kind has no scale.
func (c *Controller) controllerScale(namespace string, ref *api.OwnerReference) (uid string, replicas int32, found bool, err error) {
	group := "" // the core group's apiVersion is "v1"
	if g, _, ok := strings.Cut(ref.APIVersion, "/"); ok {
		group = g
	}
	switch {
	case ref.Kind == "ReplicationController" && group == "":
		rc, err := c.replicationControllers.Namespace(namespace).Get(ref.Name)
		if err != nil || rc.UID != ref.UID {
			return "", 0, false, nil
		}
		return rc.UID, replicasOf(rc.Spec.Replicas), true, nil
	case ref.Kind == "ReplicaSet" && (group == "apps" || group == "extensions"):
		rs, err := c.replicaSets.Namespace(namespace).Get(ref.Name)
		if err != nil || rs.UID != ref.UID {
			return "", 0, false, nil
		}
		if owner := controllerutil.GetControllerOf(&rs.ObjectMeta); owner != nil && owner.Kind == "Deployment" {
			deployment, err := c.deployments.Namespace(namespace).Get(owner.Name)
			if err != nil || deployment.UID != owner.UID {
				return "", 0, false, nil
			}
			return deployment.UID, replicasOf(deployment.Spec.Replicas), true, nil
		}
		return rs.UID, replicasOf(rs.Spec.Replicas), true, nil
	case ref.Kind == "StatefulSet" && group == "apps":
		set, err := c.statefulSets.Namespace(namespace).Get(ref.Name)
		if err != nil || set.UID != ref.UID {
			return "", 0, false, nil
		}
		return set.UID, replicasOf(set.Spec.Replicas), true, nil
	}
	// Upstream asks the scale subresource of any other kind; of kplane's
	// kinds only these four have one, so the answer is upstream's message
	// for a kind without it, or for a kind the server does not know.
	for _, res := range client.BuiltinResources() {
		if res.Kind == ref.Kind && res.Group == group {
			qualified := res.Resource
			if group != "" {
				qualified += "." + group
			}
			return "", 0, false, fmt.Errorf("%s does not implement the scale subresource", qualified)
		}
	}
	return "", 0, false, fmt.Errorf("no matches for kind %q in version %q", ref.Kind, ref.APIVersion)
}

// replicasOf reads spec.replicas, which defaulting sets (1 when nil).
func replicasOf(replicas *int32) int32 {
	if replicas == nil {
		return 1
	}
	return *replicas
}
