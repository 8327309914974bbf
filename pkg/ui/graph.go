package ui

// Edge is one arrow of the ownership graph, from a parent object to a child,
// both named by UID.
type Edge struct {
	// From is the parent's UID: the owner, or the EndpointSlice that
	// targets a Pod.
	From string `json:"from"`
	// To is the child's UID.
	To string `json:"to"`
	// Relation says why the arrow exists: "owns" (the child's
	// ownerReferences name the parent, as the garbage collector reads them)
	// or "targets" (an EndpointSlice's endpoint names the Pod, which is how
	// a Service reaches the Pods its selector matches).
	Relation string `json:"relation"`
}

// Edge relations.
const (
	RelationOwns    = "owns"
	RelationTargets = "targets"
)

// EdgesOf returns the edges one object contributes to the ownership graph,
// read from the object alone: one "owns" edge per ownerReference (upstream's
// garbage collector builds its graph from the same field, so custom
// resources appear as soon as they set it), and for an EndpointSlice one
// "targets" edge per endpoint whose targetRef names a Pod by UID. obj is the
// object as JSON decodes it.
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
	if kind == "EndpointSlice" {
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
