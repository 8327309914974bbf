package apiserver

// Discovery merging: the backends' group/versions join the apiserver's own
// in /apis (APIGroupList), /apis/<group> (APIGroup) and the aggregated
// discovery document, once their APIService is Available. The backend's own
// /apis/<group>/<version> is proxied (aggregator_proxy.go); the aggregated
// document is built from the APIResourceList the availability check fetched
// (every 30 s and on every change), as upstream's discovery aggregation
// controller does for a backend that serves only the legacy documents
// (kube-aggregator/pkg/apiserver/handler_discovery.go). A backend that goes
// away drops out at the next check.

import "strings"

// discoveryGroups returns the aggregated groups for the legacy /apis and
// /apis/<group> documents: each group with its versions, the highest
// versionPriority first and preferred.
func (a *aggregator) discoveryGroups() []apiGroup {
	var groups []apiGroup
	index := map[string]int{}
	for _, b := range a.availableBackends() {
		spec := b.apiService.Spec
		v := groupVersionForDiscovery{GroupVersion: spec.Group + "/" + spec.Version, Version: spec.Version}
		if i, ok := index[spec.Group]; ok {
			groups[i].Versions = append(groups[i].Versions, v)
			continue
		}
		index[spec.Group] = len(groups)
		groups = append(groups, apiGroup{Name: spec.Group, Versions: []groupVersionForDiscovery{v}, PreferredVersion: v})
	}
	return groups
}

// mergeGroups adds the aggregated groups to the apiserver's own: a version
// of a group the apiserver also serves joins that group's versions.
func mergeGroups(local, aggregated []apiGroup) []apiGroup {
	index := map[string]int{}
	for i, g := range local {
		index[g.Name] = i
	}
	for _, g := range aggregated {
		if i, ok := index[g.Name]; ok {
			local[i].Versions = append(local[i].Versions, g.Versions...)
			continue
		}
		index[g.Name] = len(local)
		local = append(local, g)
	}
	return local
}

// aggregatedDiscoveryGroups returns the aggregated groups in the form of
// the aggregated discovery document (apidiscovery.k8s.io APIGroupDiscovery).
func (a *aggregator) aggregatedDiscoveryGroups() []discoveryGroup {
	var groups []discoveryGroup
	index := map[string]int{}
	for _, b := range a.availableBackends() {
		spec := b.apiService.Spec
		i, ok := index[spec.Group]
		if !ok {
			i = len(groups)
			index[spec.Group] = i
			groups = append(groups, discoveryGroup{Metadata: map[string]any{"name": spec.Group, "creationTimestamp": nil}})
		}
		groups[i].Versions = append(groups[i].Versions, discoveryVersion{Version: spec.Version, Freshness: "Current",
			Resources: toDiscoveryResources(spec.Group, spec.Version, b.resources.Resources)})
	}
	return groups
}

// mergeDiscoveryGroups adds aggregated groups to the apiserver's own in the
// aggregated form, as mergeGroups does for the legacy form.
func mergeDiscoveryGroups(local, aggregated []discoveryGroup) []discoveryGroup {
	index := map[string]int{}
	for i, g := range local {
		if name, ok := g.Metadata["name"].(string); ok {
			index[name] = i
		}
	}
	for _, g := range aggregated {
		name, _ := g.Metadata["name"].(string)
		if i, ok := index[name]; ok {
			local[i].Versions = append(local[i].Versions, g.Versions...)
			continue
		}
		index[name] = len(local)
		local = append(local, g)
	}
	return local
}

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
