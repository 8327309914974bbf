package apiserver

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/version"
)

// Discovery tells clients what the server serves. kubectl reads it before
// anything else to map "po" or "deploy" onto a group, version and resource.
// Two forms exist:
//
//   - the legacy documents: /api (APIVersions) and /apis (APIGroupList),
//     then one APIResourceList per group-version (/api/v1, /apis/apps/v1);
//   - aggregated discovery: every resource of every version in one
//     APIGroupDiscoveryList at /api (the core group) and one at /apis (the
//     named groups), sent when the client's Accept header asks for it.
//
// /api and /apis choose between them by content negotiation, as upstream
// 1.32 does (negotiateDiscovery): the aggregated list in
// apidiscovery.k8s.io/v2 or v2beta1, whichever the Accept header asks for
// first, and the legacy document when it asks for neither. kubectl 1.30 and
// later ask for v2, then v2beta1, then plain JSON; kubectl 1.27–1.29 know
// only v2beta1 and take a v2 answer for an empty server. The two versions
// have the same shape and differ only in apiVersion. Both answers carry
// `Vary: Accept`, since the same URL gives different documents.

// discoveryAPIGroup is the API group of the aggregated discovery documents.
const discoveryAPIGroup = "apidiscovery.k8s.io"

// aggregatedDiscoveryVersions are the versions of APIGroupDiscoveryList
// served, as upstream 1.32 serves them (v2beta1 is deprecated there and
// removed in a later release).
var aggregatedDiscoveryVersions = []string{"v2", "v2beta1"}

// negotiateDiscovery returns the version of aggregated discovery the Accept
// header asks for ("v2" or "v2beta1"), or "" when it asks for neither and
// the legacy document is the answer.
//
// Upstream's rule (negotiation.NegotiateMediaTypeOptions with the
// discovery endpoint's restrictions): media ranges are tried in order of
// preference (parseAccept); a range that names no conversion (plain
// application/json) cannot select the aggregated form, so the search goes
// on to later ranges; the first range whose g, v and as name a served
// APIGroupDiscoveryList wins. So
// `application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`
// gets the aggregated document too. kplane writes aggregated discovery only
// as JSON (upstream also speaks YAML and protobuf), so only ranges that
// admit JSON count.
func negotiateDiscovery(accept string) string {
	for _, r := range parseAccept(accept) {
		if !r.matches(response.ContentTypeJSON) || r.params["g"] != discoveryAPIGroup || r.params["as"] != "APIGroupDiscoveryList" {
			continue
		}
		if slices.Contains(aggregatedDiscoveryVersions, r.params["v"]) {
			return r.params["v"]
		}
	}
	return ""
}

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
	case "token":
		return "authentication.k8s.io", "v1", "TokenRequest", []string{"create"}
	case "proxy":
		// Upstream also takes create, delete, patch and update; kplane
		// proxies reads only (nodeproxy.go).
		return "", "v1", "NodeProxyOptions", []string{"get"}
	}
	return res.group, res.version, res.kind, []string{"get", "patch", "update"}
}

func (s *Server) serveVersion(w http.ResponseWriter, _ *http.Request) {
	response.WriteJSON(w, http.StatusOK, version.Get())
}

// serveLegacyVersions answers /api: the core group's aggregated document,
// or the legacy APIVersions.
func (s *Server) serveLegacyVersions(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Vary", "Accept")
	if version := negotiateDiscovery(r.Header.Get("Accept")); version != "" {
		s.serveAggregated(w, r, version, true)
		return
	}
	response.WriteJSON(w, http.StatusOK, map[string]any{
		"kind": "APIVersions", "versions": []string{"v1"},
		"serverAddressByClientCIDRs": []map[string]string{{"clientCIDR": "0.0.0.0/0", "serverAddress": strings.TrimPrefix(s.url, "https://")}},
	})
}

// groups returns the named API groups (not core) with their versions: the
// apiserver's own, then those of available aggregated APIServices.
func (s *Server) groups() []apiGroup {
	gvs := s.servedGroupVersionsAll()
	if s.aggregator != nil {
		for _, b := range s.aggregator.availableBackends() {
			gvs = append(gvs, b.apiService.Spec.Group+"/"+b.apiService.Spec.Version)
		}
	}
	var groups []apiGroup
	index := map[string]int{}
	for _, gv := range gvs {
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

// serveGroups answers /apis: the named groups' aggregated document, or the
// legacy APIGroupList.
func (s *Server) serveGroups(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Vary", "Accept")
	if version := negotiateDiscovery(r.Header.Get("Accept")); version != "" {
		s.serveAggregated(w, r, version, false)
		return
	}
	response.WriteJSON(w, http.StatusOK, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": s.groups()})
}

// serveGroup answers /apis/<group>.
func (s *Server) serveGroup(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "group")
	for _, g := range s.groups() {
		if g.Name == name {
			g.Kind, g.APIVersion = "APIGroup", "v1"
			response.WriteJSON(w, http.StatusOK, g)
			return
		}
	}
	response.WriteError(w, response.NotFoundPath())
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
	for _, res := range s.discoverableResources() {
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
		response.WriteError(w, response.NotFoundPath())
		return
	}
	response.WriteJSON(w, http.StatusOK, map[string]any{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": list})
}

// Aggregated discovery shapes, the same in apidiscovery.k8s.io/v2 and
// v2beta1.
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
// aggregated form, in apidiscovery.k8s.io/<version>: every resource of
// every version in one document.
//
// As upstream, the answer carries an ETag (a hash of the items, the same
// for both versions, which Vary: Accept keeps apart in caches) and a
// request whose If-None-Match names it gets 304 Not Modified.
func (s *Server) serveAggregated(w http.ResponseWriter, r *http.Request, version string, core bool) {
	var items []discoveryGroup
	index := map[string]int{}
	for _, res := range s.discoverableResources() {
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
	// The available aggregated group/versions follow (aggregator_discovery.go):
	// a version of a group served here joins that group.
	if !core && s.aggregator != nil {
		for _, b := range s.aggregator.availableBackends() {
			spec := b.apiService.Spec
			i, ok := index[spec.Group]
			if !ok {
				i = len(items)
				index[spec.Group] = i
				items = append(items, discoveryGroup{Metadata: map[string]any{"name": spec.Group, "creationTimestamp": nil}})
			}
			items[i].Versions = append(items[i].Versions, discoveryVersion{Version: spec.Version, Freshness: "Current", Resources: b.discovery})
		}
	}
	itemsJSON, err := json.Marshal(items)
	if err != nil {
		response.WriteError(w, apierrors.NewInternalError(fmt.Errorf("encode aggregated discovery: %w", err)))
		return
	}
	etag := fmt.Sprintf("%q", fmt.Sprintf("%X", sha512.Sum512(itemsJSON)))
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "public")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := map[string]any{"kind": "APIGroupDiscoveryList", "apiVersion": discoveryAPIGroup + "/" + version,
		"metadata": map[string]any{}, "items": json.RawMessage(itemsJSON)}
	// kubectl 1.27 compares this header with the media type it asked for
	// as a whole string, so the parameters keep upstream's order: g, v, as.
	response.WriteJSONAs(w, "application/json;g="+discoveryAPIGroup+";v="+version+";as=APIGroupDiscoveryList", body)
}
