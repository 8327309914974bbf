package daemonset

import (
	"fmt"

	"kplane/pkg/api"
)

// nodeNameField is the one field a node selector's matchFields may name.
const nodeNameField = "metadata.name"

// pinToNode returns affinity with its required node affinity replaced by
// the single term "metadata.name In [nodeName]", creating the structs it
// needs (upstream's ReplaceDaemonSetPodNodeNameNodeAffinity). The old
// required terms go: the controller has already checked them against this
// node, and the scheduler now has exactly one node to consider. Preferred
// terms and pod (anti-)affinity are kept. affinity is modified in place.
//
// This is how daemon pods are placed since Kubernetes 1.12: not with
// spec.nodeName, which would bypass the scheduler, but pinned by affinity,
// so that the default scheduler binds them and accounts for their
// resources and preemption like any other pod.
func pinToNode(affinity *api.Affinity, nodeName string) *api.Affinity {
	required := &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
		MatchFields: []api.NodeSelectorRequirement{{
			Key:      nodeNameField,
			Operator: api.NodeSelectorOpIn,
			Values:   []string{nodeName},
		}},
	}}}
	if affinity == nil {
		affinity = &api.Affinity{}
	}
	if affinity.NodeAffinity == nil {
		affinity.NodeAffinity = &api.NodeAffinity{}
	}
	affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = required
	return affinity
}

// targetNodeName returns the node a daemon pod belongs to: spec.nodeName
// once it is bound, before that the node its matchFields term pins it to
// (upstream's GetTargetNodeName).
func targetNodeName(pod *api.Pod) (string, error) {
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName, nil
	}
	affinity := pod.Spec.Affinity
	if affinity == nil || affinity.NodeAffinity == nil || affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return "", fmt.Errorf("pod %s/%s has neither nodeName nor required node affinity", pod.Namespace, pod.Name)
	}
	for _, term := range affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, req := range term.MatchFields {
			if req.Key == nodeNameField && req.Operator == api.NodeSelectorOpIn {
				if len(req.Values) != 1 {
					return "", fmt.Errorf("pod %s/%s: matchFields %s In has %d values, want 1", pod.Namespace, pod.Name, nodeNameField, len(req.Values))
				}
				return req.Values[0], nil
			}
		}
	}
	return "", fmt.Errorf("pod %s/%s: no node name found in its node affinity", pod.Namespace, pod.Name)
}
