package apiserver

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"kplane/pkg/version"
)

// Discovery tells clients what the server serves. kubectl reads it before
// anything else to map "po" or "deploy" onto a group, version and resource.
// Two forms exist: the legacy documents (/api, /apis, then one request per
// group/version) and aggregated discovery (everything in /api and /apis, sent
// when the client's Accept header asks for APIGroupDiscoveryList). kubectl
// 1.32 asks for the aggregated form first; both are served.

const contentTypeAggregatedDiscovery = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

type groupVersionForDiscovery struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

type apiGroup struct {
	Kind             string                     `json:"kind,omitempty"`
	APIVersion       string                     `json:"apiVersion,omitempty"`
	Name             string                     `json:"name"`
	Versions         []groupVersionForDiscovery `json:"versions"`
	PreferredVersion groupVersionForDiscovery   `json:"preferredVersion"`
}

type apiResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Namespaced   bool     `json:"namespaced"`
	Group        string   `json:"group,omitempty"`
	Version      string   `json:"version,omitempty"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames,omitempty"`
	Categories   []string `json:"categories,omitempty"`
}

// subresourceKind says what a subresource answers with and which verbs it takes.
func subresourceKind(res *resource, sub string) (group, version, kind string, verbs []string) {
	switch sub {
	case "scale":
		return "autoscaling", "v1", "Scale", []string{"get", "patch", "update"}
	case "binding":
		return "", "v1", "Binding", []string{"create"}
	case "eviction":
		return "policy", "v1", "Eviction", []string{"create"}
	case "log":
		return "", "v1", "Pod", []string{"get"}
	case "finalize":
		return "", "v1", "Namespace", []string{"update"}
	}
	return res.group, res.version, res.kind, []string{"get", "patch", "update"}
}

func (s *Server) serveVersion(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, version.Get())
}

func wantsAggregatedDiscovery(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "as=APIGroupDiscoveryList") && strings.Contains(accept, "apidiscovery.k8s.io")
}

// serveLegacyVersions answers /api.
func (s *Server) serveLegacyVersions(w http.ResponseWriter, r *http.Request) {
	if wantsAggregatedDiscovery(r) {
		s.serveAggregated(w, true)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"kind": "APIVersions", "versions": []string{"v1"},
		"serverAddressByClientCIDRs": []map[string]string{{"clientCIDR": "0.0.0.0/0", "serverAddress": strings.TrimPrefix(s.url, "https://")}},
	})
}

// groups returns the named API groups (not core) with their versions.
func (s *Server) groups() []apiGroup {
	var groups []apiGroup
	index := map[string]int{}
	for _, gv := range s.reg.groupVersions() {
		group, version, found := strings.Cut(gv, "/")
		if !found {
			continue // the core group is served at /api
		}
		v := groupVersionForDiscovery{GroupVersion: gv, Version: version}
		if i, ok := index[group]; ok {
			groups[i].Versions = append(groups[i].Versions, v)
			continue
		}
		index[group] = len(groups)
		groups = append(groups, apiGroup{Name: group, Versions: []groupVersionForDiscovery{v}, PreferredVersion: v})
	}
	return groups
}

// serveGroups answers /apis.
func (s *Server) serveGroups(w http.ResponseWriter, r *http.Request) {
	if wantsAggregatedDiscovery(r) {
		s.serveAggregated(w, false)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": s.groups()})
}

// serveGroup answers /apis/<group>.
func (s *Server) serveGroup(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "group")
	for _, g := range s.groups() {
		if g.Name == name {
			g.Kind, g.APIVersion = "APIGroup", "v1"
			writeJSON(w, http.StatusOK, g)
			return
		}
	}
	writeError(w, notFoundPath())
}

