package apiserver

// Discovery merging: the backends' group/versions join the apiserver's own
// in /apis (APIGroupList), /apis/<group> (APIGroup) and the aggregated
// discovery document, once their APIService is Available. The backend's own
// /apis/<group>/<version> is proxied (aggregator_proxy.go); the aggregated
// document is built from the APIResourceList the availability check fetched
// (every 30 s and on every change), as upstream's discovery aggregation
// controller does for a backend that serves only the legacy documents
// (kube-aggregator/pkg/apiserver/handler_discovery.go). The check converts
// that list once (toDiscoveryResources); groups() and serveAggregated in
// discovery.go add the available backends' group/versions, in the order of
// the last sync's snapshot, to the apiserver's own. A backend that goes
// away drops out at the next check.

import "strings"

// toDiscoveryResources converts a legacy APIResourceList's entries to the
// aggregated form: each "<resource>/<subresource>" entry becomes a
// subresource of its resource, and an entry without its own group/version
// or singular name takes the list's and its kind's, as upstream's
// conversion does.
func toDiscoveryResources(group, version string, list []apiResource) []discoveryResource {
	out := []discoveryResource{}
	index := map[string]int{}
	for _, r := range list {
		if strings.Contains(r.Name, "/") {
			continue
		}
		scope := "Cluster"
		if r.Namespaced {
			scope = "Namespaced"
		}
		singular := r.SingularName
		if singular == "" {
			singular = strings.ToLower(r.Kind)
		}
		index[r.Name] = len(out)
		out = append(out, discoveryResource{Resource: r.Name, Scope: scope, SingularResource: singular,
			Verbs: nonNil(r.Verbs), ShortNames: r.ShortNames, Categories: r.Categories,
			ResponseKind: responseKind(group, version, r)})
	}
	for _, r := range list {
		parent, sub, found := strings.Cut(r.Name, "/")
		if !found {
			continue
		}
		i, ok := index[parent]
		if !ok {
			continue // a subresource of nothing listed: upstream drops it too
		}
		out[i].Subresources = append(out[i].Subresources, discoverySubresource{Subresource: sub,
			Verbs: nonNil(r.Verbs), ResponseKind: responseKind(group, version, r)})
	}
	return out
}

// responseKind is the group, version and kind a resource answers with: its
// own when the list names them, the list's otherwise.
func responseKind(group, version string, r apiResource) discoveryKind {
	kind := discoveryKind{Group: group, Version: version, Kind: r.Kind}
	if r.Group != "" || r.Version != "" {
		kind.Group, kind.Version = r.Group, r.Version
	}
	return kind
}

// nonNil keeps an empty verb list a JSON [] rather than null.
func nonNil(verbs []string) []string {
	if verbs == nil {
		return []string{}
	}
	return verbs
}
