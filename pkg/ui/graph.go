package ui

// Edge is one arrow of the ownership graph, from a parent object to a
// child. The parent is named by UID; the child by UID too, or — when the
// field the arrow comes from names it only by name, as a pod's volumes name
// their claims — by ToRef, which the page resolves against the objects it
// holds (the child may arrive after the parent).
type Edge struct {
	// From is the parent's UID: the owner, the EndpointSlice that targets
	// a Pod, the Pod that mounts a claim, or the claim bound to a volume.
	From string `json:"from"`
	// To is the child's UID, when the parent's field names it by UID.
	To string `json:"to,omitempty"`
	// ToRef names the child by kind, namespace and name, when To is empty.
	ToRef *ObjectRef `json:"toRef,omitempty"`
	// Relation says why the arrow exists: "owns" (the child's
	// ownerReferences name the parent, as the garbage collector reads
	// them), "targets" (an EndpointSlice's endpoint names the Pod, which is
	// how a Service reaches the Pods its selector matches), "uses" (a Pod's
	// volume names the PersistentVolumeClaim; the Pod does not own it
	// unless the claim's ownerReferences say so) or "bound" (a bound
	// claim's spec.volumeName names its PersistentVolume).
	Relation string `json:"relation"`
}

// ObjectRef names an object by kind, namespace ("" when cluster-scoped) and
// name.
type ObjectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// Edge relations.
const (
	RelationOwns    = "owns"
	RelationTargets = "targets"
	RelationUses    = "uses"
	RelationBound   = "bound"
)

// EdgesOf returns the edges one object contributes to the ownership graph,
// read from the object alone: one "owns" edge per ownerReference (upstream's
// garbage collector builds its graph from the same field, so custom
// resources appear as soon as they set it); for an EndpointSlice one
// "targets" edge per endpoint whose targetRef names a Pod by UID; for a Pod
// one "uses" edge per volume naming a PersistentVolumeClaim (in the pod's
// namespace); for a PersistentVolumeClaim one "bound" edge to the
// PersistentVolume its spec.volumeName names. obj is the object as JSON
// decodes it.
func EdgesOf(kind string, obj map[string]any) []Edge {
	uid := stringAt(obj, "metadata", "uid")
	if uid == "" {
		return nil
	}
	var edges []Edge
	owners, _ := valueAt(obj, "metadata", "ownerReferences").([]any)
	for _, o := range owners {
		ref, _ := o.(map[string]any)
		if owner := stringAt(ref, "uid"); owner != "" {
			edges = append(edges, Edge{From: owner, To: uid, Relation: RelationOwns})
		}
	}
	switch kind {
	case "Pod":
		edges = append(edges, claimsUsedBy(uid, obj)...)
	case "PersistentVolumeClaim":
		if volume := stringAt(obj, "spec", "volumeName"); volume != "" {
			edges = append(edges, Edge{From: uid, ToRef: &ObjectRef{Kind: "PersistentVolume", Name: volume}, Relation: RelationBound})
		}
	case "EndpointSlice":
		endpoints, _ := obj["endpoints"].([]any)
		for _, e := range endpoints {
			endpoint, _ := e.(map[string]any)
			if stringAt(endpoint, "targetRef", "kind") != "Pod" {
				continue
			}
			if pod := stringAt(endpoint, "targetRef", "uid"); pod != "" {
				edges = append(edges, Edge{From: uid, To: pod, Relation: RelationTargets})
			}
		}
	}
	return edges
}

// claimsUsedBy returns a "uses" edge from the pod to each claim its volumes
// name (persistentVolumeClaim.claimName), once per claim.
func claimsUsedBy(uid string, pod map[string]any) []Edge {
	namespace := stringAt(pod, "metadata", "namespace")
	volumes, _ := valueAt(pod, "spec", "volumes").([]any)
	var edges []Edge
	seen := map[string]bool{}
	for _, v := range volumes {
		volume, _ := v.(map[string]any)
		claim := stringAt(volume, "persistentVolumeClaim", "claimName")
		if claim == "" || seen[claim] {
			continue
		}
		seen[claim] = true
		edges = append(edges, Edge{From: uid, ToRef: &ObjectRef{Kind: "PersistentVolumeClaim", Namespace: namespace, Name: claim}, Relation: RelationUses})
	}
	return edges
}

// valueAt walks obj's nested maps along path; nil when a step is missing.
func valueAt(obj map[string]any, path ...string) any {
	var v any = obj
	for _, field := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[field]
	}
	return v
}

// stringAt is valueAt for a string field; "" when missing or not a string.
func stringAt(obj map[string]any, path ...string) string {
	s, _ := valueAt(obj, path...).(string)
	return s
}