// serveResourceList answers /api/v1 and /apis/<group>/<version> with the
// resources of that group/version, subresources included ("pods/status").
func (s *Server) serveResourceList(w http.ResponseWriter, r *http.Request) {
	group, version := chi.URLParam(r, "group"), chi.URLParam(r, "version")
	if group == "" {
		version = "v1"
	}
	gv := version
	if group != "" {
		gv = group + "/" + version
	}
	var list []apiResource
	for _, res := range s.reg.all {
		if res.groupVersion() != gv {
			continue
		}
		list = append(list, apiResource{Name: res.plural, SingularName: res.singular, Namespaced: res.namespaced,
			Kind: res.kind, Verbs: res.verbs(), ShortNames: res.shortNames, Categories: res.categories})
		for _, sub := range res.subresources() {
			sg, sv, kind, verbs := subresourceKind(res, sub)
			entry := apiResource{Name: res.plural + "/" + sub, Namespaced: res.namespaced, Kind: kind, Verbs: verbs}
			if sg != res.group || sv != res.version {
				entry.Group, entry.Version = sg, sv
			}
			list = append(list, entry)
		}
	}
	if list == nil {
		writeError(w, notFoundPath())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": list})
}

// Aggregated discovery (apidiscovery.k8s.io/v2) shapes.
type discoveryKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type discoverySubresource struct {
	Subresource  string        `json:"subresource"`
	ResponseKind discoveryKind `json:"responseKind"`
	Verbs        []string      `json:"verbs"`
}

type discoveryResource struct {
	Resource         string                 `json:"resource"`
	ResponseKind     discoveryKind          `json:"responseKind"`
	Scope            string                 `json:"scope"`
	SingularResource string                 `json:"singularResource"`
	Verbs            []string               `json:"verbs"`
	ShortNames       []string               `json:"shortNames,omitempty"`
	Categories       []string               `json:"categories,omitempty"`
	Subresources     []discoverySubresource `json:"subresources,omitempty"`
}

type discoveryVersion struct {
	Version   string              `json:"version"`
	Resources []discoveryResource `json:"resources"`
	Freshness string              `json:"freshness"`
}

type discoveryGroup struct {
	Metadata map[string]any     `json:"metadata"`
	Versions []discoveryVersion `json:"versions"`
}

// serveAggregated answers /api (core only) or /apis (named groups) in the
// aggregated form: every resource of every version in one document.
func (s *Server) serveAggregated(w http.ResponseWriter, core bool) {
	var items []discoveryGroup
	index := map[string]int{}
	for _, res := range s.reg.all {
		if (res.group == "") != core {
			continue
		}
		i, ok := index[res.group]
		if !ok {
			i = len(items)
			index[res.group] = i
			meta := map[string]any{"creationTimestamp": nil}
			if res.group != "" {
				meta["name"] = res.group
			}
			items = append(items, discoveryGroup{Metadata: meta})
		}
		g := &items[i]
		var v *discoveryVersion
		for j := range g.Versions {
			if g.Versions[j].Version == res.version {
				v = &g.Versions[j]
			}
		}
		if v == nil {
			g.Versions = append(g.Versions, discoveryVersion{Version: res.version, Freshness: "Current"})
			v = &g.Versions[len(g.Versions)-1]
		}
		scope := "Cluster"
		if res.namespaced {
			scope = "Namespaced"
		}
		dr := discoveryResource{Resource: res.plural, Scope: scope, SingularResource: res.singular, Verbs: res.verbs(),
			ShortNames: res.shortNames, Categories: res.categories,
			ResponseKind: discoveryKind{Group: res.group, Version: res.version, Kind: res.kind}}
		for _, sub := range res.subresources() {
			sg, sv, kind, verbs := subresourceKind(res, sub)
			dr.Subresources = append(dr.Subresources, discoverySubresource{Subresource: sub, Verbs: verbs,
				ResponseKind: discoveryKind{Group: sg, Version: sv, Kind: kind}})
		}
		v.Resources = append(v.Resources, dr)
	}
	body := map[string]any{"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2",
		"metadata": map[string]any{}, "items": items}
	w.Header().Set("Vary", "Accept")
	writeJSONAs(w, contentTypeAggregatedDiscovery, body)
}
